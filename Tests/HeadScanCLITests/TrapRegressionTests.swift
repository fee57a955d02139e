import Foundation
import Testing
import _TestSupport

/// Inputs that used to kill `headscan reconstruct` (SIGILL, no error line) and what they give now.
struct TrapRegressionTests {
  /// Simulates a scan with `headscan simulate` into `folder` and returns its path.
  func simulate(_ name: String, in folder: URL, _ arguments: [String]) throws -> String {
    let path = folder.appendingPathComponent(name).path
    let run = try Headscan.run(["simulate", path] + arguments + ["--quiet"])
    try #require(run.status == 0, "simulate failed: \(run.stderr)")
    return path
  }

  /// One marker on the cap: the seed marker once had no observation left (a force unwrap in the
  /// chaining). Every frame is placed through that one sticker now, and one marker cannot place
  /// the head region: exit 1 and one line saying why.
  @Test func aCapWithOneMarkerIsAnErrorNotACrash() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try simulate("one.rgbdscan", in: folder, ["--markers", "1", "--frames", "20", "--size", "320x240"])
      let output = folder.appendingPathComponent("one.ply").path
      let run = try Headscan.run(["reconstruct", scan, "-o", output, "--quiet"])
      #expect(run.status == 1, "exit status \(run.status): \(run.stderr)")
      let lines = run.stderr.split(separator: "\n")
      #expect(lines.count == 1, "expected one line, got: \(run.stderr)")
      #expect(run.stderr.hasPrefix("headscan: error: \(scan): "), "must name the scan: \(run.stderr)")
      #expect(run.stderr.contains("1 mapped marker does not place the head"), "must say why: \(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: output), "no output after a failure")
    }
  }

  /// A 190 mm head at 0.2 mm voxels: the head region (the sphere through the markers and its
  /// 25 mm margin) needed more voxel blocks than the fusion grid allowed (a precondition). The
  /// grid now spans 2047 voxels (41 cm at 0.2 mm), so this head simply fuses; wider regions are
  /// a typed error (`RegistrationTests.StageTests`). The grid is sized from the head and the voxel,
  /// not the frames, so 12 frames (instead of the report's 30) keep the test short.
  @Test func aLargeHeadAtFineVoxelsIsFused() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try simulate("big.rgbdscan", in: folder, ["--length", "190", "--frames", "12", "--size", "320x240"])
      let output = folder.appendingPathComponent("big.ply").path
      // Voxel-mean fusion: 0.2 mm voxels are far finer than a 320 px pixel's footprint (~1.8 mm
      // at 30 cm), which signed-distance fusion needs its voxels to cover (docs/registration.md).
      let run = try Headscan.run(["reconstruct", scan, "-o", output, "--voxel", "0.2", "--fusion", "voxel-mean", "--quiet"])
      #expect(run.status == 0, "exit status \(run.status): \(run.stderr)")
      #expect(run.stderr.isEmpty, "\(run.stderr)")
      let ply = try Data(contentsOf: URL(fileURLWithPath: output))
      #expect(ply.starts(with: Data("ply\nformat binary_little_endian 1.0\n".utf8)))
      // A 190 × 152 mm head's upper half at 0.2 mm voxels: hundreds of thousands of points.
      #expect(run.stdout.contains("registered"), "\(run.stdout)")
      #expect(ply.count > 100_000 * 27, "only \(ply.count) bytes")
    }
  }
}
