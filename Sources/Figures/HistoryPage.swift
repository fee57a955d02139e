import CVAI
import Foundation
import Reports
import _HeadScanSupport

/// The course of one or more patients over their scans, as one self-contained HTML page and as
/// CSV: CVAI, CI and circumference over time with their 95 % intervals and the clinical bands,
/// and for each visit the change since the one before and whether it exceeds the combined
/// uncertainty (`PatientCourse/Change`).
///
/// ```swift
/// let reports = try paths.map { (source: $0, report: try MeasureReport(path: $0)) }
/// let page = HistoryPage(courses: try PatientCourse.courses(of: reports))
/// print(page.csv)
/// ```
public struct HistoryPage: Sendable {
  /// The patients' courses, in page order.
  public var courses: [PatientCourse]

  /// The history of the report files at `reportFiles`.
  /// - Throws: `FileProblem` naming a report that cannot be read, or patients mixed up.
  public init(reportFiles: [String]) throws {
    let loaded = try reportFiles.map { (source: $0, report: try MeasureReport(path: $0)) }
    self.init(courses: try PatientCourse.courses(of: loaded))
  }

  public init(courses: [PatientCourse]) {
    self.courses = courses
  }

  /// `Head shape history – patient P` for one patient, `… – N patients` for more.
  public var title: String {
    let ids = courses.map(\.label)
    return "Head shape history – " + (ids.count == 1 ? ids[0] : "\(ids.count) patients")
  }

  /// The page.
  public var html: String {
    let intro = """
      <header>
      <h1>\(HTMLPage.escaped(title))</h1>
      <p class="info">\(courses.map(\.visits.count).reduce(0, +)) scans. Each change is the later visit minus the earlier one; it
      <span class="exceeds">exceeds</span> the uncertainty when its size is larger than the two visits' 95 % half-widths added in
      quadrature, U = √(h₁² + h₂²). Intervals are the reports' bootstrap 95 % intervals: they hold the cloud's sampling noise
      and the choice of level, not the registration's own error.</p>
      </header>
      """
    let body = [intro] + courses.map(section) + ["<footer>History page written by headscan \(HeadScanVersion.current).</footer>"]
    return HTMLPage.document(title: title, body: body.joined(separator: "\n"))
  }

