import Foundation
import PointCloud
import ScanIO
import Testing
import _HeadScanSupport

@testable import Fusion
@testable import Registration

/// The settling stage and the head sphere against exact spheres: corners set off the surface
/// by known amounts come back onto it along the normal, and the sphere through exact points is
/// the sphere they were drawn from.
struct MarkerSettlingTests {
  static let centre = SIMD3<Double>(0.01, -0.02, 0.03), radius = 0.075

  /// About one point per mm² of the sphere (the Fibonacci lattice), with outward normals.
  static func sphereCloud() -> PointSet {
    let count = Int(4 * Double.pi * radius * radius * 1e6)
    let golden = Double.pi * (3 - 5.0.squareRoot())
    var cloud = PointSet()
    for i in 0..<count {
      let z = 1 - 2 * (Double(i) + 0.5) / Double(count), r = (1 - z * z).squareRoot()
      let n = SIMD3(r * cos(golden * Double(i)), r * sin(golden * Double(i)), z)
      cloud.positions.append(SIMD3<Float>(centre + radius * n))
      cloud.normals.append(SIMD3<Float>(n))
    }
    return cloud
  }

  @Test func theSphereThroughExactPointsIsTheirSphere() throws {
    var random = SeededGenerator(seed: 3)
    // A cap of the sphere only (as the fused head is), with and without noise along the radius.
    let directions = (0..<400).map { _ -> SIMD3<Double> in
      let z = 0.3 + 0.7 * random.uniform(), t = 2 * Double.pi * random.uniform(), r = (1 - z * z).squareRoot()
      return SIMD3(r * cos(t), r * sin(t), z)
    }
    let exact = try #require(Sphere(fitting: directions.map { Self.centre + Self.radius * $0 }))
    #expect((exact.centre - Self.centre).length < 1e-9 && abs(exact.radius - Self.radius) < 1e-9, "\(exact)")
    let noisy = try #require(Sphere(fitting: directions.map { Self.centre + (Self.radius + 0.0002 * random.gaussian()) * $0 }))
    #expect((noisy.centre - Self.centre).length < 0.0005 && abs(noisy.radius - Self.radius) < 0.0005, "\(noisy)")
    // Too few points, or points that pin no sphere (all in one plane), give none.
    #expect(Sphere(fitting: Array(directions.prefix(3)).map { Self.centre + Self.radius * $0 }) == nil)
    #expect(Sphere(fitting: (0..<50).map { _ in SIMD3(random.uniform(), random.uniform(), 0) }) == nil)
  }

  @Test func cornersOffTheSurfaceSettleOntoItAlongTheNormal() throws {
    let cloud = Self.sphereCloud()
    // Four markers, their corners 16 mm squares tangent to the sphere, lifted off it by
    // −0.6…+0.9 mm along the radius (a sticker's corners as one frame's noisy depth leaves them).
    let offsets = [-0.0006, 0.0003, 0.0009, -0.0002]
    var markers: [RegisteredMarker] = []
    var truth: [[SIMD3<Double>]] = []
    for (k, direction) in [SIMD3<Double>(0, 0, 1), SIMD3(1, 0, 1).normalized, SIMD3(0, -1, 0.5).normalized, SIMD3(-1, 1, 1).normalized].enumerated() {
      let pose = RigidTransform.lookAt(eye: Self.centre, target: Self.centre + direction, up: [0, 0, 1] == direction ? [0, 1, 0] : [0, 0, 1])
      let onSphere = RigidTransform.squareModel(side: 0.016).map { corner -> SIMD3<Double> in
        let d = (pose.apply(corner + SIMD3(0, 0, Self.radius)) - Self.centre).normalized
        return Self.centre + Self.radius * d
      }
      truth.append(onSphere)
      let lifted = onSphere.map { $0 + offsets[k] * ($0 - Self.centre).normalized }
      markers.append(RegisteredMarker(id: 3 + k, corners: lifted, observations: 10 + k, rms: 0.0001 * Double(k)))
    }
    let registration = MarkerRegistration(
      context: ScanContext(path: "sphere", colour: CameraIntrinsics(fx: 593, fy: 593, cx: 319.5, cy: 239.5, width: 640, height: 480),
        markerSideLength: 0.016),
      frames: [], markers: markers, markerFits: [], noise: ScanNoise(), worldMarkerID: 3, cornerRMS: 0.0001, mappedCentres: [])
    let settled = try settleMarkers(registration, on: cloud)
    #expect(settled.markers.map(\.id) == [3, 4, 5, 6])
    #expect(settled.markers.map(\.observations) == [10, 11, 12, 13] && settled.markers.map(\.rms) == markers.map(\.rms))
    for (marker, exact) in zip(settled.markers, truth) {
      for (corner, target) in zip(marker.corners, exact) {
        // On the sphere to within a few micrometres (a quadratic over 100 points a millimetre
        // apart; float positions), where the normal through the lifted corner meets it.
        #expect(abs((corner - Self.centre).length - Self.radius) < 0.000005, "marker \(marker.id): \((corner - Self.centre).length - Self.radius) m off")
        #expect((corner - target).length < 0.00001, "marker \(marker.id): \((corner - target).length * 1000) mm from its corner")
      }
      // The pose follows the settled corners.
      #expect(marker.worldFromMarker == RigidTransform(squareCorners: marker.corners))
    }
    // Nothing else changes.
    #expect(settled.worldMarkerID == 3 && settled.cornerRMS == 0.0001 && settled.context.path == "sphere")
  }
}
