import CVAI
import Foundation
import _HeadScanSupport

/// One patient's scans in the order they were recorded, and the change between visits.
///
/// Reports are grouped by `patientID` (the scan header's, copied into the report); a report without one
/// is a course of its own, named by its file. Visits are ordered by `recordedAt` (ISO 8601);
/// visits without a date come last, by file name.
///
/// A change between two visits *exceeds the uncertainty* when its size is larger than the two
/// visits' 95 % half-widths added in quadrature, `√(h₁² + h₂²)`: the 95 % half-width of the
/// difference of two independent, roughly normal estimates. Without an interval on either
/// side the question is left open (`nil`).
public struct PatientCourse: Sendable {
  /// One scan of the course.
  public struct Visit: Sendable {
    /// Where the report came from (its file), as given.
    public var source: String
    /// The report.
    public var report: MeasureReport
    /// `recordedAt` read, when the report has it.
    public var date: Date?
  }

  /// A measure followed over time.
  public enum Measure: String, Sendable, CaseIterable {
    /// CVAI by the longer diagonal (reports asked for the shorter one are converted), percent.
    case cvai
    /// Cranial index.
    case ci
    /// Head circumference at the measurement level, mm.
    case circumference

    /// The report's measure it follows.
    public var measure: HeadMeasure {
      switch self {
      case .cvai: return .cvai
      case .ci: return .ci
      case .circumference: return .circumference
      }
    }

    /// Its value and 95 % interval in `report` (interval `nil` when the report has none).
    public func value(in report: MeasureReport) -> (value: Double, interval: Interval95?) {
      let interval = report.intervals95?[measure]
      guard self == .cvai else { return (report.value(of: measure), interval) }
      guard report.cvaiDenominator == .shorter else { return (report.cvaiByLonger, interval) }
      let convert = MeasureReport.cvaiByLonger(fromShorter:)
      return (report.cvaiByLonger, interval.map { Interval95(low: convert($0.low), high: convert($0.high)) })
    }

    /// Name and unit for table headers.
    public var shortTitle: String {
      switch self {
      case .cvai: return "CVAI %"
      case .ci: return "CI"
      case .circumference: return "HC mm"
      }
    }

    /// Name and unit for tables and axes.
    public var title: String {
      switch self {
      case .cvai: return "CVAI (%)"
      case .ci: return "CI"
      case .circumference: return "Circumference (mm)"
      }
    }
  }

  /// The change of one measure from one visit to the next.
  public struct Change: Sendable, Hashable {
    /// Index of the later visit in ``PatientCourse/visits`` (the earlier is `visit - 1`).
    public var visit: Int
    /// Later minus earlier, in the measure's unit.
    public var difference: Double
    /// `√(h₁² + h₂²)` of the two 95 % half-widths, when both visits have intervals.
    public var combinedHalfWidth95: Double?
    /// Whether `|difference|` exceeds ``combinedHalfWidth95`` (`nil` without intervals).
    public var exceedsUncertainty: Bool? {
      combinedHalfWidth95.map { abs(difference) > $0 }
    }
  }

  /// The patient id, `nil` for a report that names none.
  public var patientID: String?
  /// The visits, earliest first.
  public var visits: [Visit]

  /// `patient 17`, or the report's file for a report without a patient id.
  public var label: String {
    patientID.map { "patient \($0)" } ?? "no patient id: \(visits.first?.source ?? "")"
  }

  /// The changes of `measure` between consecutive visits (one fewer than the visits).
  public func changes(of measure: Measure) -> [Change] {
    visits.indices.dropFirst().map { k in
      let (a, ia) = measure.value(in: visits[k - 1].report), (b, ib) = measure.value(in: visits[k].report)
      let combined = ia.flatMap { ia in ib.map { ib in (ia.halfWidth * ia.halfWidth + ib.halfWidth * ib.halfWidth).squareRoot() } }
      return Change(visit: k, difference: b - a, combinedHalfWidth95: combined)
    }
  }

  /// Days from the first visit for each visit, when every visit has a date.
  public var daysSinceFirstVisit: [Double]? {
    let dates = visits.compactMap(\.date)
    guard dates.count == visits.count, let first = dates.first else { return nil }
    return dates.map { $0.timeIntervalSince(first) / 86_400 }
  }

  /// Groups reports into courses, patients in the order of their ids (courses without an id after).
  /// - Parameter reports: each report with the file it came from.
  /// - Throws: ``FileProblem`` naming the file when `recordedAt` is not an ISO 8601 date or time.
  public static func courses(of reports: [(source: String, report: MeasureReport)]) throws(FileProblem) -> [PatientCourse] {
    var byPatient: [String: [Visit]] = [:]
    var without: [PatientCourse] = []
    for (source, report) in reports {
      var date: Date?
      if let text = report.recordedAt {
        guard let parsed = parseDate(text) else {
          throw FileProblem(path: source, problem: "report key 'recordedAt' is not an ISO 8601 date: '\(text)'")
        }
        date = parsed
      }
      let visit = Visit(source: source, report: report, date: date)
      if let id = report.patientID { byPatient[id, default: []].append(visit) } else { without.append(PatientCourse(patientID: nil, visits: [visit])) }
    }
    let ordered = byPatient.keys.sorted { $0.localizedStandardCompare($1) == .orderedAscending }.map { id in
      PatientCourse(
        patientID: id,
        visits: (byPatient[id] ?? []).sorted { a, b in
          switch (a.date, b.date) {
          case (let x?, let y?) where x != y: return x < y
          case (.some, nil): return true
          case (nil, .some): return false
          default: return a.source < b.source
          }
        })
    }
    return ordered + without.sorted { $0.label < $1.label }
  }

  /// `2026-11-21T10:15:00Z` (fractional seconds and offsets allowed) or `2026-11-21`.
  static func parseDate(_ text: String) -> Date? { parseISO8601(text) }
}
