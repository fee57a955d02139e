import Foundation
import Testing
import _TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// No output option of any command can destroy a user's folder or a special file: each is
/// refused in one line before any work, and the folder is left as it was.
struct DataLossTests {
  /// The fixture scan and a folder of the user's beside it.
  static func withVictim(_ body: (_ scan: String, _ victim: String, _ folder: URL) throws -> Void) throws {
    try TestFiles.withTemporaryFolder { folder in
      let victim = folder.appendingPathComponent("victim").path
      try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: false)
      try Data("precious".utf8).write(to: URL(fileURLWithPath: victim + "/notes.txt"))
      try body(TestFiles.fixture("scans/orbit-small").path, victim, folder)
      #expect(try FileManager.default.contentsOfDirectory(atPath: victim) == ["notes.txt"])
      #expect(try String(contentsOfFile: victim + "/notes.txt", encoding: .utf8) == "precious")
    }
  }

  static func expectRefused(_ run: CommandRun, naming path: String, saying problem: String) {
    #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
    #expect(run.stderr.contains(path) && run.stderr.contains(problem), "\(run.stderr)")
  }

  @Test(arguments: [
    ["inspect", "SCAN", "--json", "OUT"], ["inspect", "SCAN", "--snapshot", "OUT"], ["markers", "SCAN", "--json", "OUT"],
    ["reconstruct", "SCAN", "-o", "OUT"], ["reconstruct", "SCAN", "-o", "CLOUD", "--json", "OUT"],
    ["measure", "SCAN", "--json", "OUT"], ["measure", "SCAN", "--html", "OUT"],
    ["measure", "SCAN", "--cloud", "OUT"], ["convert", "SCAN", "OUT"],
  ])
  func fileOutputsNeverReplaceAFolder(_ template: [String]) throws {
    try Self.withVictim { scan, victim, folder in
      let cloud = folder.appendingPathComponent("cloud.ply").path
      let arguments = template.map { $0 == "SCAN" ? scan : $0 == "OUT" ? victim : $0 == "CLOUD" ? cloud : $0 }
      let run = try Headscan.run(arguments + ["--quiet"])
      Self.expectRefused(run, naming: victim, saying: template.first == "convert" ? "headscan did not write" : "is a folder")
      #expect(!FileManager.default.fileExists(atPath: cloud))
    }
  }

  /// A run that fails after its work leaves the outputs of an earlier run as they were: every
  /// output is made before the first is written (`inspect` reads the snapshot's frame, and
  /// `reconstruct` makes the mesh, before writing the JSON or the cloud).
  @Test func aRunThatFailsLateLeavesEarlierOutputsAsTheyWere() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = TestFiles.fixture("scans/orbit-small").path
      let json = folder.appendingPathComponent("summary.json").path, cloud = folder.appendingPathComponent("cloud.ply").path
      for path in [json, cloud] { try Data("precious".utf8).write(to: URL(fileURLWithPath: path)) }
      let snapshot = folder.appendingPathComponent("frame.png").path
      let inspect = try Headscan.run(["inspect", scan, "--json", json, "--snapshot", snapshot, "--frame", "36", "--quiet"])
      Self.expectRefused(inspect, naming: scan, saying: "frame 36 is out of range (the scan has 36 frames)")
      let mesh = folder.appendingPathComponent("head.ply").path
      let reconstruct = try Headscan.run(["reconstruct", scan, "-o", cloud, "--mesh", mesh, "--mesh-triangles", "100", "--quiet"])
      Self.expectRefused(reconstruct, naming: scan, saying: "the mesh cannot be kept at or under 100 triangles")
      for path in [json, cloud] { #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious", "\(path)") }
      #expect(!FileManager.default.fileExists(atPath: snapshot) && !FileManager.default.fileExists(atPath: mesh))
    }
  }

  /// A scan folder headscan wrote is replaced by the next `simulate` or `convert` of that name,
  /// but not once the user has put a file of their own into it.
  @Test func aScanFolderWithTheUsersFilesIsNotReplaced() throws {
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.appendingPathComponent("tum").path
      let simulate = ["simulate", out, "--frames", "2", "--size", "64x48", "--format", "tum", "--quiet"]
      #expect(try Headscan.run(simulate).status == 0)
      #expect(try Headscan.run(simulate + ["--seed", "2"]).status == 0)  // headscan's own: replaced
      try Data("precious".utf8).write(to: URL(fileURLWithPath: out + "/notes.txt"))
      let before = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
      Self.expectRefused(try Headscan.run(simulate + ["--seed", "3"]), naming: out, saying: "holds notes.txt, not among the entries headscan wrote there")
      Self.expectRefused(
        try Headscan.run(["convert", TestFiles.fixture("scans/tiny.rgbdscan").path, out, "--quiet"]), naming: out,
        saying: "holds notes.txt, not among the entries headscan wrote there")
      #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == before)
      #expect(try String(contentsOfFile: out + "/notes.txt", encoding: .utf8) == "precious")
    }
  }

  @Test func aMeshOutputNeverReplacesAFolder() throws {
    try TestFiles.withTemporaryFolder { folder in
      let victim = folder.appendingPathComponent("head.ply").path
      try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: false)
      try Data("precious".utf8).write(to: URL(fileURLWithPath: victim + "/notes.txt"))
      let cloud = folder.appendingPathComponent("cloud.ply").path
      let run = try Headscan.run(["reconstruct", TestFiles.fixture("scans/orbit-small").path, "-o", cloud, "--mesh", victim, "--quiet"])
      Self.expectRefused(run, naming: victim, saying: "is a folder")
      #expect(try FileManager.default.contentsOfDirectory(atPath: victim) == ["notes.txt"])
      #expect(!FileManager.default.fileExists(atPath: cloud))
    }
  }

  @Test func specialFilesAreNeverReplaced() throws {
    try TestFiles.withTemporaryFolder { folder in
      let fifo = folder.appendingPathComponent("out.json").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let run = try Headscan.run(["inspect", TestFiles.fixture("scans/orbit-small").path, "--json", fifo, "--quiet"])
      Self.expectRefused(run, naming: fifo, saying: "not a regular file")
      var info = stat()
      #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "the FIFO is still a FIFO")
      // A device: refused before anything is written (the check does not touch the node).
      Self.expectRefused(
        try Headscan.run(["inspect", TestFiles.fixture("scans/orbit-small").path, "--json", "/dev/null", "--quiet"]),
        naming: "/dev/null", saying: "not a regular file")
    }
  }

  /// Ctrl-C (SIGINT) or SIGTERM while a scan is being written: the hidden temporary file or
  /// folder goes, the file already at the output stays as it was, and the exit status is the
  /// shell's for the signal.
  @Test(arguments: [("big.rgbdscan", SIGINT), ("tum-out", SIGTERM)])
  func anInterruptedWriteLeavesNoTemporaryFile(_ name: String, _ sig: Int32) throws {
    try TestFiles.withTemporaryFolder { folder in
      let output = folder.appendingPathComponent(name).path
      let old = Data("an earlier file".utf8)
      if name.hasSuffix(".rgbdscan") { try old.write(to: URL(fileURLWithPath: output)) }
      let process = Process()
      process.executableURL = Headscan.executable
      process.arguments = ["simulate", output, "--frames", "600", "--quiet"]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      func temporaries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }
      }
      // Wait (at most 60 s) until the write has begun, then interrupt it.
      let deadline = Date().addingTimeInterval(60)
      while try temporaries().isEmpty, process.isRunning, Date() < deadline { usleep(20_000) }
      let begun = try !temporaries().isEmpty
      #expect(begun, "the write never began")
      kill(process.processIdentifier, sig)
      process.waitUntilExit()
      #expect(process.terminationReason == .exit && process.terminationStatus == 128 + sig, "status \(process.terminationStatus)")
      let left = try temporaries()
      #expect(left.isEmpty, "left behind: \(left)")
      if name.hasSuffix(".rgbdscan") {
        #expect(try sameContents(Data(contentsOf: URL(fileURLWithPath: output)), old))
      } else {
        #expect(!FileManager.default.fileExists(atPath: output))
      }
    }
  }

  @Test func aFIFOInputIsRefusedNotWaitedOn() throws {
    try TestFiles.withTemporaryFolder { folder in
      for name in ["scan.rgbdscan", "scan.r3d", "image.png"] {
        let fifo = folder.appendingPathComponent(name).path
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try Headscan.run(["markers", fifo, "--json", folder.appendingPathComponent("out.json").path, "--quiet"])
        #expect(run.status == 1 && run.stderr.contains(fifo), "\(name): \(run.status) \(run.stderr)")
      }
    }
  }
}
