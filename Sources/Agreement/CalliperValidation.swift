import CVAI
import Foundation
import Reports
import _HeadScanSupport

extension HeadMeasure {
  /// The 3D value from a report: CVAI by the longer diagonal, as a calliper gives it.
  func value(_ r: MeasureReport) -> Double { self == .cvai ? r.cvaiByLonger : r.value(of: self) }

  /// The calliper value, derived as the report's measure is defined, where the table has the inputs.
  func value(_ c: CalliperTable.Row) -> Double? {
    let longer = max(c.diagonalA, c.diagonalB), shorter = min(c.diagonalA, c.diagonalB)
    switch self {
    case .cvai: return (longer - shorter) / longer * 100
    case .cva: return longer - shorter
    case .diagonalA: return c.diagonalA
    case .diagonalB: return c.diagonalB
    case .length: return c.length
    case .width: return c.width
    case .ci: return c.length.flatMap { l in c.width.map { $0 / l * 100 } }
    case .circumference: return c.circumference
    }
  }
}

/// Agreement of one measure: the statistics and the pairs behind them.
public struct MeasureAgreement: Sendable, Hashable, Codable {
  public struct Pair: Sendable, Hashable, Codable {
    public var scan: String
    public var report: Double
    public var calliper: Double
  }

  public var measure: HeadMeasure
  public var statistics: PairedAgreement
  public var pairs: [Pair]
}

/// `headscan validate`: 3D reports against calliper measurements (docs/validation.md; differences
/// are report minus calliper).
public struct CalliperValidation: Sendable, Hashable, Codable {
  /// Scans present on both sides, sorted.
  public var matched: [String]
  /// Calliper rows whose scan has no report.
  public var calliperWithoutReport: [String]
  /// Reports (file names without `.json`) without a calliper row.
  public var reportsWithoutCalliper: [String]
  /// One entry per measure present on both sides for at least two scans.
  public var measures: [MeasureAgreement]
  /// Measures present on both sides for one scan only: too few for agreement statistics, so
  /// named here instead of left out without a word.
  public var measuresOnOneScan: [HeadMeasure]
  /// CHOA severity, report against the level of the calliper CVAI.
  public var severity: RatingAgreement

  /// Compares `reports` (by scan name) with `calliper`.
  public init(calliper: CalliperTable, reports: [String: MeasureReport]) {
    let rows = Dictionary(uniqueKeysWithValues: calliper.rows.map { ($0.scan, $0) })
    let matched = rows.keys.filter { reports[$0] != nil }.sorted()
    self.matched = matched
    calliperWithoutReport = calliper.rows.map(\.scan).filter { reports[$0] == nil }
    reportsWithoutCalliper = reports.keys.filter { rows[$0] == nil }.sorted()
    var onOneScan: [HeadMeasure] = []
    measures = HeadMeasure.allCases.compactMap { measure in
      let pairs = matched.compactMap { scan -> MeasureAgreement.Pair? in
        guard let c = measure.value(rows[scan]!) else { return nil }
        return .init(scan: scan, report: measure.value(reports[scan]!), calliper: c)
      }
      if pairs.count == 1 { onOneScan.append(measure) }
      guard let statistics = PairedAgreement(first: pairs.map(\.report), second: pairs.map(\.calliper)) else { return nil }
      return MeasureAgreement(measure: measure, statistics: statistics, pairs: pairs)
    }
    measuresOnOneScan = onOneScan
    severity = RatingAgreement(
      first: matched.map { reports[$0]!.severity },
      second: matched.map { choaSeverity(cvai: HeadMeasure.cvai.value(rows[$0]!)!) })
  }

  /// Reads every `*.json` report in `folder` (name without `.json` → report).
  /// - Throws: `FileProblem` for an unreadable folder or report.
  public static func reports(in folder: String) throws(FileProblem) -> [String: MeasureReport] {
    let names: [String]
    do throws(FolderListingError) {
      names = try listFolder(folder)
    } catch {
      throw FileProblem(path: folder, problem: "cannot list the reports folder: \(error.reason)")
    }
    var reports: [String: MeasureReport] = [:]
    for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
      reports[String(name.dropLast(5))] = try MeasureReport(path: folder + "/" + name)
    }
    return reports
  }
}

/// A calliper-like table from 3D reports: each measure minus `bias` plus Gaussian noise of
/// SD `noise` (mm), rounded to 0.1 mm as a calliper reads. For checking `validate` on data
/// whose answer is known.
public func simulatedCalliperCSV(reports: [String: MeasureReport], bias: Double, noise: Double, seed: UInt64) -> String {
  var random = SeededGenerator(seed: seed)
  var lines = ["scan,diagonalA,diagonalB,length,width,circumference"]
  for scan in reports.keys.sorted() {
    let r = reports[scan]!
    let values = [r.diagonalA, r.diagonalB, r.length, r.width, r.circumference].map { value -> String in
      String(format: "%.1f", value - bias + noise * random.gaussian())
    }
    lines.append(([csvField(scan)] + values).joined(separator: ","))
  }
  return lines.joined(separator: "\n") + "\n"
}
