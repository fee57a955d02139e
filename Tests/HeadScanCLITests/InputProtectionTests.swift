import Foundation
import Testing
import _TestSupport

/// Files a command reads besides its scan (the cap file, the pseudonym key, the scans of a batch)
/// are inputs too: no output may replace them, and outputs that would clash are refused in one
/// line before any work, leaving every file as it was.
struct InputProtectionTests {
  static func expectRefused(_ run: CommandRun, naming path: String, saying problem: String, _ context: String) {
    #expect(run.status == 1, "\(context): exit \(run.status): \(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "\(context): one line: \(run.stderr)")
    #expect(run.stderr.hasPrefix("headscan: error: \(path):") && run.stderr.contains(problem), "\(context): \(run.stderr)")
  }

  static func copy(_ fixture: String, to name: String, in folder: URL) throws -> String {
    let target = folder.appendingPathComponent(name)
    try FileManager.default.copyItem(at: TestFiles.fixture(fixture), to: target)
    return target.path
  }

  static func contents(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

  /// `--key-file` and `--cap` name inputs: an output naming the same file is refused.
  @Test func theKeyAndTheCapAreNotOverwritten() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try Self.copy("scans/tiny.rgbdscan", to: "s.rgbdscan", in: folder)
      _ = try Self.copy("scans/tiny.landmarks.json", to: "s.landmarks.json", in: folder)
      let key = try Self.copy("example.key", to: "site.key", in: folder)
      let cap = folder.appendingPathComponent("cap.json").path
      try Data(#"{"dictionary": "DICT_4X4_50", "markerCount": 30, "sideLength": 0.016}"#.utf8).write(to: URL(fileURLWithPath: cap))
      let cases: [([String], String)] = [
        (["measure", scan, "--json", key, "--deidentify", "--key-file", key], key),
        (["reconstruct", scan, "-o", key, "--deidentify", "--key-file", key], key),
        (["convert", scan, key, "--deidentify", "--key-file", key], key),
        (["inspect", scan, "--cap", cap, "--json", cap], cap),
        (["markers", scan, "--cap", cap, "--json", cap], cap),
        (["measure", scan, "--cap", cap, "--json", cap], cap),
        (["reconstruct", scan, "--cap", cap, "-o", "x.ply", "--json", cap], cap),
      ]
      for (arguments, protected) in cases {
        let before = try Self.contents(protected)
        let run = try Headscan.run(arguments + ["--quiet"])
        if arguments[0] == "convert" {
          // convert's output is a stream or a folder: a key file's name is neither.
          #expect(run.status != 0, "\(arguments): \(run.stderr)")
        } else {
          Self.expectRefused(run, naming: protected, saying: "refusing to overwrite the input file", "\(arguments)")
        }
        #expect(try sameContents(Self.contents(protected), before), "\(arguments) changed \(protected)")
      }
    }
  }

