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
