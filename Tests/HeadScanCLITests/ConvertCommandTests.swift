import Foundation
import ScanIO
import Testing
import _TestSupport

/// `headscan convert` on a small simulated Record3D export, and `--cap` / the sidecar on the
/// commands that read scans.
struct ConvertCommandTests {
  @Test func aRecord3DExportConvertsFrameForFrameWithItsCapAndLandmarks() throws {
    try TestFiles.withTemporaryFolder { folder in
      let export = folder.appendingPathComponent("phone.r3d").path
      let simulate = try Headscan.run(["simulate", export, "--frames", "3", "--size", "160x120", "--quiet"])
      #expect(simulate.status == 0, "\(simulate.stderr)")
      #expect(simulate.stdout.contains(folder.appendingPathComponent("phone.cap.json").path))

      let stream = folder.appendingPathComponent("archive.rgbdscan").path
      let run = try Headscan.run(["convert", export, stream])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr.contains("converting: 3/3 frames"), "progress on stderr: \(run.stderr)")
      #expect(run.stdout.contains("wrote \(stream) (3 frames, .rgbdscan float32)"))
      let source = try openScan(at: export), converted = try openScan(at: stream)
      #expect(converted.header.markers == source.header.markers && converted.header.capMarkerCount == 30)
      #expect(converted.header.colorWidth == 120 && converted.header.colorHeight == 160, "portrait, as stored")
      for i in 0..<3 {
        let a = try source.frame(at: i), b = try converted.frame(at: i)
        #expect(a.timestamp == b.timestamp && sameContents(a.color.bgra, b.color.bgra) && a.depth.intrinsics == b.depth.intrinsics)
        #expect(zip(a.depth.metres, b.depth.metres).allSatisfy { $0.isNaN ? $1.isNaN : $0 == $1 })
      }
      // The landmarks came along; the stream records the cap, so it needs no sidecar.
      let landmarks = folder.appendingPathComponent("archive.landmarks.json").path
      #expect(try Data(contentsOf: URL(fileURLWithPath: landmarks)) == Data(contentsOf: URL(fileURLWithPath: folder.appendingPathComponent("phone.landmarks.json").path)))

      // Beside the export under the same name: the landmarks are already shared.
      let sameName = folder.appendingPathComponent("phone.rgbdscan").path
      let beside = try Headscan.run(["convert", export, sameName, "--quiet"])
      #expect(beside.status == 0, "\(beside.stderr)")
      #expect(beside.stdout == "wrote \(sameName) (3 frames, .rgbdscan float32)\n")

      // Into a TUM folder: 16-bit depth, so within half a 0.2 mm step.
      let tum = folder.appendingPathComponent("archive-tum").path
      #expect(try Headscan.run(["convert", export, tum, "--quiet"]).status == 0)
      let folderScan = try openScan(at: tum)
      let a = try source.frame(at: 1), b = try folderScan.frame(at: 1)
      #expect(zip(a.depth.metres, b.depth.metres).allSatisfy { $0.isNaN ? $1.isNaN : abs($0 - $1) <= 0.0001 + 1e-6 })
    }
  }

  /// A TUM folder names its images by timestamp: a stream whose frames share a timestamp, or
  /// carry one that is not a number, is refused by name before any image is written (before,
  /// the frames overwrote each other, or the folder could not be read back).
  @Test func timestampsThatCannotNameTUMFilesAreRefused() throws {
    try TestFiles.withTemporaryFolder { folder in
      let source = TestFiles.fixture("scans/tiny.rgbdscan").path
      let reader = try RGBDScanReader(path: source)
      let original = try Data(contentsOf: URL(fileURLWithPath: source))
      let headerLength = Int(original[12]) | Int(original[13]) << 8 | Int(original[14]) << 16 | Int(original[15]) << 24
      for (value, problem) in [(1.0, "frame 1's timestamp 1.0 s is not after frame 0's (1.0 s)"), (Double.nan, "frame 0's timestamp nan s cannot name a file")] {
        var bytes = [UInt8](original)
        for frame in 0..<reader.frameCount {
          withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.replaceSubrange((16 + headerLength + frame * reader.frameSize)..<(24 + headerLength + frame * reader.frameSize), with: $0) }
        }
        let scan = folder.appendingPathComponent("stamps.rgbdscan").path
        try Data(bytes).write(to: URL(fileURLWithPath: scan))
        let out = folder.appendingPathComponent("tum").path
        let run = try Headscan.run(["convert", scan, out, "--quiet"])
        #expect(run.status == 1 && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("\(scan): invalid value for 'timestamp': \(problem)"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["stamps.rgbdscan"])
      }
    }
  }

  /// A scan that records its own cap does not use `--cap`: the command says so instead of
  /// leaving the user to believe the file was read.
  @Test func aCapGivenForAScanThatRecordsItsOwnIsNamedAsUnused() throws {
    try TestFiles.withTemporaryFolder { folder in
      let cap = folder.appendingPathComponent("other.cap.json").path
      try Data(#"{"markers": {"dictionary": "DICT_5X5_50", "sideLength": 0.02}, "cap": {"markerCount": 12}}"#.utf8).write(to: URL(fileURLWithPath: cap))
      let scan = TestFiles.fixture("scans/tiny.rgbdscan").path
      let run = try Headscan.run(["inspect", scan, "--cap", cap])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr.contains("headscan: warning: --cap \(cap) is not used for \(scan): a .rgbdscan v1 records its own cap"), "\(run.stderr)")
      #expect(run.stdout.contains("DICT_4X4_50"), "the scan's own dictionary: \(run.stdout)")
      let quiet = try Headscan.run(["inspect", scan, "--cap", cap, "--quiet"])
      #expect(quiet.status == 0 && !quiet.stderr.contains("warning"), "\(quiet.stderr)")
    }
  }

  @Test func withoutItsCapAnExportSaysHowToGiveIt() throws {
    try TestFiles.withTemporaryFolder { folder in
      let export = folder.appendingPathComponent("phone.r3d").path
      #expect(try Headscan.run(["simulate", export, "--frames", "2", "--size", "160x120", "--quiet"]).status == 0)
      let sidecar = folder.appendingPathComponent("phone.cap.json").path, moved = folder.appendingPathComponent("cap.json").path
      try FileManager.default.moveItem(atPath: sidecar, toPath: moved)
      let stream = folder.appendingPathComponent("out.rgbdscan").path
      for command in [["inspect", export], ["convert", export, stream]] {
        let run = try Headscan.run(command)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("headscan: error: \(export): this format does not record the cap's markers"), "\(run.stderr)")
        #expect(run.stderr.contains(sidecar) && run.stderr.contains("--cap FILE"))
      }
      #expect(!FileManager.default.fileExists(atPath: stream), "nothing written on failure")
      let given = try Headscan.run(["inspect", export, "--cap", moved, "--quiet"])
      #expect(given.status == 0, "\(given.stderr)")
      #expect(given.stdout.contains("markers     DICT_4X4_50, side 16.0 mm, cap of 30"))
      let bad = try Headscan.run(["inspect", export, "--min-confidence", "3"])
      #expect(bad.status == 64)
    }
  }
}
