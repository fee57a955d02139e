import Foundation
import Testing
import _TestSupport

/// Every numeric option of every command has bounds (docs/command-line.md, "Option bounds"),
/// and every option with named values takes only those:
/// below, above, NaN, infinite, huge and negative values are a usage error (exit 64, not a
/// signal) whose first line names the option, before any file is written; the edges pass
/// validation. `validate` and `history` have no numeric options.
struct OptionBoundsTests {
  static let scan = "fixtures/scans/tiny.rgbdscan"

  /// One refused command line: the option it must name and the arguments, `F/` standing for
  /// an empty temporary folder that must stay empty.
  struct Refusal: Sendable, CustomStringConvertible {
    var option: String
    var arguments: [String]
    var description: String { arguments.joined(separator: " ") }
  }

  /// `--option=value` for each value (`--option -1` is joined into that form by the command itself;
  /// ``negativeValuesAfterASpaceReachTheOptionsCheck()``).
  static func refusals(_ command: [String], _ option: String, _ values: [String], naming named: String? = nil) -> [Refusal] {
    values.map { Refusal(option: named ?? option, arguments: command + ["\(option)=\($0)"]) }
  }

  static let outOfRange = ["nan", "inf", "-1e308"]
  static let hugeIntegers = ["9223372036854775807", "99999999999999999999"]

