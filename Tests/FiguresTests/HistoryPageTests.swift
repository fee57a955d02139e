import CVAI
import Foundation
import Reports
import Testing
import _TestSupport

@testable import Figures

/// A simulated patient seen three times: the course, its changes and the page.
struct HistoryPageTests {
  /// Turns of 12°, 11.7° and 4°: true CVAI 6.70, 6.55, 2.36 %: a change well inside the
  /// intervals, then one far outside. Given out of order, with an unrelated report.
  static func visits() throws -> [(source: String, report: MeasureReport)] {
    let visits = try SimulatedVisits.patient17.get().map(\.report)
    let (first, second, third) = (visits[0], visits[1], visits[2])
    var other = first
    (other.patientID, other.recordedAt) = ("9", "2026-05-01")
    return [("c.json", third), ("other.json", other), ("a.json", first), ("b.json", second)]
  }

  static let turns = [12.0, 11.7, 4.0]

  @Test func changesAreFlaggedExactlyWhereTheTrueCVAIMovedMoreThanTheIntervals() throws {
    let courses = try PatientCourse.courses(of: try Self.visits())
    #expect(courses.map(\.patientID) == ["9", "17"])
    let course = try #require(courses.first { $0.patientID == "17" })
    #expect(course.visits.map(\.source) == ["a.json", "b.json", "c.json"])
    let days = try #require(course.daysSinceFirstVisit)
    #expect(abs(days[1] - (44 + 2.5 / 24)) < 1e-9 && abs(days[2] - 121.02083333333333) < 1e-6, "\(days)")
    let changes = course.changes(of: .cvai)
    var flagged: [Bool] = []
    for change in changes {
      let k = change.visit
      let truth = SimulatedVisits.trueCVAI(turn: Self.turns[k]) - SimulatedVisits.trueCVAI(turn: Self.turns[k - 1])
      let combined = try #require(change.combinedHalfWidth95)
      // The measured change follows the true one to within the combined uncertainty.
      #expect(abs(change.difference - truth) < combined, "visit \(k + 1): measured \(change.difference), true \(truth), ± \(combined)")
      // The premise: each true change is clearly on one side of the uncertainty.
      #expect(abs(truth) < combined / 2 || abs(truth) > 2 * combined, "visit \(k + 1): true \(truth) against \(combined)")
      #expect(change.exceedsUncertainty == (abs(truth) > combined), "visit \(k + 1): measured \(change.difference), true \(truth), ± \(combined)")
      flagged.append(try #require(change.exceedsUncertainty as Bool?))
    }
    #expect(flagged == [false, true])
    // The visits' measured CVAI are near the truth and their severity follows.
    for (visit, turn) in zip(course.visits, Self.turns) {
      #expect(
        abs(visit.report.cvai - SimulatedVisits.trueCVAI(turn: turn)) < 0.5,
        "CVAI \(visit.report.cvai) in \(visit.report.intervals95?.cvai as Any), true \(SimulatedVisits.trueCVAI(turn: turn))")
    }
    #expect(course.visits.map(\.report.severity) == [3, 3, 1])
  }

  @Test func theCSVHasOneRowPerVisitWithTheFlags() throws {
    let page = HistoryPage(courses: try PatientCourse.courses(of: try Self.visits()))
    let rows = page.csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = try #require(rows.first)
    #expect(rows.count == 5 && rows.allSatisfy { $0.count == header.count })
    let exceeds = try #require(header.firstIndex(of: "cvaiChangeExceeds")), patient = try #require(header.firstIndex(of: "patient"))
    #expect(rows.filter { $0[patient] == "17" }.map { $0[exceeds] } == ["", "false", "true"])
  }

  @Test func reportsWithoutPatientOrDateStillMakeAHistory() throws {
    // A report as an older headscan wrote it: the required keys only.
    let old = try MeasureReport(
      json: Data(#"{"cvai": 6.1, "cva": 8.4, "diagonalA": 138.2, "diagonalB": 129.8, "ci": 84.0, "length": 142.0, "width": 119.3, "circumference": 426.5, "measurementLevel": 21.0, "severity": 2, "registration": {"frames": 900, "framesRegistered": 861, "markers": 40, "markersRegistered": 38, "cornerRMS": 0.6}}"#.utf8),
      path: "old.json")
    #expect(old.patientID == nil && old.recordedAt == nil)
    let page = HistoryPage(courses: try PatientCourse.courses(of: [("old.json", old), ("older.json", old)]))
    #expect(page.courses.count == 2 && page.courses.allSatisfy { $0.visits.count == 1 && $0.daysSinceFirstVisit == nil })
    #expect(page.html.contains("no patient id: old.json"))
    var dated = old
    dated.recordedAt = "last Tuesday"
    #expect(throws: FileProblem(path: "bad.json", problem: "report key 'recordedAt' is not an ISO 8601 date: 'last Tuesday'")) {
      try PatientCourse.courses(of: [("bad.json", dated)])
    }
  }

  @Test func theReportKeysRoundTrip() throws {
    let report = try Self.visits()[0].report
    let decoded = try MeasureReport(json: try report.jsonData(), path: "r.json")
    #expect(decoded.patientID == "17" && decoded.recordedAt == "2026-07-01T10:00:00Z" && decoded == report)
  }

  @Test(.enabled(if: HeadlessBrowser.isAvailable, "needs /usr/bin/chromium (scripts/setup.sh installs it)"))
  func chromiumRendersTheHistory() throws {
    let page = HistoryPage(courses: try PatientCourse.courses(of: try Self.visits()))
    try TestFiles.withTemporaryFolder { folder in
      let file = folder.appendingPathComponent("history.html")
      try Data(page.html.utf8).write(to: file)
      let rendering = try HeadlessBrowser.render(page: file, png: folder.appendingPathComponent("history.png"), height: 1400)
      #expect(rendering.dom.contains("<title>Head shape history – 2 patients</title>"))
      // The flag sits on visit 3's CVAI change only.
      #expect(rendering.dom.components(separatedBy: "data-change=\"cvai\" data-exceeds=\"true\"").count == 2)
      let visit3 = try #require(rendering.dom.range(of: "<tr data-visit=\"3\">"))
      #expect(rendering.dom[visit3.upperBound...].prefix(600).contains("data-change=\"cvai\" data-exceeds=\"true\""))
      #expect(rendering.luminanceVariance > 500, "variance \(rendering.luminanceVariance)")
      #expect(rendering.inkedFraction > 0.05, "inked \(rendering.inkedFraction)")
      // Printed on A4, each patient on a page of their own.
      let printed = try HeadlessBrowser.printToPDF(page: file, pdf: folder.appendingPathComponent("history.pdf"))
      let size = try #require(printed.size)
      #expect(abs(size.x - 595.3) < 1 && abs(size.y - 841.9) < 1 && printed.pages == page.courses.count, "\(printed)")
    }
  }
}
