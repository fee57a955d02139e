/// A rigid motion `p ↦ R p + t` in `Double`, metres.
///
/// Name values by the frames they connect, `targetFromSource`:
/// `worldFromMarker = worldFromCamera * cameraFromMarker` reads right to left.
public struct RigidTransform: Sendable, Hashable, Codable {
  /// Rotation part.
  public var rotation: Rotation3
  /// Translation part, metres.
  public var translation: SIMD3<Double>

  /// The identity.
  public static let identity = RigidTransform(rotation: .identity, translation: .zero)

  public init(rotation: Rotation3, translation: SIMD3<Double>) {
    self.rotation = rotation
    self.translation = translation
  }

  /// The inverse motion (`sourceFromTarget`).
  public var inverse: RigidTransform {
    let rt = rotation.transposed
    return RigidTransform(rotation: rt, translation: -(rt * translation))
  }

  /// Applies the motion to a point.
  @inlinable
  public func apply(_ p: SIMD3<Double>) -> SIMD3<Double> { rotation * p + translation }

  /// Composition: `(a * b).apply(p) == a.apply(b.apply(p))`.
  public static func * (a: RigidTransform, b: RigidTransform) -> RigidTransform {
    RigidTransform(rotation: a.rotation * b.rotation, translation: a.rotation * b.translation + a.translation)
  }

  /// A look-at pose: `worldFromCamera` for a camera at `eye` looking at `target`,
  /// OpenCV camera axes (x right, y down, z forward), `up` roughly image-up.
  public static func lookAt(eye: SIMD3<Double>, target: SIMD3<Double>, up: SIMD3<Double>) -> RigidTransform {
    let z = (target - eye).normalized
    let x = z.cross(up).normalized
    let y = z.cross(x)
    return RigidTransform(rotation: Rotation3(columns: x, y, z), translation: eye)
  }

  /// Rotation angle between two transforms, radians, and translation distance, metres.
  public func difference(to other: RigidTransform) -> (angle: Double, distance: Double) {
    ((rotation.transposed * other.rotation).angle, (translation - other.translation).length)
  }
}