  static let cases: [String: [Refusal]] = {
    let s = scan
    var cases: [String: [Refusal]] = [:]
    cases["inspect"] =
      refusals(["inspect", s, "--json", "F/s.json"], "--stride", ["0", "-1", "100001", "nan", "1.5"] + hugeIntegers)
      + refusals(["inspect", s, "--snapshot", "F/s.png"], "--frame", ["-1", "100000", "inf"] + hugeIntegers)
      + refusals(["inspect", s, "--json", "F/s.json"], "--min-confidence", ["3", "-1", "256", "nan"])
    cases["markers"] = refusals(["markers", s, "--json", "F/m.json"], "--min-confidence", ["3", "-1", "255", "300", "1e9"])
    cases["reconstruct"] =
      refusals(["reconstruct", s, "-o", "F/c.ply"], "--voxel", ["0", "0.19", "10.01", "-1"] + outOfRange)
      + refusals(["reconstruct", s, "-o", "F/c.ply", "--mesh", "F/m.ply"], "--mesh-spacing", ["0.1", "11", "-2"] + outOfRange)
      + refusals(["reconstruct", s, "-o", "F/c.ply", "--mesh", "F/m.ply"], "--mesh-triangles", ["99", "10000001", "-5", "nan"] + hugeIntegers)
      + refusals(["reconstruct", s, "-o", "F/c.ply"], "--fuse-frames", ["0", "-1", "100001", "nan", "1e3", "alll"] + hugeIntegers)
      + refusals(["reconstruct", s, "-o", "F/c.ply"], "--focal-length", ["99", "10001", "0", "-593"] + outOfRange)
      + refusals(["reconstruct", s, "-o", "F/c.ply"], "--min-confidence", ["3"])
      + refusals(["reconstruct", s, "-o", "F/c.ply"], "--threshold-window", ["bogus", "OPENCV", "7"])
    cases["measure"] =
      refusals(["measure", s, "--json", "F/r.json"], "--focal-length", ["99.9", "10000.5", "-1"] + outOfRange)
      + refusals(["measure", s, "--json", "F/r.json"], "--min-confidence", ["3", "-1"])
      + refusals(["measure", s, "--json", "F/r.json"], "--threshold-window", ["marker_size"])
    cases["batch"] =
      refusals(["batch", "F/scans", "--out", "F/reports"], "--jobs", ["0", "-1", "1025", "nan"] + hugeIntegers)
      + refusals(["batch", "F/scans", "--out", "F/reports"], "--cpus", ["0", "1025", "-2"] + hugeIntegers)
      + refusals(["batch", "F/scans", "--out", "F/reports", "--slurm", "--dry-run"], "--max-parallel", ["0", "100001", "-1"] + hugeIntegers)
      + refusals(["batch", "F/scans", "--out", "F/reports", "--slurm", "--dry-run"], "--scans-per-task", ["0", "100001", "-1"])
      + refusals(["batch", "F/scans", "--out", "F/reports"], "--focal-length", ["1e9", "-5", "nan"])
      + refusals(["batch", "F/scans", "--out", "F/reports"], "--min-confidence", ["7"])
      + refusals(["batch", "F/scans", "--out", "F/reports"], "--threshold-window", ["none"])
    cases["annotate"] = refusals(["annotate", s], "--port", ["1", "80", "1023", "65536", "70000", "-1", "nan"] + hugeIntegers)
    cases["convert"] =
      refusals(["convert", s, "F/t.rgbdscan"], "--min-confidence", ["3", "-1", "1e3"])
      + refusals(["convert", s, "F/tum"], "--min-confidence", ["9"])
    cases["simulate-calliper"] =
      refusals(["simulate-calliper", "--reports", "F", "-o", "F/c.csv"], "--bias", ["-50.5", "51"] + outOfRange)
      + refusals(["simulate-calliper", "--reports", "F", "-o", "F/c.csv"], "--noise", ["-0.1", "50.1"] + outOfRange)
      + refusals(["simulate-calliper", "--reports", "F", "-o", "F/c.csv"], "--seed", ["-1", "18446744073709551616", "nan"])
    cases["evaluate"] =
      refusals(["evaluate", s], "--fuse-frames", ["0", "100001", "-3"] + hugeIntegers)
      + refusals(["evaluate", s], "--focal-length", ["0.5", "20000"] + outOfRange)
      + refusals(["evaluate", s], "--min-confidence", ["4"])
      + refusals(["evaluate", s], "--threshold-window", ["auto"])
    let sim = ["simulate", "F/s.rgbdscan", "--frames", "2", "--size", "64x48"]
    let number = outOfRange + ["-1"]
    cases["simulate"] =
      refusals(["simulate", "F/s.rgbdscan", "--size", "64x48"], "--frames", ["0", "-1", "100001", "10000000", "nan"] + hugeIntegers)
      + refusals(["simulate", "F/s.rgbdscan", "--frames", "2"], "--size", [
        "9223372036854775807x1", "9223372036854775807x9223372036854775807", "16384x12288", "2052x1539", "12x9", "100x100", "640x480x2",
        "-640x-480", "640.0x480",
      ])
      + refusals(sim, "--fps", ["0", "0.5", "241"] + number)
      + refusals(sim, "--markers", ["-1", "251", "nan"] + hugeIntegers)
      + refusals(sim, "--marker-side", ["3.9", "40.1"] + number)
      + refusals(sim, "--marker-margin", ["10.1"] + number)
      + refusals(sim, "--cvai", ["12.01", "20", "25", "30"] + number)
      + refusals(sim, "--ci", ["59.9", "110.1", "55.5"] + number)
      + refusals(sim, "--length", ["0", "1e-300", "99.9", "220.1"] + number)
      + refusals(sim, "--coverage", ["2.1"] + number)
      + refusals(sim, "--distance", ["0.09", "1.1"] + number)
      + refusals(sim, "--distance-range", ["0.3:0.2", "0.01:0.5", "0.2:1.5", "nan:0.3", "0.2:inf", "0.3", "1e308:1e308", "-1:0.3", "a:b", "0.2:0.3:0.4"])
      + refusals(sim, "--tremor", ["50.1"] + number)
      + refusals(sim, "--fine-tremor", ["20.1"] + number)
      + refusals(sim, "--depth-noise", ["50.1"] + number)
      + refusals(sim, "--noise-distance", ["0.04", "2.1"] + number)
      + refusals(sim, "--correlated-noise", ["51"] + number)
      + refusals(sim, "--correlation-length", ["0.5", "1001"] + number)
      + refusals(sim, "--frame-offset", ["51"] + number)
      + refusals(sim, "--grazing", ["80:70", "0:91", "-1:80", "nan:80", "70:inf", "70"])
      + refusals(sim, "--silhouette-loss", ["1.01"] + number)
      + refusals(sim, "--holes", ["101"] + number)
      + refusals(sim, "--hole-size", ["0:5", "2:51", "6:2", "2:nan", "4"])
      + refusals(sim, "--random-dropout", ["1.5"] + number)
      + refusals(sim, "--motion-blur-rate", ["1.5"] + number)
      + refusals(sim, "--motion-blur-length", ["3:101", "-1:3", "14:3", "inf:inf"])
      + refusals(sim, "--focal-length", ["99", "5001", "nan", "inf", "590:580", "500:6000", "-593", "1e308"])
      + refusals(sim, "--focal-error", ["0.51", "-0.51"] + outOfRange)
      + refusals(sim, "--colour-noise", ["50.1"] + number)
      + refusals(sim, "--lose-marker", ["250@1", "1@100000", "-1@1", "1@-1", "1@", "@1", "1@2@3", "9223372036854775808@1", "1@9223372036854775807"])
      + refusals(sim, "--shake", ["100000", "-1", "3:101", "3:-1", "3:nan", "3:inf", "3:4:5", "9223372036854775808"])
      + refusals(sim, "--seed", ["-1", "18446744073709551616"])
    return cases
  }()

