import Foundation
import Reconstruction
import ScanEvaluation
import ScanIO
import Registration
import ScanSimulator
import Testing
import _TestSupport

/// The chain maps a marker from its depth-lifted views wherever depth lifts it: small, far
/// stickers lifted from their pixels alone lie centimetres astray along the ray, and frames that
/// see them one after another err alike.
struct ChainDepthMappingTests {
  /// Ten-millimetre stickers seen from 32–45 cm, the depth 1 % long (the scale study's s10:
  /// `headscan simulate S.rgbdscan --preset realistic --frames 120 --seed 320
  /// --depth-scale-error=0.01 --marker-side 10 --distance-range 0.32:0.45`). Mapped from every
  /// view, the map was tens of millimetres off and the registration failed (corner RMS 1.1 mm,
  /// markers up to 56 mm from the truth after alignment); mapped from depth, every marker lies
  /// within 1 mm of the truth after alignment and the corner RMS is 0.4 mm.
  @Test func smallFarStickersAreMappedFromDepth() throws {
    try TestFiles.withTemporaryFolder { folder in
      var options = SimulationOptions(
        preset: .realistic, frames: 120, seed: 320, head: .init(length: 0.150, cranialIndex: 80, cvai: 0, flattenedSide: .right))
      options.depthScaleError = 0.01
      options.markerSide = 0.010
      options.path.surfaceDistance = 0.32...0.45
      let path = folder.appendingPathComponent("s10.rgbdscan").path
      let truth = try simulateScan(options, to: path, format: .stream).truth
      let result = try reconstructHead(try openScan(at: path))
      let a = RegistrationAccuracy(result: result, truth: truth)
      let summary = "corner RMS \(result.cornerRMS * 1000) mm, \(a)"
      print("small far stickers: \(summary)")
      #expect(a.markers.count >= 20, "\(summary)")
      #expect(a.aligned.markerTranslation <= 2.0, "\(summary)")
      #expect(result.cornerRMS <= 0.6e-3, "\(summary)")
      #expect(a.keptFraction >= 0.85, "\(summary)")
    }
  }

  /// A frame is placed from its depth-lifted markers where it has any: frame 116 of the
  /// conditions study's noise-0.2mm scan (`headscan simulate S.rgbdscan --preset realistic
  /// --cvai 7 --ci 84 --frames 120 --seed 411 --depth-noise 0.2`, the nasion's frame) sees three
  /// stickers lifted by depth within 0.3 mm of the truth and one lifted from its pixels 27 mm
  /// astray; fitted on all four it misfit the map by 9.1 mm and the nasion could not be measured.
  @Test func aPixelLiftedStickerDoesNotPullAFramePlacedByDepth() throws {
    try TestFiles.withTemporaryFolder { folder in
      var options = SimulationOptions(
        preset: .realistic, frames: 120, seed: 411, head: .init(length: 0.150, cranialIndex: 84, cvai: 7, flattenedSide: .right))
      options.sensor.depthNoise = 0.0002
      let path = folder.appendingPathComponent("noise.rgbdscan").path
      _ = try simulateScan(options, to: path, format: .stream)
      let observed = try observeScan(try openScan(at: path))
      let methods = observed.frames[116].lifted.map(\.method)
      #expect(methods.filter { $0 == .depth }.count >= 3 && methods.contains { $0 != .depth }, "frame 116 lifts \(methods)")
      let chain = try chainFrames(observed)
      #expect(chain.solution.mapFromCamera[116] != nil, "frame 116: \(chain.solution.frames[116].rejection.map(String.init(describing:)) ?? "")")
    }
  }
}
