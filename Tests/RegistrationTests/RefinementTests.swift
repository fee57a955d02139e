import ArucoBridge
import Foundation
import PointCloud
@testable import Registration
import ScanIO
import Testing

/// Known answers for the pieces around the pose graph: blur measure, sticker shape.
struct RefinementTests {
  /// A dark square (20…60 px) on a light ground, its edges Gaussian-blurred by σ pixels, exactly.
  static func blurredSquare(sigma: Double, size: Int = 80) -> [UInt8] {
    func phi(_ x: Double) -> Double { 0.5 * (1 + erf(x / 2.squareRoot())) }
    func inside(_ t: Double) -> Double { phi((t - 20) / sigma) - phi((t - 60) / sigma) }
    var grey = [UInt8](repeating: 0, count: size * size)
    for y in 0..<size {
      for x in 0..<size {
        grey[y * size + x] = UInt8((220 - 180 * inside(Double(x)) * inside(Double(y))).rounded())
      }
    }
    return grey
  }

  static let square = DetectedMarker(id: 0, corners: [SIMD2(20, 20), SIMD2(60, 20), SIMD2(60, 60), SIMD2(20, 60)])

  @Test func edgeBlurMeasuresAGaussianStep() throws {
    // Slopes come from pixel samples: a step centred on a pixel reads up to a fifth wide
    // (1/(2·(Φ(1) − Φ(0))·√(2π)) = 1.17 at σ 1), one between pixels 4 % wide.
    let sharp = try #require(edgeBlur(of: [Self.square], grey: Self.blurredSquare(sigma: 1.0), width: 80, height: 80))
    #expect(sharp >= 1.0 && sharp <= 1.2, "σ 1 px measured as \(sharp)")
    let soft = try #require(edgeBlur(of: [Self.square], grey: Self.blurredSquare(sigma: 1.3), width: 80, height: 80))
    #expect(soft >= 1.3 && soft <= 1.3 * 1.12, "σ 1.3 px measured as \(soft)")
    // Wider than the ±3 px window: under-estimated, yet above the default limit.
    let smeared = try #require(edgeBlur(of: [Self.square], grey: Self.blurredSquare(sigma: 2.5), width: 80, height: 80))
    #expect(smeared > ChainOptions.default.maximumEdgeBlur && smeared < 2.5)
    // No contrast, no estimate.
    #expect(edgeBlur(of: [Self.square], grey: [UInt8](repeating: 128, count: 6400), width: 80, height: 80) == nil)
  }

  @Test func squareShapeErrorIsTheWorstEdgeOrDiagonal() {
    let side = 0.016
    let perfect = RigidTransform.squareModel(side: side)
    #expect(squareShapeError(perfect, side: side) < 1e-12)
    var moved = perfect
    moved[2].x += 0.0005  // corner 2 out by 0.5 mm along x: edge 1–2 unchanged to first order
    let d = (moved[2] - moved[3])
    #expect(abs(squareShapeError(moved, side: side) - max(abs((d * d).sum().squareRoot() - side), abs(((moved[2] - moved[0]) * (moved[2] - moved[0])).sum().squareRoot() - side * 2.squareRoot()))) < 1e-12)
    #expect(squareShapeError(moved, side: side) > 0.00035)
  }
}

extension RefinementTests {
  /// A point seen exactly from three cameras around it is found again from 1.5 mm away;
  /// with one view, or a start far off, triangulation refuses.
  @Test func triangulationFindsAPointFromItsExactPixels() throws {
    let colour = CameraIntrinsics(fx: 593, fy: 593, cx: 319.5, cy: 239.5, width: 640, height: 480)
    let point = SIMD3<Double>(0.012, -0.031, 0.054)
    let views = [-0.5, 0.1, 0.7].map { angle -> (cameraFromWorld: RigidTransform, pixel: SIMD2<Double>, weight: Double) in
      // Cameras 0.3 m from the origin looking at it, turned about the world's y axis.
      let rotation = Rotation3(axis: [0, 1, 0], angle: angle)
      let centre = rotation * SIMD3<Double>(0, 0, -0.3)
      let cameraFromWorld = RigidTransform(rotation: rotation, translation: centre).inverse
      let q = cameraFromWorld.apply(point)
      return (cameraFromWorld, SIMD2(593 * q.x / q.z + 319.5, 593 * q.y / q.z + 239.5), 1)
    }
    let found = try #require(triangulate(point + [0.001, -0.0005, 0.001], views: views, colour: colour))
    #expect((found - point).length < 1e-9)
    #expect(triangulate(point + [0.001, 0, 0], views: Array(views.prefix(1)), colour: colour) == nil)
    // A start 5 mm off converges, but moves more than the 2 mm allowed: refused.
    #expect(triangulate(point + [0.005, 0, 0], views: views, colour: colour) == nil)
  }
}