  static let commands = ["inspect", "markers", "reconstruct", "measure", "batch", "annotate", "convert", "simulate-calliper", "evaluate", "simulate"]

  @Test(arguments: commands)
  func valuesOutsideTheBoundsAreAUsageErrorNamingTheOption(command: String) throws {
    let refusals = try #require(Self.cases[command])
    #expect(refusals.count >= 3)
    try TestFiles.withTemporaryFolder { folder in
      for refusal in refusals {
        let arguments = refusal.arguments.map { $0.hasPrefix("F/") ? folder.path + $0.dropFirst(1) : $0 == "F" ? folder.path : $0 }
        let run = try Headscan.run(arguments)
        #expect(run.status == 64, "\(refusal): exit status \(run.status), \(run.stderr)")
        let first = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        #expect(first.hasPrefix("headscan: error: ") && first.contains(refusal.option), "\(refusal): \(first)")
        #expect(!run.stderr.contains("Fatal error") && !run.stderr.contains("Stack dump"), "\(refusal): \(run.stderr)")
        #expect(run.stdout.isEmpty, "\(refusal) printed: \(run.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.isEmpty, "\(refusal) wrote \(left)")
      }
    }
  }

  /// Each command line exits 64 with one line on stderr, `headscan: error: ` and its message.
  static func expectUsageErrors(_ messages: [([String], String)]) throws {
    for (arguments, message) in messages {
      let run = try Headscan.run(arguments)
      #expect(run.status == 64 && run.stderr.hasPrefix("headscan: error: " + message), "\(arguments): \(run.stderr)")
      #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): one line: \(run.stderr)")
    }
  }

  /// The parser's own errors (a missing argument, an unknown option or command) are one line too,
  /// naming the command whose help to read.
  @Test func parserErrorsAreOneLineNamingTheHelp() throws {
    try Self.expectUsageErrors([
      (["reconstruct", Self.scan], "Missing expected argument '--output <output>' (see 'headscan reconstruct --help')"),
      (["measure", Self.scan, "--no-such-option"], "Unknown option '--no-such-option' (see 'headscan measure --help')"),
      (["frobnicate"], "Unexpected argument 'frobnicate' (see 'headscan --help')"),
      // An argument that looks like the parser's hint is not taken for it.
      (["measure", Self.scan, "--layer-spacing", "See 'headscan delete --all'"], "The value 'See 'headscan delete --all'' is invalid for '--layer-spacing <layer-spacing>' (see 'headscan measure --help')"),
    ])
    let help = try Headscan.run(["reconstruct", "--help"])
    #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: ") && help.stderr.isEmpty)
  }

  /// The bounds themselves are in the message: `--frames must be within 1…100000, got 0`.
  @Test func theMessageGivesTheRange() throws {
    let messages: [([String], String)] = [
      (["simulate", "/tmp/never.rgbdscan", "--frames", "0"], "--frames must be within 1…100000, got 0"),
      (["simulate", "/tmp/never.rgbdscan", "--length", "nan"], "--length must be within 100…220 mm, got nan"),
      (["simulate", "/tmp/never.rgbdscan", "--size", "9223372036854775807x1"], "--size must be WIDTHxHEIGHT in 4:3 within 16x12…2048x1536"),
      (["simulate", "/tmp/never.rgbdscan", "--cvai", "20"], "--cvai must be within 0…12, got 20"),
      (["reconstruct", Self.scan, "-o", "/tmp/never.ply", "--voxel", "inf"], "--voxel must be within 0.2…10 mm, got inf"),
      (["annotate", Self.scan, "--port", "80"], "--port must be 0 (a free one) or within 1024…65535, got 80"),
      (["batch", "/tmp/never", "--out", "/tmp/never-reports", "--jobs", "0"], "--jobs must be within 1…1024, got 0"),
    ]
    try Self.expectUsageErrors(messages)
  }

