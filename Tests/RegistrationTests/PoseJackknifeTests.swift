import Foundation
import PointCloud
@testable import Registration
import Testing

/// A frame's jackknife over its stickers (`FrameDiagnostics.poseJackknife`) against known poses.
struct PoseJackknifeTests {
  /// Four 16 mm stickers on a sphere of 70 mm radius, map frame, metres, and a camera 30 cm
  /// from them.
  static func scene() -> (map: MarkerMap, mapFromCamera: RigidTransform) {
    var map = MarkerMap()
    for (id, (theta, phi)) in [(0.35, 0.0), (0.35, 1.6), (0.35, 3.2), (0.35, 4.8)].enumerated() {
      let normal = SIMD3(sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta))
      let stickerFromMarker = RigidTransform(
        rotation: Rotation3(axis: SIMD3(0, 0, 1).cross(normal).normalized, angle: theta), translation: 0.07 * normal)
      map[id] = RigidTransform.squareModel(side: 0.016).map(stickerFromMarker.apply)
    }
    let mapFromCamera = RigidTransform(rotation: Rotation3(axis: SIMD3(1, 0, 0), angle: .pi), translation: SIMD3(0.01, -0.005, 0.37))
    return (map, mapFromCamera)
  }

  static func lifted(_ id: Int, corners: [SIMD3<Double>]) -> LiftedMarker {
    LiftedMarker(
      id: id, pixelCorners: Array(repeating: .zero, count: 4), cameraCorners: corners, cameraFromMarker: .identity, residual: 0,
      method: .depth, cornersWithoutDepth: 0, triangulationCorners: [])
  }

  /// Exact corners: every left-out fit is the same pose, so every change is the identity.
  @Test func exactCornersLeaveThePoseWhereItIs() throws {
    let (map, mapFromCamera) = Self.scene()
    let cameraFromMap = mapFromCamera.inverse
    let markers = map.ids.map { Self.lifted($0, corners: (map[$0] ?? []).map(cameraFromMap.apply)) }
    let deltas = poseJackknife(markers, map: map, kept: Set(map.ids))
    #expect(deltas.count == 4)
    for delta in deltas {
      let (angle, distance) = delta.difference(to: .identity)
      #expect(angle < 1e-9 && distance < 1e-9)
    }
  }

  /// One sticker lifted 1 mm too far along the camera's axis pulls the fit; leaving it out gives
  /// back the true pose exactly, and leaving any other out keeps the pull.
  @Test func leavingTheMisliftedStickerOutGivesTheTruePose() throws {
    let (map, mapFromCamera) = Self.scene()
    let cameraFromMap = mapFromCamera.inverse
    let markers = map.ids.map { id in
      Self.lifted(id, corners: (map[id] ?? []).map { cameraFromMap.apply($0) + (id == 2 ? SIMD3(0, 0, 0.001) : .zero) })
    }
    let deltas = poseJackknife(markers, map: map, kept: Set(map.ids))
    try #require(deltas.count == 4)
    // The fit to all four, as the jackknife makes it.
    let full = try NativeGeometry.rigidFit(from: markers.flatMap(\.cameraCorners), to: map.ids.flatMap { map[$0] ?? [] }).0
    let (angle, distance) = (full * deltas[2]).difference(to: mapFromCamera)
    #expect(angle < 1e-9 && distance < 1e-9, "\(angle) rad, \(distance) m from the true pose")
    let (pulledAngle, pulledDistance) = full.difference(to: mapFromCamera)
    #expect(pulledDistance > 1e-4 || pulledAngle > 1e-4)
    for j in [0, 1, 3] { #expect((full * deltas[j]).difference(to: mapFromCamera).distance > 1e-5) }
  }

  /// Fewer than three depth-lifted kept stickers: no jackknife; PnP-lifted and unkept ones do
  /// not count.
  @Test func fewerThanThreeStickersGiveNone() {
    let (map, mapFromCamera) = Self.scene()
    let cameraFromMap = mapFromCamera.inverse
    var markers = map.ids.map { Self.lifted($0, corners: (map[$0] ?? []).map(cameraFromMap.apply)) }
    markers[3].method = .pnp
    #expect(poseJackknife(markers, map: map, kept: [0, 1, 2, 3]).count == 3)
    #expect(poseJackknife(markers, map: map, kept: [0, 1, 3]).isEmpty)
  }
}
