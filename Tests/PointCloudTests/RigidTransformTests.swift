import Foundation
import PointCloud
import Testing

/// Rotations and rigid transforms against values worked out by hand, and the square-marker
/// pose (docs/formats.md, world frame: a sticker's frame from its four corners).
struct RigidTransformTests {
  static func close(_ a: SIMD3<Double>, _ b: SIMD3<Double>, within tolerance: Double = 1e-12) -> Bool {
    (a - b).length <= tolerance
  }

  static func close(_ a: Rotation3, _ b: Rotation3, within tolerance: Double = 1e-12) -> Bool {
    close(a.r0, b.r0, within: tolerance) && close(a.r1, b.r1, within: tolerance) && close(a.r2, b.r2, within: tolerance)
  }

  /// Rotations about skew axes by angles over the whole range.
  static let rotations: [Rotation3] = [
    (SIMD3<Double>(1, 2, 3), 0.3), (SIMD3(-0.4, 0.1, 0.9), 1.2), (SIMD3(0, 0, 1), 2.9), (SIMD3(1, -1, 0.2), .pi - 1e-3),
    (SIMD3(0.2, 0.7, -0.7), 1e-7),
  ].map { Rotation3(axis: $0.0, angle: $0.1) }

  @Test func aQuarterTurnAboutZTakesXToY() {
    let r = Rotation3(axis: [0, 0, 2], angle: .pi / 2)
    #expect(Self.close(r * SIMD3(1, 0, 0), [0, 1, 0]))
    #expect(Self.close(r * SIMD3(0, 1, 0), [-1, 0, 0]))
    #expect(Self.close(r * SIMD3(0, 0, 1), [0, 0, 1]))
    #expect(abs(r.angle - .pi / 2) < 1e-12)
    // The columns are the images of the axes, the rows their transpose.
    let (x, y, z) = r.columns
    #expect(Self.close(x, [0, 1, 0]) && Self.close(y, [-1, 0, 0]) && Self.close(z, [0, 0, 1]))
    #expect(Self.close(Rotation3(columns: x, y, z), r))
    #expect(Self.close(r.transposed * SIMD3(0, 1, 0), [1, 0, 0]))
    // A third of a turn about (1, 1, 1) cycles the axes.
    let cycle = Rotation3(axis: [1, 1, 1], angle: 2 * .pi / 3)
    #expect(Self.close(cycle * SIMD3(1, 0, 0), [0, 1, 0]) && Self.close(cycle * SIMD3(0, 1, 0), [0, 0, 1]))
  }

  @Test func rotationsComposeRightToLeftAndTheTransposeUndoesThem() {
    let a = Rotation3(axis: [0, 0, 1], angle: .pi / 2), b = Rotation3(axis: [1, 0, 0], angle: .pi / 2)
    // b first (y → z), then a (z stays): y ↦ z. The other order: y ↦ −x ↦ −x.
    #expect(Self.close((a * b) * SIMD3(0, 1, 0), [0, 0, 1]))
    #expect(Self.close((b * a) * SIMD3(0, 1, 0), [-1, 0, 0]))
    for r in Self.rotations {
      #expect(Self.close(r * r.transposed, .identity, within: 1e-12))
      #expect(Self.close(r.transposed * r, .identity, within: 1e-12))
      // Orthonormal with determinant +1.
      let (x, y, z) = r.columns
      #expect(abs(x.length - 1) < 1e-12 && abs(x.dot(y)) < 1e-12 && Self.close(x.cross(y), z, within: 1e-12))
    }
  }

