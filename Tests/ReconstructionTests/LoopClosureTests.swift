import Foundation
import PointCloud
import Reconstruction
import Registration
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// Frames that close the loop round the head: the chain maps each marker from frames placed
/// through earlier ones, so its map drifts, and a frame that sees both ends of the loop can
/// misfit it by millimetres although its own markers are right.
struct LoopClosureTests {
  /// A realistic-preset scan (150 frames, CI 92, CVAI 1, seed 8) in which the chain's map has
  /// drifted by the time frames 135 and 139 see the first and the last markers mapped: their
  /// lifted corners lie within 2 mm of the simulator's true corners, yet fit the chain's map only
  /// to 9 mm. The chain says so (``FrameRejection/markersDoNotFit(millimetres:)``, not "not
  /// linked"); the optimisation places them against the corrected map, where they fit like the
  /// other frames, and `reconstructHead` registers them (the left-ear landmark lies in frame 135).
  @Test func framesMisfittingTheDriftedChainArePlacedAfterOptimisation() throws {
    try TestFiles.withTemporaryFolder { folder in
      let options = SimulationOptions(preset: .realistic, frames: 150, seed: 8, head: .init(cranialIndex: 92, cvai: 1, flattenedSide: .right))
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let truth = try simulateScan(options, to: path, format: .stream).truth
      let scan = try openScan(at: path)
      let observed = try observeScan(scan)
      let chain = try chainFrames(observed)
      let misfitting = chain.solution.frames.indices.filter {
        if case .markersDoNotFit = chain.solution.frames[$0].rejection { return true } else { return false }
      }
      #expect(misfitting == [135, 139], "\(misfitting.map { "\($0): \(chain.solution.frames[$0].rejection.map(String.init(describing:)) ?? "")" })")
      // Their own markers are right: lifted corners against the truth, in the head frame.
      let corners = Dictionary(uniqueKeysWithValues: truth.markers.map { ($0.id, $0.corners) })
      for f in misfitting {
        let headFromCamera = truth.cameras[f].headFromCamera
        let errors = observed.frames[f].lifted.compactMap { m in
          corners[m.id].map { zip(m.cameraCorners.map(headFromCamera.apply), $0).map { ($0 - $1).length }.max() ?? 0 }
        }
        #expect(!errors.isEmpty && errors.max()! < 0.002, "frame \(f): corners off by up to \((errors.max() ?? 0) * 1000) mm")
      }
      let optimised = try optimiseMap(chain)
      let rms = optimised.optimisedFrames.map { optimised.solution.frames[$0].rms ?? 0 }.sorted()
      let median = rms[rms.count / 2]
      for f in misfitting {
        #expect(optimised.optimisedFrames.contains(f) && optimised.solution.frames[f].rejection == nil, "frame \(f)")
        let own = optimised.solution.frames[f].rms ?? .infinity
        #expect(own < 3 * median, "frame \(f): corner RMS \(own * 1000) mm against the median frame's \(median * 1000) mm")
      }
      let registration = try keepMarkers(resectFrames(optimised))
      for f in misfitting { #expect(registration.frames[f].worldFromCamera != nil, "frame \(f) registered") }
    }
  }
}
