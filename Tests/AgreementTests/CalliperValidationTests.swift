import Agreement
import CVAI
import Foundation
import PointCloud
import Reports
import Testing
import _HeadScanSupport
import _TestSupport

struct CalliperValidationTests {
  /// Plausible infant head reports: length 130–160 mm, CI 75–95, CVAI 0–12 %.
  static func reports(count: Int, seed: UInt64) -> [String: MeasureReport] {
    var random = SeededGenerator(seed: seed)
    var reports: [String: MeasureReport] = [:]
    for i in 0..<count {
      let length = 130 + 30 * random.uniform(), ci = 75 + 20 * random.uniform(), cvai = 12 * random.uniform()
      let width = length * ci / 100
      let a = 0.5 * (length + width) * 1.05, b = a * (1 - cvai / 100)
      reports[String(format: "infant-%02d", i)] = MeasureReport(
        cvai: cvai, cva: a - b, diagonalA: a, diagonalB: b, ci: ci, length: length, width: width,
        circumference: 2.6 * (length + width) / 2 * 1.2, measurementLevel: 24, severity: choaSeverity(cvai: cvai),
        registration: .init(frames: 300, framesRegistered: 290, markers: 30, markersRegistered: 24, cornerRMS: 0.2))
    }
    return reports
  }

  @Test func recoversAKnownCalliperBiasWithinItsConfidenceInterval() throws {
    let reports = Self.reports(count: 40, seed: 3)
    let csv = simulatedCalliperCSV(reports: reports, bias: 1.5, noise: 1.0, seed: 11)
    let table = try CalliperTable(text: csv, path: "simulated.csv")
    let v = CalliperValidation(calliper: table, reports: reports)
    #expect(v.matched.count == 40 && v.calliperWithoutReport.isEmpty && v.reportsWithoutCalliper.isEmpty)
    for measure in [HeadMeasure.diagonalA, .diagonalB, .length, .width, .circumference] {
      let s = try #require(v.measures.first { $0.measure == measure }).statistics
      // report − calliper = +1.5 mm on average; noise SD 1.0 (plus the 0.1 mm rounding).
      #expect(abs(s.bias - 1.5) < 3 * s.sd / 40.0.squareRoot(), "\(measure): bias \(s.bias) CI \(s.biasCI)")
      #expect(abs(s.sd - 1.0) < 0.3, "\(measure): SD \(s.sd)")
      #expect(s.lowerLoA < 1.5 && s.upperLoA > 1.5)
    }
    // CVAI, CVA and CI are derived from the calliper's diagonals, length and width.
    #expect(v.measures.map(\.measure) == HeadMeasure.allCases)
    #expect(v.severity.table.joined().reduce(0, +) == 40)
  }

  @Test func theBiasConfidenceIntervalCoversTheTrueBiasNineteenTimesInTwenty() throws {
    // 400 calliper tables of 20 scans with a known bias: a 95 % interval should hold it
    // about 380 times (binomial SD ≈ 4.4).
    let reports = Self.reports(count: 20, seed: 8)
    var covered = 0, limitsCovered = 0
    for seed in 1...400 {
      let csv = simulatedCalliperCSV(reports: reports, bias: 2.0, noise: 1.5, seed: UInt64(seed))
      let v = CalliperValidation(calliper: try CalliperTable(text: csv, path: "s.csv"), reports: reports)
      let s = try #require(v.measures.first { $0.measure == .length }).statistics
      if s.biasCI.contains(2.0) { covered += 1 }
      // The true limits are 2.0 ± 1.96·√(1.5² + 0.1²/12): their CIs should hold them most of the time.
      let sd = (1.5 * 1.5 + 0.01 / 12).squareRoot()
      if s.lowerLoACI.contains(2.0 - 1.96 * sd) && s.upperLoACI.contains(2.0 + 1.96 * sd) { limitsCovered += 1 }
    }
    #expect((366...394).contains(covered), "bias CI covered the truth \(covered) times in 400")
    #expect(limitsCovered >= 340, "LoA CIs covered the true limits \(limitsCovered) times in 400")
  }