  @Test func axisAngleAndRotationVectorRoundTrip() {
    for (axis, angle) in [
      (SIMD3<Double>(1, 2, 3), 0.3), (SIMD3(-0.4, 0.1, 0.9), 1.2), (SIMD3(0, 0, 1), 2.9), (SIMD3(1, -1, 0.2), 3.0),
      (SIMD3(0.3, -0.5, 0.8), .pi - 1e-2), (SIMD3(0.2, 0.7, -0.7), 1e-7),
    ] {
      let r = Rotation3(axis: axis, angle: angle)
      #expect(abs(r.angle - angle) < 1e-7, "\(axis), \(angle)")
      let v = r.rotationVector
      #expect(Self.close(v, axis.normalized * angle, within: 1e-9), "\(axis), \(angle): \(v)")
      #expect(Self.close(Rotation3(rotationVector: v), r, within: 1e-10))
    }
    #expect(Rotation3.identity.rotationVector == .zero && Rotation3(rotationVector: .zero) == .identity)
    // Half a turn: the axis (up to its sign, which is the same rotation) from the symmetric part.
    for axis in [SIMD3<Double>(1, 0, 0), SIMD3(0, 0, 1), SIMD3(1, 2, -2), SIMD3(-3, 1, 2)] {
      let r = Rotation3(axis: axis, angle: .pi)
      let v = r.rotationVector
      #expect(abs(v.length - .pi) < 1e-7 && abs(abs(v.normalized.dot(axis.normalized)) - 1) < 1e-9, "\(axis): \(v)")
      #expect(Self.close(Rotation3(rotationVector: v), r, within: 1e-7))
    }
  }

  /// Half a turn about an axis across x (no x component) and with y and z of opposite signs:
  /// the axis from the diagonal alone loses the sign between y and z (it takes signs from the
  /// first row, which is zero off the diagonal there), so the vector names the mirrored axis.
  @Test func halfATurnAboutAnAxisAcrossXKeepsItsAxis() {
    let axis = SIMD3<Double>(0, 1, -1).normalized
    let r = Rotation3(axis: axis, angle: .pi)
    let v = r.rotationVector
    #expect(abs(abs(v.normalized.dot(axis)) - 1) < 1e-9, "\(v)")
    #expect(Self.close(Rotation3(rotationVector: v), r, within: 1e-7))
    // Just short of a half turn the sign of the axis is the rotation's, not its mirror's.
    for angle in [Double.pi - 1e-4, .pi - 1e-7] {
      let near = Rotation3(axis: axis, angle: angle)
      #expect(Self.close(Rotation3(rotationVector: near.rotationVector), near, within: 1e-7), "\(near.rotationVector)")
    }
  }

  @Test func orthonormalizingKeepsXAndRestoresARotation() {
    let r = Rotation3(axis: [0.2, -0.3, 0.9], angle: 0.8)
    var bent = r
    bent.r0.y += 0.01
    bent.r2.x -= 0.02
    let fixed = bent.orthonormalized
    #expect(Self.close(fixed * fixed.transposed, .identity, within: 1e-12))
    #expect(Self.close(fixed.columns.0, bent.columns.0.normalized, within: 1e-12))
    #expect(Self.close(r.orthonormalized, r, within: 1e-12))
  }

  @Test func transformsComposeInvertAndMeasureTheirDifference() {
    let a = RigidTransform(rotation: Rotation3(axis: [0, 0, 1], angle: .pi / 2), translation: [1, 0, 0])
    let b = RigidTransform(rotation: Rotation3(axis: [1, 0, 0], angle: .pi / 2), translation: [0, 2, 0])
    // (a * b)(p) = a(b(p)): (0, 0, 1) ↦ b: (0, −1, 0) + (0, 2, 0) = (0, 1, 0) ↦ a: (−1, 0, 0) + (1, 0, 0).
    #expect(Self.close((a * b).apply([0, 0, 1]), [0, 0, 0]))
    #expect(Self.close((b * a).apply([0, 0, 1]), [1, 1, 0]), "a: (1, 0, 1); b: (1, −1, 0) + (0, 2, 0)")
    #expect(Self.close(a.apply(b.apply([0.3, -0.2, 0.5])), (a * b).apply([0.3, -0.2, 0.5])))
    for t in [a, b, a * b, RigidTransform(rotation: Self.rotations[1], translation: [0.05, -0.02, 0.3])] {
      #expect(Self.close((t * t.inverse).rotation, .identity) && Self.close((t * t.inverse).translation, .zero, within: 1e-12))
      #expect(Self.close(t.inverse.apply(t.apply([0.1, 0.2, 0.3])), [0.1, 0.2, 0.3], within: 1e-12))
    }
    #expect(Self.close((a * b).inverse.rotation, (b.inverse * a.inverse).rotation))
    #expect(RigidTransform.identity.apply([1, 2, 3]) == [1, 2, 3])
    // The difference: a quarter turn and the distance between the translations.
    let (angle, distance) = a.difference(to: b)
    #expect(abs(angle - 2 * .pi / 3) < 1e-12, "z then x quarter turns compose to a third of a turn: \(angle)")
    #expect(abs(distance - 5.0.squareRoot()) < 1e-12)
    #expect(a.difference(to: a).angle < 1e-7 && a.difference(to: a).distance == 0)
  }