  /// A negative value after a space is the option's value, not another option: its message is
  /// the option's own (its bounds), not a missing value; after `--` it stays an argument.
  @Test func negativeValuesAfterASpaceReachTheOptionsCheck() throws {
    let messages: [([String], String)] = [
      (["simulate", "/tmp/never.rgbdscan", "--frames", "-5"], "--frames must be within 1…100000, got -5"),
      (["simulate", "/tmp/never.rgbdscan", "--cvai", "-.5"], "--cvai must be within 0…12, got -0.5"),
      (["simulate", "/tmp/never.rgbdscan", "--lose-marker", "-1@3"], "--lose-marker takes ID@FRAME"),
      (["simulate", "/tmp/never.rgbdscan", "--seed", "-1"], "The value '-1' is invalid for '--seed <seed>'"),
      (["reconstruct", Self.scan, "-o", "/tmp/never.ply", "--voxel", "-INF"], "--voxel must be within 0.2…10 mm, got -inf"),
      (["batch", "/tmp/never", "--out", "/tmp/never-reports", "--jobs", "-3"], "--jobs must be within 1…1024, got -3"),
    ]
    try Self.expectUsageErrors(messages)
    // Only a number is joined to the option before it: a flag before an option stays a flag.
    try Self.expectUsageErrors([
      (["inspect", Self.scan, "--quiet", "--stride", "-2"], "--stride must be within 1…100000, got -2")
    ])
    // After `--` nothing is joined: `--x -5` stays two arguments (joined, `--x=-5` would be the one scan).
    let afterTerminator = try Headscan.run(["inspect", "--", "--x", "-5"])
    #expect(afterTerminator.status == 64 && afterTerminator.stderr.hasPrefix("headscan: error: Unexpected argument '-5'"), "\(afterTerminator.stderr)")
  }

