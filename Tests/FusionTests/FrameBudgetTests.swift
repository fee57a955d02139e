import Foundation
@testable import Fusion
import Reconstruction
import Registration
import ScanIO
import ScanEvaluation
import ScanSimulator
import Testing
import _TestSupport

@testable import Registration

/// The fusion stage fuses at most ``FusionOptions/maximumFrames`` registered frames, spread
/// evenly over the recording.
struct FrameBudgetTests {
  @Test func framesAreSpreadEvenlyOverTheRecording() {
    let frames = Array(0..<10)
    #expect(evenlySpread(frames, atMost: 4) == [0, 2, 5, 7])
    #expect(evenlySpread(frames, atMost: 5) == [0, 2, 4, 6, 8])
    #expect(evenlySpread(frames, atMost: 1) == [0])
    #expect(evenlySpread(frames, atMost: nil) == frames)
    #expect(evenlySpread(frames, atMost: 10) == frames)
    #expect(evenlySpread(frames, atMost: 600) == frames)
    // A nonsensical budget fuses everything rather than nothing.
    #expect(evenlySpread(frames, atMost: 0) == frames)
    #expect(FusionOptions.default.maximumFrames == 600)
  }

  /// A third of a realistic-preset recording's frames, spread over it, fuse the whole vault, and
  /// its error grows by less than the depth noise alone would make it (√3): part of the error is
  /// the registration's, which fewer frames of the same views do not change. (On 1800 frames the
  /// vault's error no longer changed between 1658 and 415 fused frames, docs/performance.md.)
  @Test func aThirdOfTheFramesSpreadEvenlyFuseTheWholeVault() throws {
    try TestFiles.withTemporaryFolder { folder in
      let o = SimulationOptions(preset: .realistic, frames: 90, seed: 12, head: .init(cranialIndex: 82, cvai: 5, flattenedSide: .left))
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let truth = try simulateScan(o, to: path, format: .stream).truth
      let scan = try openScan(at: path)
      func reconstructed(atMost budget: Int?) throws -> (RegistrationAccuracy, HeadReconstruction) {
        var options = ReconstructionOptions.default
        options.fusion.maximumFrames = budget
        let result = try reconstructHead(scan, options: options)
        return (RegistrationAccuracy(result: result, truth: truth), result)
      }
      let (all, whole) = try reconstructed(atMost: nil)
      let budget = whole.framesFused / 3
      let (third, part) = try reconstructed(atMost: budget)
      let vault = String(
        format: "vault RMS after alignment: %d frames fused %.3f mm (%d points), %d frames %.3f mm (%d points)", whole.framesFused,
        all.aligned.cloudRMS, all.aligned.cloudPointsScored, part.framesFused, third.aligned.cloudRMS,
        third.aligned.cloudPointsScored)
      print(vault)
      #expect(whole.framesFused > 60, "\(vault)")
      #expect(part.framesFused == budget)
      let noiseOnly = (Double(whole.framesFused) / Double(part.framesFused)).squareRoot()
      #expect(third.aligned.cloudRMS < noiseOnly * all.aligned.cloudRMS, "\(vault)")
      #expect(Double(third.aligned.cloudPointsScored) >= 0.9 * Double(all.aligned.cloudPointsScored), "\(vault)")
    }
  }
}