  @Test func lookAtPointsTheOpenCVCameraAtItsTarget() {
    let eye = SIMD3<Double>(0.3, 0, 0.1), target = SIMD3<Double>(0, 0, 0.1)
    let pose = RigidTransform.lookAt(eye: eye, target: target, up: [0, 0, 1])
    #expect(Self.close(pose.translation, eye))
    // z forward to the target, y down the image (against up), x right.
    #expect(Self.close(pose.rotation * SIMD3(0, 0, 1), [-1, 0, 0]))
    #expect(Self.close(pose.rotation * SIMD3(0, 1, 0), [0, 0, -1]))
    #expect(Self.close(pose.rotation * SIMD3(1, 0, 0), [0, 1, 0]))
    #expect(Self.close(pose.inverse.apply(target), [0, 0, 0.3], within: 1e-12))
  }

  @Test func aSquaresCornersGiveItsPoseBack() {
    let side = 0.016, h = side / 2
    // OpenCV order, clockwise from the printed top-left, seen from the front (z out of the face).
    #expect(RigidTransform.squareModel(side: side) == [[-h, h, 0], [h, h, 0], [h, -h, 0], [-h, -h, 0]])
    #expect(RigidTransform(squareCorners: RigidTransform.squareModel(side: side)) == .identity)
    for rotation in Self.rotations {
      let pose = RigidTransform(rotation: rotation, translation: [0.02, -0.05, 0.31])
      let fitted = RigidTransform(squareCorners: RigidTransform.squareModel(side: side).map(pose.apply))
      #expect(Self.close(fitted.rotation, pose.rotation, within: 1e-12) && Self.close(fitted.translation, pose.translation, within: 1e-15))
    }
    // On a curved cap the corners are not coplanar: corners 0 and 2 lifted by δ, 1 and 3 sunk
    // by δ keep the mean at the origin, the x and y axes (means of opposite edges) in the plane
    // and z the plane's normal.
    let d = 0.0004
    let twisted = RigidTransform.squareModel(side: side).enumerated().map { k, c in c + SIMD3(0, 0, k % 2 == 0 ? d : -d) }
    let pose = RigidTransform(squareCorners: twisted)
    #expect(Self.close(pose.translation, .zero, within: 1e-15))
    #expect(Self.close(pose.rotation, .identity, within: 1e-12))
    // A square stretched along x keeps its axes; a sheared one keeps x exactly.
    let stretched = RigidTransform.squareModel(side: side).map { SIMD3($0.x * 1.1, $0.y, $0.z) }
    #expect(Self.close(RigidTransform(squareCorners: stretched).rotation, .identity, within: 1e-12))
    let sheared = RigidTransform.squareModel(side: side).map { SIMD3($0.x + 0.2 * $0.y, $0.y, $0.z) }
    #expect(Self.close(RigidTransform(squareCorners: sheared).rotation * SIMD3(1, 0, 0), [1, 0, 0], within: 1e-12))
  }

  @Test func transformsRoundTripThroughJSON() throws {
    let t = RigidTransform(rotation: Self.rotations[0], translation: [0.1, -0.2, 0.3])
    let decoded = try JSONDecoder().decode(RigidTransform.self, from: try JSONEncoder().encode(t))
    #expect(decoded == t)
  }
}
