import Foundation
import PointCloud
@testable import Registration
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// A frame whose mapped markers do not fit the map together is left unplaced by the chain and
/// says why: ``FrameRejection/markersDoNotFit(millimetres:)`` with the corner RMS of its markers'
/// best rigid fit onto the map, not "not linked" (which would send a user looking for missing
/// stickers rather than at the frame's depth).
struct UnplacedFrameDiagnosisTests {
  /// Frame 20 of a 48-frame default-preset scan (seed 8) with its depth read twice as far (as a
  /// depth frame in the wrong unit or from another stream would be): every lifted corner moved
  /// out along its ray to twice its distance, which no rigid motion undoes. Its five markers then
  /// lie centimetres from where the others put them; the chain drops three as misreads, one at a
  /// time, cannot place the frame on the last two (they misfit the map by more than a printed
  /// side) and records the misfit of those two. The optimisation does not place it either, and
  /// every frame the intact scan's chain placed is placed. (With the depth read only 30 % long,
  /// the chain places the frame on its last two markers and its outlier test then unplaces it,
  /// the same rejection by another path.)
  @Test func aFrameWhoseDepthIsWrongIsRejectedWithItsMisfit() throws {
    try TestFiles.withTemporaryFolder { folder in
      let options = SimulationOptions(preset: .default, frames: 48, seed: 8, head: .init(cranialIndex: 84, cvai: 6, flattenedSide: .right))
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      _ = try simulateScan(options, to: path, format: .stream)
      var observed = try observeScan(try openScan(at: path))
      let intact = try chainFrames(observed)
      let glitch = 20
      let depthLifted = observed.frames[glitch].lifted.filter { $0.method == .depth }
      try #require(depthLifted.count >= 3, "frame \(glitch) lifts \(depthLifted.count) markers by depth")
      try #require(intact.solution.mapFromCamera[glitch] != nil, "frame \(glitch) placed on the intact scan")
      for m in observed.frames[glitch].lifted.indices {
        observed.frames[glitch].lifted[m].cameraCorners = observed.frames[glitch].lifted[m].cameraCorners.map { $0 * 2 }
      }

      let chain = try chainFrames(observed)
      #expect(chain.solution.mapFromCamera[glitch] == nil)
      guard case .markersDoNotFit(let millimetres)? = chain.solution.frames[glitch].rejection else {
        Issue.record("frame \(glitch): \(chain.solution.frames[glitch].rejection.map(String.init(describing:)) ?? "no rejection")")
        return
      }
      // What is left of its markers misfits the map by far more than a misread's distance
      // (a printed side, 16 mm), and is the fit of the markers the chain kept for it.
      #expect(millimetres > chain.misreadDistance * 1000, "misfit \(millimetres) mm")
      let kept = chain.solution.markers[glitch].filter { chain.solution.map[$0.id] != nil }
      #expect(!kept.isEmpty)
      let (_, rms) = try NativeGeometry.rigidFit(
        from: kept.flatMap(\.cameraCorners), to: kept.flatMap { chain.solution.map[$0.id] ?? [] })
      #expect(abs(rms * 1000 - millimetres) < 1e-6, "recorded \(millimetres) mm, refitted \(rms * 1000) mm")
      // The rest of the scan is not disturbed: every frame the intact chain placed is placed.
      let placedBefore = Set(intact.solution.mapFromCamera.keys).subtracting([glitch])
      #expect(placedBefore.isSubset(of: Set(chain.solution.mapFromCamera.keys)))

      let optimised = try optimiseMap(chain)
      #expect(optimised.solution.mapFromCamera[glitch] == nil || optimised.solution.frames[glitch].rejection != nil)
      if case .markersDoNotFit? = optimised.solution.frames[glitch].rejection {} else {
        Issue.record("after optimisation: \(optimised.solution.frames[glitch].rejection.map(String.init(describing:)) ?? "no rejection")")
      }
    }
  }
}