  /// One row per visit: patient, visit number, date, report, version, severity, then for each
  /// measure its value, interval and the change since the visit before (empty on a first visit).
  public var csv: String {
    var header = ["patient", "visit", "recordedAt", "report", "headscanVersion", "severity"]
    for m in PatientCourse.Measure.allCases.map(\.rawValue) {
      header += [m, m + "Low", m + "High", m + "Change", m + "ChangeUncertainty95", m + "ChangeExceeds"]
    }
    var lines = [header.joined(separator: ",")]
    for course in courses {
      let changes = PatientCourse.Measure.allCases.map { course.changes(of: $0) }
      for (k, visit) in course.visits.enumerated() {
        var row = [course.patientID ?? "", "\(k + 1)", visit.report.recordedAt ?? "", visit.source, visit.report.headscanVersion ?? "", "\(visit.report.severity)"].map(csvField)
        for (m, measure) in PatientCourse.Measure.allCases.enumerated() {
          let (value, interval) = measure.value(in: visit.report)
          row += [Self.csvNumber(value), interval.map { Self.csvNumber($0.low) } ?? "", interval.map { Self.csvNumber($0.high) } ?? ""]
          if k > 0 {
            let change = changes[m][k - 1]
            row += [Self.csvNumber(change.difference), change.combinedHalfWidth95.map(Self.csvNumber) ?? "", change.exceedsUncertainty.map { "\($0)" } ?? ""]
          } else {
            row += ["", "", ""]
          }
        }
        lines.append(row.joined(separator: ","))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private func section(_ course: PatientCourse) -> String {
    let charts = PatientCourse.Measure.allCases.map { "<figure data-measure=\"\($0.rawValue)\">\(Self.chart($0, course))</figure>" }
    let dates = course.visits.compactMap(\.report.recordedAt)
    let span = dates.isEmpty ? "" : " · \(HTMLPage.escaped(dates.first ?? "")) to \(HTMLPage.escaped(dates.last ?? ""))"
    return """
      <section class="patient" data-patient="\(HTMLPage.escaped(course.patientID ?? ""))">
      <h2>\(HTMLPage.escaped(course.label)) · \(course.visits.count) visit\(course.visits.count == 1 ? "" : "s")\(span)</h2>
      <div class="figures">
      \(charts.joined(separator: "\n"))
      </div>
      \(table(course))
      </section>
      """
  }

  private func table(_ course: PatientCourse) -> String {
    let measures = PatientCourse.Measure.allCases
    let changes = measures.map { course.changes(of: $0) }
    var head = "<tr><th>Visit</th><th>Recorded</th>"
    for m in measures { head += "<th>\(m.shortTitle) [95 %]</th><th>Δ ± U</th>" }
    head += "<th>CHOA</th><th>Report</th></tr>"
    var rows: [String] = []
    for (k, visit) in course.visits.enumerated() {
      var row = "<tr data-visit=\"\(k + 1)\"><td class=\"num\">\(k + 1)</td><td title=\"\(HTMLPage.escaped(visit.report.recordedAt ?? ""))\">\(HTMLPage.escaped(visit.report.recordedAt.map { String($0.prefix(10)) } ?? "date unknown"))</td>"
      for (m, measure) in measures.enumerated() {
        let (value, interval) = measure.value(in: visit.report)
        row += "<td class=\"num\" data-key=\"\(measure.rawValue)\">\(HTMLPage.number(value))\(interval.map { " " + HTMLPage.interval($0.low, $0.high) } ?? "")</td>"
        guard k > 0 else { row += "<td></td>"; continue }
        let change = changes[m][k - 1]
        let sign = change.difference >= 0 ? "+" : "−"
        let size = sign + HTMLPage.number(abs(change.difference), 2)
        switch change.exceedsUncertainty {
        case true?:
          row += "<td class=\"num exceeds\" data-change=\"\(measure.rawValue)\" data-exceeds=\"true\">\(size) ± \(HTMLPage.number(change.combinedHalfWidth95 ?? 0, 2))<br>exceeds</td>"
        case false?:
          row += "<td class=\"num within\" data-change=\"\(measure.rawValue)\" data-exceeds=\"false\">\(size) ± \(HTMLPage.number(change.combinedHalfWidth95 ?? 0, 2))<br>within</td>"
        case nil:
          row += "<td class=\"num within\" data-change=\"\(measure.rawValue)\" data-exceeds=\"unknown\">\(size)<br>no interval</td>"
        }
      }
      row += "<td class=\"num\">\(visit.report.severity)</td><td>\(HTMLPage.escaped(URL(fileURLWithPath: visit.source).lastPathComponent))</td></tr>"
      rows.append(row)
    }
    return "<table class=\"visits\">\n<thead>\(head)</thead>\n<tbody>\n\(rows.joined(separator: "\n"))\n</tbody></table>"
  }

  /// One measure over time: dots with interval bars, joined; CHOA levels behind CVAI, the CI
  /// classes behind CI; a changed label where the change exceeds the uncertainty.
  static func chart(_ measure: PatientCourse.Measure, _ course: PatientCourse) -> String {
    let days = course.daysSinceFirstVisit
    let xs = days ?? course.visits.indices.map { Double($0 + 1) }
    let values = course.visits.map { measure.value(in: $0.report) }
    let lows = values.map { $0.interval?.low ?? $0.value }, highs = values.map { $0.interval?.high ?? $0.value }
    let bands: [(Range<Double>, String)]
    var yRange: ClosedRange<Double>
    switch measure {
    case .cvai:
      bands = ScaleBar.choa.bands.map { ($0.range, $0.colour) }
      yRange = 0...max(12, (highs.max() ?? 0) + 1)
    case .ci:
      bands = ScaleBar.cranialIndex.bands.map { ($0.range, $0.colour) }
      yRange = min(70, (lows.min() ?? 70) - 2)...max(90, (highs.max() ?? 90) + 2)
    case .circumference:
      bands = []
      yRange = SVGChart.padded(lows + highs, margin: 0.25)
    }
    let xRange = (xs.first ?? 0) == (xs.last ?? 0) ? ((xs.first ?? 0) - 1)...((xs.first ?? 0) + 1) : SVGChart.padded(xs, margin: 0.1)
    var chart = SVGChart(
      width: 420, height: 300, title: measure.title + " over time", xLabel: days == nil ? "visit" : "days since the first visit",
      yLabel: measure.title, x: xRange, y: yRange)
    for (range, colour) in bands where range.upperBound > yRange.lowerBound && range.lowerBound < yRange.upperBound {
      chart.band(y: max(range.lowerBound, yRange.lowerBound)...min(range.upperBound, yRange.upperBound), colour: colour)
    }
    let points = zip(xs, values).map { SIMD2($0, $1.value) }
    chart.polyline(points)
    chart.errorBars(zip(xs, zip(lows, highs)).map { (x: $0, low: $1.0, high: $1.1) })
    chart.dots(points, radius: 3.5)
    for change in course.changes(of: measure) where change.exceedsUncertainty == true {
      chart.label("Δ \(HTMLPage.number(change.difference))", at: points[change.visit], colour: "#b03a2e")
    }
    return chart.svg
  }

  static func csvNumber(_ x: Double) -> String { String(format: "%.3f", x) }
}
