import Foundation
import Reports
import Testing
import _TestSupport

@testable import Batch

/// Text that leaves the tool: CSV fields a spreadsheet would read as formulas are neutralised,
/// and values that would break a generated Slurm script or task list are refused by name.
struct TextLeavingTheToolTests {
  @Test func scanNamesCannotBecomeSpreadsheetFormulas() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.appendingPathComponent("scans"), out = folder.appendingPathComponent("out").path
      let names = ["=HYPERLINK(\"x?\"&A2,\"Click\")", "+1+2", "-3", "@SUM(A1)", "plain"]
      try BatchTests.make(names.map { $0 + ".rgbdscan" }, in: scans)
      let batch = try Batch(scans: scans.path, out: out)
      try batch.writeSummary(batch.items.map { _ in .failed("=cmd|' /C calc'!A0") })
      let lines = try String(contentsOfFile: out + "/summary.csv", encoding: .utf8).split(separator: "\n").dropFirst()
      #expect(lines.count == names.count)
      for line in lines {
        let name = line.hasPrefix("\"") ? line.dropFirst() : line[...]
        #expect(!name.hasPrefix("=") && !name.hasPrefix("+") && !name.hasPrefix("-") && !name.hasPrefix("@"), "\(line)")
        // The error, then the verdict's two empty columns (a failed scan has none).
        #expect(line.hasSuffix("\"'=cmd|' /C calc'!A0\",,") || line.hasSuffix("'=cmd|' /C calc'!A0,,"), "\(line)")
      }
      #expect(lines.contains { $0.hasPrefix("plain,failed,") })
    }
  }

  @Test func valuesThatWouldBreakTheJobScriptAreRefused() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.appendingPathComponent("scans")
      try BatchTests.make(["a.rgbdscan"], in: scans)
      let items = try Batch.scans(in: scans.path)
      let slurm = folder.appendingPathComponent("out/slurm").path
      var settings = SlurmSettings.default
      for (option, value) in [("--partition", "short\n#SBATCH --uid=0"), ("--time", "00:10:00 --x"), ("--mem", "4G\"")] {
        var bad = settings
        switch option {
        case "--partition": bad.partition = value
        case "--time": bad.time = value
        default: bad.mem = value
        }
        #expect(throws: FileProblem.self, "\(option) '\(value)'") {
          try SlurmSubmission.write(items, from: scans.path, into: slurm, headFrame: .landmarks, batchArguments: [], settings: bad)
        }
      }
      settings.sbatchOptions = ["--account=lab\n--uid=0"]
      #expect(throws: FileProblem.self) {
        try SlurmSubmission.write(items, from: scans.path, into: slurm, headFrame: .landmarks, batchArguments: [], settings: settings)
      }
      settings = .default
      settings.scansPerTask = 0
      #expect(throws: FileProblem.self) {
        try SlurmSubmission.write(items, from: scans.path, into: slurm, headFrame: .landmarks, batchArguments: [], settings: settings)
      }
      // A scan whose name holds a line break would split the task list.
      let odd = [BatchItem(name: "a\nb", path: scans.path + "/a\nb.rgbdscan", landmarks: "")]
      #expect(throws: FileProblem.self) {
        try SlurmSubmission.write(odd, from: scans.path, into: slurm, headFrame: .landmarks, batchArguments: [], settings: .default)
      }
      #expect(!FileManager.default.fileExists(atPath: slurm), "nothing written for a refused submission")
    }
  }
}
