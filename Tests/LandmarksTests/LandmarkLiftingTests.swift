import Foundation
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// Pixel landmarks lifted onto the fused surface (`liftLandmarks`) against the simulator's exact
/// landmarks, on a scan whose per-pixel depth noise is large (realistic preset at twice its
/// noise: σ = 0.8 mm at 20 cm, 1.8 mm at 30 cm). A frame's own depth there leaves each landmark
/// a millimetre or more off and tilts the landmarks' head frame by tenths of a degree, which on
/// a plagiocephalic head moves CVAI by tenths of a point.
struct LandmarkLiftingTests {
  @Test func pixelLandmarksLandOnTheFusedSurface() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      SimulationPreset.realistic.apply(to: &o)
      o.frames = 90
      o.seed = 12
      o.sensor.depthNoise = 0.0008
      o.head = .init(cranialIndex: 85, cvai: 10, flattenedSide: .right)
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let simulated = try simulateScan(o, to: path, format: .stream)
      var options = MeasureOptions.default
      options.bootstrap = false
      let measured = try measureScan(at: path, options: options)

      // Truth in the registration's world: through the best rigid fit of the whole marker map to
      // the true stickers (one sticker's pose would carry its own error into every comparison).
      let truthMarkers = Dictionary(uniqueKeysWithValues: simulated.truth.markers.map { ($0.id, $0) })
      let pairs = measured.reconstruction.markers.compactMap { m in truthMarkers[m.id].map { (m.corners, $0.corners) } }
      let fit = try #require(RigidTransform.bestFit(from: pairs.flatMap(\.0), to: pairs.flatMap(\.1)))
      let worldFromTruthHead = fit.transform.inverse
      let lifted = try #require(measured.headFrame.landmarks).named
      for ((name, truth), (_, found)) in zip(simulated.truth.landmarks.named, lifted) {
        let error = (found - worldFromTruthHead.apply(truth)).length
        #expect(error < 0.001, "\(name): \(error * 1000) mm off")
      }

      // The landmarks' head frame against the truth's own (both moved into the world).
      let t = simulated.truth.landmarks
      let truthFrame = try HeadFrame(
        nasion: worldFromTruthHead.apply(t.nasion), noseTip: worldFromTruthHead.apply(t.noseTip),
        leftEar: worldFromTruthHead.apply(t.leftEar), rightEar: worldFromTruthHead.apply(t.rightEar))
      let difference = measured.headFrame.headFromWorld.rotation * truthFrame.headFromWorld.rotation.transposed
      let angle = difference.angle * 180 / .pi
      #expect(angle < 0.2, "\(String(format: "head frame %.3f° from the truth's landmarks' frame", angle))")
    }
  }
}
