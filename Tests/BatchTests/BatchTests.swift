import Foundation
import Reports
import ScanSimulator
import Synchronization
import Testing
import _TestSupport

@testable import Batch

/// The Batch library on folders made here: which entries are scans, the `measure` arguments
/// each scan gets, when a report is up to date, the summary CSV, and a local run of the built
/// `headscan` binary.
struct BatchTests {
  /// Creates `names` in `folder`: `NAME/` a folder (a TUM folder when it holds `rgb.txt`), else a
  /// file with a few bytes.
  static func make(_ names: [String], in folder: URL) throws {
    for name in names {
      let url = folder.appendingPathComponent(name)
      if name.hasSuffix("/") {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      } else {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: url)
      }
    }
  }

  static func setModified(_ path: String, _ date: Date) throws {
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
  }

  /// A report with only the keys every report has (docs/formats.md, reports).
  static let minimalReport = """
    {"cvai": 6.1, "cva": 8.4, "diagonalA": 138.2, "diagonalB": 129.8,
     "ci": 84.0, "length": 142.0, "width": 119.3, "circumference": 426.5,
     "measurementLevel": 21.0, "severity": 2,
     "registration": {"frames": 900, "framesRegistered": 861, "markers": 40, "markersRegistered": 38, "cornerRMS": 0.6}}
    """
  /// ``minimalReport`` with a verdict (two reasons, one with a comma).
  static let unusableReport = String(minimalReport.dropLast()) + """
    , "verdict": {"usable": false, "checks": {"contourMeasuredPercent": 60},
      "reasons": ["contour at the measurement level 60 % measured (under 90 %)", "12 frames registered, 3 % (under 60)"]}}
    """
  /// ``minimalReport``'s verdict columns (it has no `verdict` key: one made from its values):
  /// 861 of 900 frames and 38 of 40 markers registered, corner RMS 0.6 mm.
  static let minimalReportVerdict = "true,"
  /// ``minimalReport``'s summary values.
  static let minimalReportValues = "6.1,8.4,138.2,129.8,142,119.3,84,426.5,21,2,861,900,0.6"

  @Test func aFolderListsItsScansSortedWithoutHiddenEntriesOrOtherFiles() throws {
    try TestFiles.withTemporaryFolder { folder in
      try Self.make(
        [
          "b.rgbdscan", "a.rgbdscan", "a.landmarks.json", "a.truth.json", "notes.txt", ".hidden.rgbdscan", "c.r3d", "tum/rgb.txt",
          ".hidden-tum/rgb.txt", "empty/", "plain/depth.txt",
        ], in: folder)
      let items = try Batch.scans(in: folder.path)
      #expect(items.map(\.name) == ["a", "b", "c", "tum"])
      #expect(items.map(\.path) == ["a.rgbdscan", "b.rgbdscan", "c.r3d", "tum"].map { folder.path + "/" + $0 })
      #expect(items.map(\.landmarks) == ["a", "b", "c", "tum"].map { folder.path + "/" + $0 + ".landmarks.json" })
    }
  }

  @Test func aBatchOfAFolderCreatesItsOutputAndKeepsOnlyTheScansAskedFor() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.appendingPathComponent("scans"), out = folder.appendingPathComponent("out/reports")
      try Self.make(["s1.rgbdscan", "s2.rgbdscan", "s3.rgbdscan"], in: scans)
      let batch = try Batch(scans: scans.path, out: out.path, only: ["s3", "s1"])
      #expect(batch.items.map(\.name) == ["s1", "s3"])
      #expect(batch.scansFolder == scans.path && batch.out == out.path && batch.options == .default)
      #expect(FileManager.default.fileExists(atPath: out.path))
      #expect(batch.reportPath(of: batch.items[1]) == out.path + "/s3.json")
      #expect(try Batch(scans: scans.path, out: out.path).items.map(\.name) == ["s1", "s2", "s3"])

      #expect(throws: FileProblem(path: scans.path, problem: "no scan named 's4'")) {
        try Batch(scans: scans.path, out: out.path, only: ["s1", "s4"])
      }
      let none = folder.appendingPathComponent("none")
      try Self.make(["notes.txt", ".hidden.rgbdscan"], in: none)
      #expect(throws: FileProblem(path: none.path, problem: "no scans (.rgbdscan v1, TUM folder, Record3D .r3d)")) {
        try Batch(scans: none.path, out: out.path)
      }
      #expect {
        try Batch(scans: folder.appendingPathComponent("missing").path, out: out.path)
      } throws: { error in
        (error as? FileProblem).map { $0.problem.hasPrefix("cannot list the folder: ") } ?? false
      }
      // A file where the output folder should be.
      try Self.make(["taken"], in: folder)
      #expect {
        try Batch(scans: scans.path, out: folder.appendingPathComponent("taken").path)
      } throws: { error in
        (error as? FileProblem).map { $0.problem.hasPrefix("cannot create the folder: ") } ?? false
      }
    }
  }

  @Test func eachHeadFrameGivesMeasureItsOwnArguments() {
    let item = BatchItem(name: "s1", path: "scans/s1.rgbdscan", landmarks: "scans/s1.landmarks.json")
    #expect(BatchHeadFrame.landmarks.measureArguments(for: item) == ["--frame", "landmarks", "--landmarks", "scans/s1.landmarks.json"])
    #expect(BatchHeadFrame.automaticLandmarks.measureArguments(for: item) == ["--frame", "landmarks", "--landmarks", "auto"])
    #expect(BatchHeadFrame.automaticFrame.measureArguments(for: item) == ["--frame", "auto"])
    #expect(BatchHeadFrame.allCases.filter(\.readsLandmarksFile) == [.landmarks])

    var options = BatchOptions.default
    var batch = Batch(scansFolder: "scans", out: "out", items: [item], options: options)
    #expect(
      batch.measureArguments(for: item) == [
        "measure", "scans/s1.rgbdscan", "--json", "out/s1.json", "--frame", "landmarks", "--landmarks", "scans/s1.landmarks.json", "--quiet",
      ])
    options.headFrame = .automaticFrame
    options.plots = true
    options.html = true
    options.measureArguments = ["--focal-length", "estimate", "--cap", "cap file.json"]
    batch.options = options
    #expect(
      batch.measureArguments(for: item) == [
        "measure", "scans/s1.rgbdscan", "--json", "out/s1.json", "--frame", "auto", "--quiet", "--plots", "out/s1-plots", "--html",
        "out/s1.html", "--focal-length", "estimate", "--cap", "cap file.json",
      ])
    options.workersPerScan = 3
    batch.options = options
    #expect(
      batch.measureArguments(for: item) == [
        "measure", "scans/s1.rgbdscan", "--json", "out/s1.json", "--frame", "auto", "--quiet", "--plots", "out/s1-plots", "--html",
        "out/s1.html", "--jobs", "3", "--focal-length", "estimate", "--cap", "cap file.json",
      ])
  }

  /// The cores are shared out among the scans measured at once, one worker at least.
  @Test func eachScanGetsItsShareOfTheCores() {
    #expect(Batch.workersPerScan(cores: 16, scansAtOnce: 4) == 4)
    #expect(Batch.workersPerScan(cores: 16, scansAtOnce: 3) == 5)
    #expect(Batch.workersPerScan(cores: 2, scansAtOnce: 4) == 1)
    #expect(Batch.workersPerScan(cores: 8, scansAtOnce: 1) == 8)
    #expect(Batch.workersPerScan(cores: 0, scansAtOnce: 0) == 1)
  }

  @Test func aReportIsUpToDateOnlyWhenNewerThanTheScanAndWhatItWasMeasuredFrom() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.appendingPathComponent("scans"), out = folder.appendingPathComponent("out")
      try Self.make(["s1.rgbdscan", "s1.landmarks.json"], in: scans)
      var batch = try Batch(scans: scans.path, out: out.path)
      let item = try #require(batch.items.first)
      let report = batch.reportPath(of: item)
      let now = Date(), before = now.addingTimeInterval(-100), after = now.addingTimeInterval(100)
      try Self.setModified(item.path, before)
      try Self.setModified(item.landmarks, before)
      #expect(!batch.isUpToDate(item), "no report yet")
      try Self.make(["s1.json"], in: out)
      try Self.setModified(report, now)
      #expect(!batch.isUpToDate(item), "a newer file that does not read as a report")
      try Data(Self.minimalReport.utf8).write(to: URL(fileURLWithPath: report))
      try Self.setModified(report, now)
      #expect(batch.isUpToDate(item))
      // As old as the scan: not newer, so measured again.
      try Self.setModified(report, before)
      #expect(!batch.isUpToDate(item))
      try Self.setModified(report, now)
      try Self.setModified(item.path, after)
      #expect(!batch.isUpToDate(item), "the scan changed after its report")
      try Self.setModified(item.path, before)

      // The landmarks count only where the head frame reads them.
      try Self.setModified(item.landmarks, after)
      #expect(!batch.isUpToDate(item))
      batch.options.headFrame = .automaticLandmarks
      #expect(batch.isUpToDate(item))
      batch.options.headFrame = .automaticFrame
      #expect(batch.isUpToDate(item))
      batch.options.headFrame = .landmarks
      try Self.setModified(item.landmarks, before)
      // A missing landmarks file never counts as older than the report.
      try FileManager.default.removeItem(atPath: item.landmarks)
      #expect(!batch.isUpToDate(item))
      try Self.make(["s1.landmarks.json"], in: scans)
      try Self.setModified(item.landmarks, before)
      #expect(batch.isUpToDate(item))

      // The scan's cap sidecar, or the cap given for every scan, counts too.
      try Self.make(["s1.cap.json", "common-cap.json"], in: scans)
      try Self.setModified(scans.path + "/s1.cap.json", after)
      try Self.setModified(scans.path + "/common-cap.json", before)
      #expect(!batch.isUpToDate(item))
      batch.options.capFile = scans.path + "/common-cap.json"
      #expect(batch.isUpToDate(item), "the given cap replaces the sidecar")
      try Self.setModified(scans.path + "/common-cap.json", after)
      #expect(!batch.isUpToDate(item))
    }
  }

  @Test func theSummaryHasARowAScanWithOddNamesAndErrorsQuoted() throws {
    try TestFiles.withTemporaryFolder { folder in
      let names = ["plain", "with, comma", "with \"quotes\"", "failed one", "no report", "unusable"]
      let items = names.map { BatchItem(name: $0, path: folder.path + "/" + $0 + ".rgbdscan", landmarks: "") }
      let batch = Batch(scansFolder: folder.path, out: folder.path, items: items)
      for name in ["plain", "with, comma", "with \"quotes\"", "failed one"] {
        try Data(Self.minimalReport.utf8).write(to: URL(fileURLWithPath: batch.reportPath(of: BatchItem(name: name, path: "", landmarks: ""))))
      }
      try Data(Self.unusableReport.utf8).write(to: URL(fileURLWithPath: batch.reportPath(of: BatchItem(name: "unusable", path: "", landmarks: ""))))
      try batch.writeSummary([
        .measured(seconds: 2.5), .upToDate, .measured(seconds: 1), .failed("scan.rgbdscan: cut off, \"here\""), .measured(seconds: 1),
        .measured(seconds: 1),
      ])
      let summary = try String(contentsOfFile: folder.path + "/summary.csv", encoding: .utf8)
      let empty = String(repeating: ",", count: MeasureReport.summaryColumns.count - 1)
      let expected = [
        "scan,status,\(MeasureReport.summaryColumns.joined(separator: ",")),error,usable,reasons",
        "plain,measured,\(Self.minimalReportValues),,\(Self.minimalReportVerdict)",
        "\"with, comma\",up to date,\(Self.minimalReportValues),,\(Self.minimalReportVerdict)",
        "\"with \"\"quotes\"\"\",measured,\(Self.minimalReportValues),,\(Self.minimalReportVerdict)",
        "failed one,failed,\(empty),\"scan.rgbdscan: cut off, \"\"here\"\"\",,",
        "no report,measured,\(empty),,,",
        "unusable,measured,\(Self.minimalReportValues),,false,\"contour at the measurement level 60 % measured (under 90 %); 12 frames registered, 3 % (under 60)\"",
      ]
      #expect(summary == expected.joined(separator: "\n") + "\n")
      // No temporary file is left beside it.
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.isEmpty)
    }
  }

  @Test func aHistoryNeedsAtLeastOneReport() throws {
    try TestFiles.withTemporaryFolder { folder in
      let batch = Batch(
        scansFolder: folder.path, out: folder.path, items: [BatchItem(name: "s1", path: folder.path + "/s1.rgbdscan", landmarks: "")])
      let page = folder.path + "/history.html"
      #expect(throws: FileProblem(path: page, problem: "no reports to follow over time")) { try batch.writeHistory(to: page) }
      #expect(!FileManager.default.fileExists(atPath: page))
    }
  }

  /// The built `headscan` on three scans: one that measures, one cut off, one without
  /// landmarks; again (up to date), and forced.
  @Test func aLocalRunMeasuresEachScanOnceAndSaysWhyOthersFailed() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.appendingPathComponent("scans"), out = folder.appendingPathComponent("out")
      try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
      var o = SimulationOptions()
      o.frames = 20
      o.width = 320
      o.height = 240
      o.seed = 5
      o.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
      let simulated = try simulateScan(o, to: scans.path + "/good.rgbdscan", format: .stream)
      try Data("RGBDSCAN\u{1}\u{0}".utf8).write(to: scans.appendingPathComponent("cut.rgbdscan"))
      try FileManager.default.copyItem(atPath: simulated.landmarksPath, toPath: scans.path + "/cut.landmarks.json")
      try FileManager.default.copyItem(atPath: scans.path + "/good.rgbdscan", toPath: scans.path + "/unmarked.rgbdscan")
      let batch = try Batch(scans: scans.path, out: out.path)
      #expect(batch.items.map(\.name) == ["cut", "good", "unmarked"])

      let ended = Mutex<[(String, Int, Int)]>([])
      let outcomes = batch.run(executable: Headscan.executable.path, workers: 2) { item, _, done, total, elapsed in
        #expect(elapsed >= 0)
        ended.withLock { $0.append((item.name, done, total)) }
      }
      #expect(outcomes.count == 3)
      guard case .failed(let cut) = outcomes[0] else {
        Issue.record("cut: \(outcomes[0])")
        return
      }
      #expect(cut.hasPrefix(scans.path + "/cut.rgbdscan: ") && !cut.contains("headscan: error:"), "\(cut)")
      guard case .measured(let seconds) = outcomes[1] else {
        Issue.record("good: \(outcomes[1])")
        return
      }
      #expect(seconds > 0)
      #expect(outcomes[2] == .failed("no landmarks (\(scans.path)/unmarked.landmarks.json); pass --frame auto to measure without"))
      // `finished` once a scan, counting up to the total.
      let calls = ended.withLock { $0 }
      #expect(calls.map(\.0).sorted() == ["cut", "good", "unmarked"])
      #expect(calls.map(\.1).sorted() == [1, 2, 3] && calls.allSatisfy { $0.2 == 3 })
      // Only the good scan has a report, and it measures the simulated head.
      #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["good.json"])
      let report = try MeasureReport(path: out.path + "/good.json")
      #expect(abs(report.cvai - simulated.truth.measures.cvai) < 1, "CVAI \(report.cvai), truth \(simulated.truth.measures.cvai)")
      #expect(report.scan == scans.path + "/good.rgbdscan")

      // Again: the measured scan is up to date and left alone; the others fail again.
      let again = batch.run(executable: Headscan.executable.path, workers: 2) { _, _, _, _, _ in }
      #expect(again[1] == .upToDate && again[2] == outcomes[2])
      #expect(again[0] == outcomes[0])
      var forced = batch
      forced.options.force = true
      guard case .measured = forced.measure(forced.items[1], executable: Headscan.executable.path) else {
        Issue.record("a forced scan was not measured again")
        return
      }
      guard case .failed(let why) = forced.measure(forced.items[1], executable: folder.path + "/no-headscan") else {
        Issue.record("a missing executable measured")
        return
      }
      #expect(why.hasPrefix("cannot start \(folder.path)/no-headscan: "), "\(why)")
    }
  }
}