  /// Options that cannot take effect as given are usage errors (exit 64) naming the option,
  /// before anything is read or written: an option of another mode, a value that cannot go where
  /// it goes, an ArUco dictionary OpenCV does not have.
  @Test func optionsThatCannotTakeEffectAreUsageErrors() throws {
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.appendingPathComponent("out").path
      let messages: [([String], String)] = [
        (["inspect", Self.scan, "--milestones", "half"], "--milestones goes with --overlap"),
        (["batch", "fixtures/scans", "--out", out, "--mem", "8G"], "--mem needs --slurm"),
        (["batch", "fixtures/scans", "--out", out, "--time", "01:00:00"], "--time needs --slurm"),
        (["batch", "fixtures/scans", "--out", out, "--cpus", "4"], "--cpus needs --slurm"),
        (["batch", "fixtures/scans", "--out", out, "--scans-per-task", "2"], "--scans-per-task needs --slurm"),
        (["batch", "fixtures/scans", "--out", out, "--slurm", "--partition", "a b"], "--partition 'a b' cannot go into an #SBATCH line"),
        (["markers", Self.scan, "--json", out + ".json", "--dictionary", "DICT_X"], "--dictionary DICT_X: not an ArUco dictionary OpenCV knows"),
      ]
      for (arguments, message) in messages {
        let run = try Headscan.run(arguments)
        #expect(run.status == 64 && run.stderr.hasPrefix("headscan: error: " + message), "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty, "\(arguments) printed: \(run.stdout)")
      }
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      #expect(left.isEmpty, "wrote \(left)")
    }
  }

  /// The edges pass validation: the command then fails on its (missing) input with exit 1 and
  /// its own one-line error, or, for `simulate`, renders.
  @Test func theEdgesPassValidation() throws {
    try TestFiles.withTemporaryFolder { folder in
      let missing = folder.appendingPathComponent("missing.rgbdscan").path
      let out = folder.appendingPathComponent("out").path
      let lines: [[String]] = [
        ["inspect", missing, "--stride", "1", "--min-confidence", "0"], ["inspect", missing, "--stride", "100000", "--frame", "99999", "--snapshot", out + ".png"],
        ["inspect", missing, "--frame", "0", "--min-confidence", "2", "--snapshot", out + ".png"],
        ["markers", missing, "--json", out + ".json", "--min-confidence", "0"],
        ["reconstruct", missing, "-o", out + ".ply", "--voxel", "0.2", "--mesh", out + ".stl", "--mesh-spacing", "0.2", "--mesh-triangles", "100", "--fuse-frames", "1"],
        ["reconstruct", missing, "-o", out + ".ply", "--voxel", "10", "--mesh", out + ".stl", "--mesh-spacing", "10", "--mesh-triangles", "10000000", "--fuse-frames", "100000", "--focal-length", "10000"],
        ["reconstruct", missing, "-o", out + ".ply", "--fuse-frames", "all", "--focal-length", "100"],
        ["measure", missing, "--json", out + ".json", "--focal-length", "100"], ["measure", missing, "--json", out + ".json", "--focal-length", "10000"],
        ["batch", missing, "--out", out, "--jobs", "1", "--slurm", "--dry-run", "--cpus", "1"],
        ["batch", missing, "--out", out, "--jobs", "1024", "--slurm", "--dry-run", "--cpus", "1024"],
        ["batch", missing, "--out", out, "--slurm", "--dry-run", "--max-parallel", "100000", "--scans-per-task", "100000"],
        ["annotate", missing, "--port", "0"], ["annotate", missing, "--port", "1024"], ["annotate", missing, "--port", "65535"],
        ["convert", missing, out + ".rgbdscan", "--min-confidence", "2"],
        ["simulate-calliper", "--reports", missing, "-o", out + ".csv", "--bias=-50", "--noise", "0"],
        ["simulate-calliper", "--reports", missing, "-o", out + ".csv", "--bias", "50", "--noise", "50", "--seed", "18446744073709551615"],
        ["evaluate", missing, "--fuse-frames", "100000", "--focal-length", "10000", "--min-confidence", "0"],
      ]
      for arguments in lines {
        let run = try Headscan.run(arguments + ["--quiet"])
        #expect(run.status == 1, "\(arguments): exit status \(run.status), \(run.stderr)")
        #expect(run.stderr.hasPrefix("headscan: error: ") && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
      }
    }
  }

  /// Tiny scans at the simulator's edges render (the truth solved, every file written).
  @Test(arguments: [
    // The lower edges.
    [
      "--frames", "1", "--size", "16x12", "--fps", "1", "--markers", "0", "--cvai", "0", "--ci", "60", "--length", "100", "--coverage", "0",
      "--distance", "0.1", "--tremor", "0", "--fine-tremor", "0", "--depth-noise", "0", "--noise-distance", "0.05", "--correlated-noise", "0",
      "--correlation-length", "1", "--frame-offset", "0", "--grazing", "0:0", "--silhouette-loss", "0", "--holes", "0", "--hole-size", "1:1",
      "--random-dropout", "0", "--motion-blur-rate", "0", "--motion-blur-length", "0:0", "--focal-length", "100", "--focal-error=-0.5",
      "--colour-noise", "0", "--shake", "0:0", "--lose-marker", "0@0", "--seed", "0",
    ],
    // The upper edges (a 220 mm head of CI 110 and CVAI 12 carries the largest stickers).
    [
      "--frames", "2", "--size", "64x48", "--fps", "240", "--markers", "250", "--dictionary", "DICT_6X6_250", "--marker-side", "4",
      "--marker-margin", "10", "--cvai", "12", "--ci", "110", "--length", "220", "--coverage", "2", "--distance-range", "0.05:1", "--tremor", "50",
      "--fine-tremor", "20", "--depth-noise", "50", "--noise-distance", "2", "--correlated-noise", "50", "--correlation-length", "1000",
      "--frame-offset", "50", "--grazing", "90:90", "--silhouette-loss", "1", "--holes", "100", "--hole-size", "50:50", "--random-dropout", "1",
      "--motion-blur-rate", "1", "--motion-blur-length", "100:100", "--focal-length", "5000", "--focal-error", "0.5", "--colour-noise", "50",
      "--shake", "99999:100", "--lose-marker", "249@99999", "--seed", "18446744073709551615",
    ],
    ["--frames", "1", "--size", "64x48", "--cvai", "12", "--ci", "60", "--length", "220", "--side", "left", "--marker-side", "40", "--markers", "1"],
  ])
  func simulateRendersAtTheEdges(_ arguments: [String]) throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("edge.rgbdscan").path
      let run = try Headscan.run(["simulate", path] + arguments + ["--quiet"])
      #expect(run.status == 0, "exit status \(run.status): \(run.stderr)")
      for companion in ["edge.rgbdscan", "edge.landmarks.json", "edge.truth.json"] {
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(companion).path), "\(companion) missing")
      }
    }
  }
}