  /// convert into a folder headscan wrote earlier that now holds the scan being converted:
  /// replacing the folder would delete the scan.
  @Test func convertDoesNotReplaceTheFolderThatHoldsItsInput() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try Self.copy("scans/tiny.rgbdscan", to: "s.rgbdscan", in: folder)
      let out = folder.appendingPathComponent("out-tum").path
      let first = try Headscan.run(["convert", scan, out, "--quiet"])
      #expect(first.status == 0, "\(first.stderr)")
      let inside = out + "/patient.rgbdscan"
      try FileManager.default.copyItem(atPath: scan, toPath: inside)
      let run = try Headscan.run(["convert", inside, out, "--quiet"])
      Self.expectRefused(run, naming: out, saying: "refusing to replace a folder that holds the input", "convert")
      #expect(try sameContents(Self.contents(inside), Self.contents(scan)))
    }
  }

  /// convert copies the scan's landmarks beside its output; a different landmarks file already
  /// there (landmarks placed by hand) is kept as `.bak`, not replaced without a trace.
  @Test func convertKeepsAnEarlierLandmarksFile() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try Self.copy("scans/tiny.rgbdscan", to: "s.rgbdscan", in: folder)
      let landmarks = try Self.copy("scans/tiny.landmarks.json", to: "s.landmarks.json", in: folder)
      let out = folder.appendingPathComponent("copy.rgbdscan").path
      let outLandmarks = folder.appendingPathComponent("copy.landmarks.json").path
      let placed = Data(#"{"landmarks": []}"#.utf8)
      try placed.write(to: URL(fileURLWithPath: outLandmarks))
      let run = try Headscan.run(["convert", scan, out, "--quiet"])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(try Self.contents(outLandmarks) == Self.contents(landmarks))
      #expect(try Self.contents(outLandmarks + ".bak") == placed)
    }
  }

  /// batch: a `--history` page that would replace a scan, the batch's summary or a report is
  /// refused before any scan is measured; two scans with one name are refused by name.
  @Test func batchRefusesHistoryPagesOverItsInputsAndOutputs() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.appendingPathComponent("scans").path
      try FileManager.default.createDirectory(atPath: scans, withIntermediateDirectories: true)
      let scan = try Self.copy("scans/tiny.rgbdscan", to: "scans/p1.rgbdscan", in: folder)
      let out = folder.appendingPathComponent("reports").path
      let cases: [(String, String)] = [
        (scan, "refusing to overwrite a file inside the input folder"),
        (out + "/summary.csv", "--history names the batch's own output"),
        (out + "/p1.json", "--history names the batch's own output"),
        (folder.appendingPathComponent("missing/history.html").path, "does not exist"),
      ]
      for (history, problem) in cases {
        let before = try Self.contents(scan)
        let run = try Headscan.run(["batch", scans, "--out", out, "--history", history, "--quiet"])
        Self.expectRefused(run, naming: history, saying: problem, history)
        #expect(try sameContents(Self.contents(scan), before))
        #expect(!FileManager.default.fileExists(atPath: out + "/p1.json"), "a scan was measured before the refusal")
      }
      // A scan file and a TUM folder with one name would write one report.
      let tum = scans + "/p1"
      #expect(try Headscan.run(["convert", scan, tum, "--quiet"]).status == 0)
      let run = try Headscan.run(["batch", scans, "--out", out, "--quiet"])
      Self.expectRefused(run, naming: scans, saying: "two scans named 'p1' (p1 and p1.rgbdscan)", "duplicate names")
    }
  }

  /// Files written into a folder (`--plots`) are outputs too: one that would replace a file
  /// inside an input folder (a TUM scan, the reports `validate` reads) is refused before any
  /// work; `batch` refuses to write its reports among its scans.
  @Test func folderOutputsNeverReplaceFilesInAnInputFolder() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try Self.copy("scans/orbit-small", to: "tum", in: folder)
      _ = try Self.copy("scans/orbit-small.landmarks.json", to: "tum.landmarks.json", in: folder)
      let figure = scan + "/contour.svg"
      try Data("precious".utf8).write(to: URL(fileURLWithPath: figure))
      Self.expectRefused(
        try Headscan.run(["measure", scan, "--plots", scan, "--quiet"]), naming: figure, saying: "refusing to overwrite a file inside the input folder",
        "measure --plots")
      #expect(try String(contentsOfFile: figure, encoding: .utf8) == "precious")

      let reports = folder.appendingPathComponent("reports").path
      try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: false)
      let plot = reports + "/bland-altman-cvai.svg"
      try Data("precious".utf8).write(to: URL(fileURLWithPath: plot))
      let csv = folder.appendingPathComponent("cal.csv").path
      try Data("scan,diagonalA,diagonalB\np1,130,120\n".utf8).write(to: URL(fileURLWithPath: csv))
      Self.expectRefused(
        try Headscan.run(["validate", csv, "--reports", reports, "--plots", reports, "--quiet"]), naming: plot,
        saying: "refusing to overwrite a file inside the input folder", "validate --plots")
      #expect(try String(contentsOfFile: plot, encoding: .utf8) == "precious")

      let scans = folder.appendingPathComponent("scans").path
      try FileManager.default.createDirectory(atPath: scans, withIntermediateDirectories: false)
      _ = try Self.copy("scans/tiny.rgbdscan", to: "scans/p1.rgbdscan", in: folder)
      Self.expectRefused(
        try Headscan.run(["batch", scans, "--out", scans + "/.", "--quiet"]), naming: scans + "/.", saying: "is the scans folder itself",
        "batch --out")
      let link = folder.appendingPathComponent("scanlink").path
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scans)
      Self.expectRefused(
        try Headscan.run(["batch", scans, "--out", link, "--quiet"]), naming: link, saying: "is the scans folder itself", "batch --out a link")
      // A file output inside a plots folder is named by both options.
      let plots = folder.appendingPathComponent("p").path
      let report = plots + "/contour.svg"
      Self.expectRefused(
        try Headscan.run(["measure", scan, "--json", report, "--plots", plots, "--quiet"]), naming: report, saying: "named by both",
        "--json inside --plots")
      #expect(try FileManager.default.contentsOfDirectory(atPath: scans) == ["p1.rgbdscan"])
    }
  }

  /// simulate checks the files it writes beside the scan before rendering, and annotate the
  /// landmarks file it saves before reconstructing.
  @Test func companionOutputsAreCheckedFirst() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = folder.appendingPathComponent("a.rgbdscan").path
      let truth = folder.appendingPathComponent("a.truth.json").path
      try FileManager.default.createDirectory(atPath: truth, withIntermediateDirectories: false)
      let run = try Headscan.run(["simulate", scan, "--frames", "4", "--size", "160x120", "--quiet"])
      Self.expectRefused(run, naming: truth, saying: "is a folder", "simulate")
      #expect(!FileManager.default.fileExists(atPath: scan), "the scan was written before the refusal")

      let fixture = TestFiles.fixture("scans/tiny.rgbdscan").path
      let missing = folder.appendingPathComponent("missing/x.landmarks.json").path
      let annotate = try Headscan.run(["annotate", fixture, "--landmarks", missing, "--quiet"])
      Self.expectRefused(annotate, naming: missing, saying: "does not exist", "annotate")
    }
  }

  /// validate: a calliper value no head has (here 1e308 mm, which overflowed the statistics) is
  /// refused with its line.
  @Test func calliperValuesBeyondAHeadAreRefused() throws {
    try TestFiles.withTemporaryFolder { folder in
      let csv = folder.appendingPathComponent("cal.csv").path
      try Data("scan,diagonalA,diagonalB\np1,1e308,120\n".utf8).write(to: URL(fileURLWithPath: csv))
      let reports = folder.appendingPathComponent("reports").path
      try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
      let run = try Headscan.run(["validate", csv, "--reports", reports])
      Self.expectRefused(run, naming: csv + ":2", saying: "'diagonalA' is 1e308 mm, more than 1000 mm", "validate")
    }
  }
}