extension RefinementTests {
  /// Exact observations of 12 stickers on a 7 cm sphere from 36 cameras around it, one of which
  /// reads a sticker's id as another one's (DICT_4X4_50 does that now and then at grazing
  /// angles). Every frame must still be placed where it is, the misread dropped: chained
  /// through a misplaced marker, half an orbit of frames went unlinked or 36 cm astray.
  @Test func aMisreadIdDoesNotMisplaceTheChain() throws {
    let colour = CameraIntrinsics(fx: 593, fy: 593, cx: 319.5, cy: 239.5, width: 640, height: 480)
    let side = 0.016
    // Stickers on the upper half of a sphere, each facing out, turned arbitrarily in its plane.
    let markers = (0..<12).map { k -> RigidTransform in
      let azimuth = Double(k) * 2.4, elevation = 0.15 + 0.9 * Double(k % 4) / 4
      let normal = SIMD3(cos(elevation) * cos(azimuth), cos(elevation) * sin(azimuth), sin(elevation))
      let x = SIMD3<Double>(0, 0, 1).cross(normal).normalized, y = normal.cross(x)
      return RigidTransform(rotation: Rotation3(columns: x, y, normal) * Rotation3(axis: [0, 0, 1], angle: Double(k)), translation: 0.07 * normal)
    }
    // Cameras on a ring 30 cm out, 20° above the equator, looking at the centre.
    let cameras = (0..<36).map { f -> RigidTransform in
      let a = Double(f) * 10 * .pi / 180
      let centre = 0.3 * SIMD3(cos(a) * cos(0.35), sin(a) * cos(0.35), sin(0.35))
      let z = (-centre).normalized, x = SIMD3<Double>(0, 0, 1).cross(z).normalized * -1, y = z.cross(x)
      return RigidTransform(rotation: Rotation3(columns: x, y, z), translation: centre)
    }
    var lifted: [[LiftedMarker]] = []
    var diagnostics: [FrameDiagnostics] = []
    for (f, worldFromCamera) in cameras.enumerated() {
      let cameraFromWorld = worldFromCamera.inverse
      var seen: [LiftedMarker] = []
      for (id, worldFromMarker) in markers.enumerated() {
        let cameraFromMarker = cameraFromWorld * worldFromMarker
        let facing = -(cameraFromMarker.rotation * SIMD3(0, 0, 1)).dot(cameraFromMarker.translation.normalized)
        guard facing > 0.45 else { continue }
        let corners = RigidTransform.squareModel(side: side).map(cameraFromMarker.apply)
        let pixels = corners.map { colour.project($0)! }
        // Frame 12 reads marker 1 as id 4, a sticker the frames chained before it never see, so
        // the misread would be the first to put 4 on the map.
        let label = f == 12 && id == 1 ? 4 : id
        seen.append(
          LiftedMarker(
            id: label, pixelCorners: pixels, cameraCorners: corners, cameraFromMarker: cameraFromMarker, residual: 0, method: .depth,
            cornersWithoutDepth: 0, triangulationCorners: pixels))
      }
      if f == 12 { try #require(seen.filter { $0.id == 4 }.count == 1, "the misread must not collide with a true 4 in frame 12") }
      if f < 12 { try #require(!seen.contains { $0.id == 4 }, "frame \(f) sees marker 4") }
      lifted.append(seen.sorted { $0.id < $1.id })
      diagnostics.append(
        FrameDiagnostics(index: f, timestamp: Double(f) / 30, detectedIDs: seen.map(\.id), liftedByDepth: seen.count, liftedByPnP: 0))
    }
    let observations = ScanObservations(
      context: ScanContext(path: "synthetic", colour: colour, markerSideLength: side),
      frames: zip(diagnostics, lifted).map { FrameObservation(diagnostics: $0, lifted: $1, offCapDetections: 0, hasDepth: true) })
    let chain = try chainFrames(observations)
    let solution = try keepMarkers(resectFrames(try optimiseMap(chain)))
    diagnostics = solution.frames
    // The true poses in the solution's world (the world marker's own frame).
    let markerFromWorld = markers[solution.worldMarkerID].inverse
    let rejected = diagnostics.filter { $0.rejection != nil }.map(\.index)
    #expect(rejected.isEmpty, "frames not placed: \(rejected)")
    #expect(diagnostics[12].outlierIDs == [4])
    #expect(diagnostics.filter { !$0.outlierIDs.isEmpty }.map(\.index) == [12])
    for d in diagnostics {
      guard let pose = d.worldFromCamera else { continue }
      let error = (pose.translation - (markerFromWorld * cameras[d.index]).translation).length
      #expect(error < 0.0001, "frame \(d.index) off by \(error * 1000) mm")
    }
    for m in solution.markers {
      let truth = RigidTransform.squareModel(side: side).map((markerFromWorld * markers[m.id]).apply)
      let error = zip(m.corners, truth).map { ($0 - $1).length }.max()!
      #expect(error < 0.0001, "marker \(m.id) off by \(error * 1000) mm")
    }
  }
}
