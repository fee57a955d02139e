import Foundation
import PointCloud
import Reconstruction
import Registration
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// Frames that close the loop round the head: the chain maps each marker from frames placed
/// through earlier ones, so its map can drift, and a frame that sees both ends of the loop can
/// misfit it by millimetres although its own markers are right. The chain then sets the frame
/// aside as ``FrameRejection/markersDoNotFit(millimetres:)`` and the optimisation places it again
/// against the corrected map.
struct LoopClosureTests {
  /// A realistic-preset scan (150 frames, CI 92, CVAI 1, seed 8) in which frames 135 and 139 see
  /// the first and the last markers of the loop (the left-ear landmark lies in frame 135). The
  /// test takes them out of the chain's solution as the chain does with a frame that misfits its
  /// map; their lifted corners lie within 2 mm of the simulator's true corners, and the
  /// optimisation places them where they fit like the other frames, and `reconstructHead`'s stages
  /// register them.
  @Test func framesSetAsideByTheChainArePlacedAfterOptimisation() throws {
    try TestFiles.withTemporaryFolder { folder in
      let options = SimulationOptions(preset: .realistic, frames: 150, seed: 8, head: .init(cranialIndex: 92, cvai: 1, flattenedSide: .right))
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let truth = try simulateScan(options, to: path, format: .stream).truth
      let scan = try openScan(at: path)
      let observed = try observeScan(scan)
      var chain = try chainFrames(observed)
      let setAside = [135, 139]
      for f in setAside {
        #expect(chain.solution.mapFromCamera[f] != nil, "frame \(f) placed by the chain")
        chain.solution.mapFromCamera[f] = nil
        chain.solution.frames[f].rejection = .markersDoNotFit(millimetres: 9)
      }
      // Their own markers are right: lifted corners against the truth, in the head frame.
      let corners = Dictionary(uniqueKeysWithValues: truth.markers.map { ($0.id, $0.corners) })
      for f in setAside {
        let headFromCamera = truth.cameras[f].headFromCamera
        let errors = observed.frames[f].lifted.compactMap { m in
          corners[m.id].map { zip(m.cameraCorners.map(headFromCamera.apply), $0).map { ($0 - $1).length }.max() ?? 0 }
        }
        #expect(!errors.isEmpty && errors.max()! < 0.002, "frame \(f): corners off by up to \((errors.max() ?? 0) * 1000) mm")
      }
      let optimised = try optimiseMap(chain)
      let rms = optimised.optimisedFrames.map { optimised.solution.frames[$0].rms ?? 0 }.sorted()
      let median = rms[rms.count / 2]
      for f in setAside {
        #expect(optimised.optimisedFrames.contains(f) && optimised.solution.frames[f].rejection == nil, "frame \(f)")
        let own = optimised.solution.frames[f].rms ?? .infinity
        #expect(own < 3 * median, "frame \(f): corner RMS \(own * 1000) mm against the median frame's \(median * 1000) mm")
      }
      let registration = try keepMarkers(resectFrames(optimised))
      for f in setAside { #expect(registration.frames[f].worldFromCamera != nil, "frame \(f) registered") }
    }
  }
}
