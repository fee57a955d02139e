import ArgumentParser
import Foundation
import Figures
import Reports
import _HeadScanSupport

/// `headscan history REPORTS... --html HISTORY.html [--csv OUT.csv]`: patients' courses over their scans.
struct HistoryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "Follow patients over their scans: CVAI, CI and circumference over time, and which changes exceed the uncertainty.",
    discussion: """
      Reads reports (as measure --json writes them, from any headscan version: the keys that docs/command-line.md lists as always there suffice), groups them by patientID and orders them by recordedAt (both copied from the scan header; a report without a patientID stands alone, one without recordedAt comes last). A folder stands for its *.json reports. A change between visits exceeds the uncertainty when its size is larger than the two 95 % half-widths added in quadrature, √(h₁² + h₂²); reports without intervals leave it open.

      Examples:
        headscan history reports --html history.html
        headscan history visit1.json visit2.json visit3.json --html history.html --csv history.csv
      """)

  @Argument(help: "Report files (as measure --json writes them) or folders of them.")
  var reports: [String] = []

  @Option(help: "Write the history page here: one self-contained HTML file, one section per patient.")
  var html: String?

  @Option(help: "Write one row per visit here: values, intervals, changes and whether each exceeds the combined uncertainty.")
  var csv: String?

  @OptionGroup var global: GlobalOptions

  func validate() throws {
    if reports.isEmpty { throw ValidationError("give at least one report file or folder of reports") }
  }

  func run() throws {
    try reportingErrors {
      let files = try Self.reportFiles(reports)
      try checkOutputs([("--html", html), ("--csv", csv)], isNot: files)
      let page = try HistoryPage(reportFiles: files)
      if let html { try AtomicFile.write(Data(page.html.utf8), to: html) }
      if let csv { try AtomicFile.write(Data(page.csv.utf8), to: csv) }
      print(Self.summary(page))
    }
  }

  /// Files as given; a folder gives its `*.json` files (hidden ones aside), sorted by name.
  static func reportFiles(_ paths: [String]) throws -> [String] {
    try paths.flatMap { path -> [String] in
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw CommandError("\(path): no such file or folder") }
      guard isFolder.boolValue else { return [path] }
      let names: [String]
      do throws(FolderListingError) {
        names = try listFolder(path)
      } catch {
        throw CommandError("\(path): cannot list the folder: \(error.reason)")
      }
      let reports = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
      guard !reports.isEmpty else { throw CommandError("\(path): no *.json reports in the folder") }
      return reports
    }
  }

  /// One line per patient: CVAI at each visit, `*` after a change that exceeds the uncertainty.
  static func summary(_ page: HistoryPage) -> String {
    page.courses.map { course in
      let changes = course.changes(of: .cvai)
      let values = course.visits.enumerated().map { k, visit in
        let value = String(format: "%.1f", PatientCourse.Measure.cvai.value(in: visit.report).value)
        guard k > 0 else { return value }
        return value + (changes[k - 1].exceedsUncertainty == true ? "*" : "")
      }
      return "\(course.label): \(course.visits.count) visit\(course.visits.count == 1 ? "" : "s"), CVAI \(values.joined(separator: " → ")) %"
    }.joined(separator: "\n") + "\n(* change exceeds the combined 95 % uncertainty)"
  }
}
