import Foundation
import Testing
import _TestSupport

/// `HEADSCAN_CORES` (docs/performance.md, "Workers and memory"): the core count the parallel
/// stages plan for, so that a small machine runs as many workers as a large one.
struct CoreCountTests {
  /// Sixteen workers running on this machine's cores give the cloud one worker gives, byte for
  /// byte, and `-v` reports each stage as usual. Above four running threads the fusion updates
  /// one frame at a time for every four threads, its strips shared among their threads (six: two
  /// frames, three threads each; sixteen: four frames, four each).
  @Test func sixteenCoresGiveTheCloudOfOne() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = TestFiles.fixture("scans/orbit-small").path
      var clouds: [Data] = []
      for (cores, jobs) in [("1", "1"), ("6", "6"), ("16", "16")] {
        let ply = folder.appendingPathComponent("cores-\(cores).ply")
        let run = try Headscan.run(
          program: Headscan.executable, ["reconstruct", scan, "-o", ply.path, "--jobs", jobs, "-v"], environment: ["HEADSCAN_CORES": cores])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("stage       fuse:"), "\(run.stdout)")
        clouds.append(try Data(contentsOf: ply))
      }
      #expect(clouds[0].count > 100_000)
      #expect(sameContents(clouds[0], clouds[1]) && sameContents(clouds[0], clouds[2]))
    }
  }

  /// Anything but a whole number of 1…4096 is refused before any work, naming the variable and
  /// the value (an empty value counts as unset).
  @Test func aBadCoreCountIsAUsageError() throws {
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.appendingPathComponent("never.ply").path
      for value in ["0", "4097", "-2", "1.5", "abc", " 8", "16 ", "+4", "١٦", "99999999999999999999"] {
        let run = try Headscan.run(
          program: Headscan.executable, ["reconstruct", "fixtures/scans/tiny.rgbdscan", "-o", out], environment: ["HEADSCAN_CORES": value])
        #expect(run.status == 64, "\(value): \(run.status) \(run.stderr)")
        #expect(run.stderr == "headscan: error: HEADSCAN_CORES must be a whole number of cores, 1…4096, got '\(value)'\n", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
      }
      let unset = try Headscan.run(
        program: Headscan.executable, ["inspect", "fixtures/scans/tiny.rgbdscan"], environment: ["HEADSCAN_CORES": ""])
      #expect(unset.status == 0, "\(unset.stderr)")
    }
  }
}
