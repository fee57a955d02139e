import Foundation
import PointCloud
@testable import Registration
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// The scale the stickers show, when it is applied, and what applying it does to a scan and a
/// registration.
struct MetricScaleTests {
  func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }

  static func check(estimate: Double, uncertainty: Double, edgeFitted: Bool = true) -> IntrinsicsCheck {
    IntrinsicsCheck(
      statedFocalLength: 600, focalLengthEstimate: estimate, focalLengthUncertainty: uncertainty, cornerBias: 0, markersUsed: 40,
      framesUsed: 20, smallestSide: 25, limit: 0.02, edgeFittedCorners: edgeFitted)
  }

  @Test func theFactorIsTheEstimateOverTheFocalLengthUsed() throws {
    let scale = try #require(MetricScale(check: Self.check(estimate: 606, uncertainty: 1.212), focalLengthUsed: 600, source: .auto))
    #expect(abs(scale.depthScaleFactor - 1.01) < 1e-12)
    #expect(abs(scale.uncertainty - 0.002) < 1e-12)
    // Against a focal length given on the command line, not the stated one.
    let refocused = try #require(MetricScale(check: Self.check(estimate: 606, uncertainty: 1.212), focalLengthUsed: 606, source: .auto))
    #expect(refocused.depthScaleFactor == 1 && !refocused.applied)
    #expect(MetricScale(check: nil, focalLengthUsed: 600, source: .markers) == nil)
  }

  @Test func autoAppliesOnlyWhatTheMarkersTell() throws {
    // 1 % off, ±0.2 %: applied; 0.3 % off, ±0.2 %: inside the 95 % interval, kept.
    #expect(MetricScale(check: Self.check(estimate: 606, uncertainty: 1.2), focalLengthUsed: 600, source: .auto)?.applied == true)
    #expect(MetricScale(check: Self.check(estimate: 601.8, uncertainty: 1.2), focalLengthUsed: 600, source: .auto)?.applied == false)
    // Without edge-fitted corners a corner bias may be left: kept, however far off.
    #expect(MetricScale(check: Self.check(estimate: 580, uncertainty: 1.2, edgeFitted: false), focalLengthUsed: 600, source: .auto)?.applied == false)
    // markers applies whatever it shows; depth never.
    #expect(MetricScale(check: Self.check(estimate: 601.8, uncertainty: 1.2), focalLengthUsed: 600, source: .markers)?.applied == true)
    #expect(MetricScale(check: Self.check(estimate: 606, uncertainty: 1.2), focalLengthUsed: 600, source: .depth)?.applied == false)
  }

  /// A default-preset scan of `frames` frames at 320×240 in `folder`, opened.
  static func smallScan(frames: Int, in folder: URL) throws -> any ScanReader {
    var o = SimulationOptions()
    o.frames = frames
    o.width = 320
    o.height = 240
    let path = folder.appendingPathComponent("scan.rgbdscan").path
    _ = try simulateScan(o, to: path, format: .stream)
    return try openScan(at: path)
  }

  @Test func aDepthScaledScanMultipliesDepthOnly() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try Self.smallScan(frames: 1, in: folder)
      let scaled = DepthScaledScan(scan, factor: 0.99)
      let a = try scan.frame(at: 0), b = try scaled.frame(at: 0)
      #expect(sameContents(a.color.bgra, b.color.bgra) && a.depth.intrinsics == b.depth.intrinsics && scaled.header == scan.header)
      let pairs = zip(a.depth.metres, b.depth.metres).filter { $0.0.isFinite && $0.0 > 0 }
      #expect(pairs.count > 100 && pairs.allSatisfy { abs($0.1 / $0.0 - 0.99) < 1e-6 })
      var spare: ScanFrame? = try scan.frame(at: 0)
      try scaled.readFrame(at: 0, into: &spare)
      #expect(sameContents(spare?.depth.metres.map(\.bitPattern) ?? [], b.depth.metres.map(\.bitPattern)) && sameContents(spare?.color.bgra ?? [], b.color.bgra))
    }
  }

  @Test func aScaledRegistrationScalesPositionsAndKeepsRotations() throws {
    let corners = [SIMD3(0.0, 0, 0.3), SIMD3(0.016, 0, 0.3), SIMD3(0.016, 0.016, 0.3), SIMD3(0, 0.016, 0.3)]
    let marker = RegisteredMarker(id: 3, corners: corners, observations: 12, rms: 0.0002)
    var frame = FrameDiagnostics(index: 0, timestamp: 0, detectedIDs: [3], liftedByDepth: 1, liftedByPnP: 0)
    let pose = RigidTransform(rotation: Rotation3(axis: SIMD3(0, 1, 0), angle: 0.3), translation: SIMD3(0.1, -0.2, 0.05))
    frame.worldFromCamera = pose
    let registration = MarkerRegistration(
      context: ScanContext(path: "x", colour: CameraIntrinsics(fx: 600, fy: 600, cx: 320, cy: 240, width: 640, height: 480), markerSideLength: 0.016),
      frames: [frame], markers: [marker], markerFits: [], noise: ScanNoise(), worldMarkerID: 3, cornerRMS: 0.0003,
      mappedCentres: [SIMD3(0.008, 0.008, 0.3)])
    let scaled = registration.scaled(by: 0.99)
    #expect(scaled.markers[0].corners.map { $0 / 0.99 }.enumerated().allSatisfy { distance($0.element, corners[$0.offset]) < 1e-12 })
    let scaledPose = try #require(scaled.frames[0].worldFromCamera)
    #expect(scaledPose.rotation == pose.rotation && distance(scaledPose.translation, pose.translation * 0.99) < 1e-12)
    #expect(distance(scaled.mappedCentres[0], SIMD3(0.008, 0.008, 0.3) * 0.99) < 1e-12)
    #expect(scaled.cornerRMS == registration.cornerRMS)
  }
}