  @Test func unmatchedScansAreListedNotDropped() throws {
    var reports = Self.reports(count: 4, seed: 5)
    let csv = """
      scan,diagonalA,diagonalB
      infant-00,140.1,133.0
      infant-01,138.0,131.2
      infant-02,141.5,139.9
      not-scanned,135.0,130.0

      """
    reports["extra-report"] = reports["infant-03"]
    let v = CalliperValidation(calliper: try CalliperTable(text: csv, path: "c.csv"), reports: reports)
    #expect(v.matched == ["infant-00", "infant-01", "infant-02"])
    #expect(v.calliperWithoutReport == ["not-scanned"])
    #expect(v.reportsWithoutCalliper == ["extra-report", "infant-03"])
    // Length, width, circumference and CI are absent from the calliper: not compared.
    #expect(Set(v.measures.map(\.measure)) == [.cvai, .cva, .diagonalA, .diagonalB])
    #expect(v.measuresOnOneScan.isEmpty)
  }

  /// A measure that one scan alone has on both sides cannot be compared (statistics need two),
  /// and is named instead of left out.
  @Test func aMeasureOnOneScanIsNamedNotDropped() throws {
    let reports = Self.reports(count: 3, seed: 5)
    let csv = "scan,diagonalA,diagonalB,circumference\ninfant-00,140.1,133.0,420\ninfant-01,138.0,131.2,\ninfant-02,141.5,139.9,\n"
    let v = CalliperValidation(calliper: try CalliperTable(text: csv, path: "c.csv"), reports: reports)
    #expect(v.measuresOnOneScan == [.circumference])
    #expect(!v.measures.contains { $0.measure == .circumference } && v.measures.contains { $0.measure == .diagonalA })
  }

  @Test func csvQuotesCRLFAndOptionalColumns() throws {
    let csv = "scan,diagonalA,diagonalB,length\r\n\"baby, twin \"\"A\"\"\",140.5,133.25,\r\nb2, 138 ,131,150.5\r\n"
    let t = try CalliperTable(text: csv, path: "q.csv")
    #expect(t.rows.map(\.scan) == ["baby, twin \"A\"", "b2"])
    #expect(t.rows[0].diagonalB == 133.25 && t.rows[0].length == nil)
    #expect(t.rows[1].diagonalA == 138 && t.rows[1].length == 150.5 && t.rows[1].line == 3)
  }

  @Test(arguments: [
    ("", "q.csv: empty file (a header row is needed)"),
    ("scan,diagonalA\nx,140\n", "q.csv:1: missing column 'diagonalB' (needs scan,diagonalA,diagonalB)"),
    ("scan,diagonalA,diagonalB\n", "q.csv: no data rows after the header"),
    ("scan,diagonalA,diagonalB\nx,140,abc\n", "q.csv:2: 'diagonalB' is not a positive number: 'abc'"),
    ("scan,diagonalA,diagonalB\nx,140,130\ny,141\n", "q.csv:3: 2 fields, the header has 3"),
    ("scan,diagonalA,diagonalB\nx,140,130\nx,141,131\n", "q.csv:3: scan 'x' appears twice (first on line 2)"),
    ("scan,diagonalA,diagonalB\n\"x,140,130\n", "q.csv:2: a quoted field is not closed"),
    ("scan,diagonalA,diagonalB\nx,140,nan\n", "q.csv:2: 'diagonalB' is not a positive number: 'nan'"),
    ("scan,diagonalA,diagonalA,diagonalB\n", "q.csv:1: column 'diagonalA' appears twice"),
  ])
  func badCalliperFilesNameTheLineAndTheProblem(text: String, message: String) {
    #expect {
      try CalliperTable(text: text, path: "q.csv")
    } throws: { error in
      String(describing: error) == message
    }
  }
}
