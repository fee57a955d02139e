import Foundation

/// A 3×3 rotation matrix in `Double`, stored by rows.
///
/// The few helpers pose arithmetic needs, over the standard library's SIMD
/// types (the `simd` module is Apple-only).
public struct Rotation3: Sendable, Hashable, Codable {
  /// Rows of the matrix.
  public var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
    get { (r0, r1, r2) }
    set { (r0, r1, r2) = newValue }
  }
  public var r0: SIMD3<Double>
  public var r1: SIMD3<Double>
  public var r2: SIMD3<Double>

  /// The identity.
  public static let identity = Rotation3(r0: [1, 0, 0], r1: [0, 1, 0], r2: [0, 0, 1])

  public init(r0: SIMD3<Double>, r1: SIMD3<Double>, r2: SIMD3<Double>) {
    self.r0 = r0
    self.r1 = r1
    self.r2 = r2
  }

  /// The rotation whose columns are the given axes (each the image of a basis vector).
  public init(columns x: SIMD3<Double>, _ y: SIMD3<Double>, _ z: SIMD3<Double>) {
    r0 = SIMD3(x.x, y.x, z.x)
    r1 = SIMD3(x.y, y.y, z.y)
    r2 = SIMD3(x.z, y.z, z.z)
  }

  /// Rotation by `angle` radians about the unit `axis` (right hand).
  public init(axis: SIMD3<Double>, angle: Double) {
    let a = axis / axis.length
    let c = cos(angle), s = sin(angle), t = 1 - c
    r0 = SIMD3(t * a.x * a.x + c, t * a.x * a.y - s * a.z, t * a.x * a.z + s * a.y)
    r1 = SIMD3(t * a.x * a.y + s * a.z, t * a.y * a.y + c, t * a.y * a.z - s * a.x)
    r2 = SIMD3(t * a.x * a.z - s * a.y, t * a.y * a.z + s * a.x, t * a.z * a.z + c)
  }

  /// From a Rodrigues vector (axis × angle, radians).
  public init(rotationVector v: SIMD3<Double>) {
    let angle = v.length
    self = angle < 1e-12 ? .identity : Rotation3(axis: v / angle, angle: angle)
  }

  /// Columns: the images of x, y and z.
  public var columns: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
    (SIMD3(r0.x, r1.x, r2.x), SIMD3(r0.y, r1.y, r2.y), SIMD3(r0.z, r1.z, r2.z))
  }

  /// The inverse (the transpose).
  public var transposed: Rotation3 {
    let (c0, c1, c2) = columns
    return Rotation3(r0: c0, r1: c1, r2: c2)
  }

  /// Rotation angle in radians, 0…π.
  public var angle: Double {
    let trace = r0.x + r1.y + r2.z
    return acos(max(-1, min(1, (trace - 1) / 2)))
  }

  /// The Rodrigues vector (axis × angle).
  public var rotationVector: SIMD3<Double> {
    let theta = angle
    if theta < 1e-12 { return .zero }
    let axis = SIMD3(r2.y - r1.z, r0.z - r2.x, r1.x - r0.y)
    if theta < .pi - 1e-6 { return axis / (2 * sin(theta)) * theta }
    // Near π the antisymmetric part vanishes: the axis comes from the symmetric part,
    // (R + Rᵀ)/2 = cos θ·I + (1 − cos θ)·a aᵀ, as the column of a aᵀ with the largest diagonal
    // entry (the best conditioned), its sign from what is left of the antisymmetric part.
    let c = cos(theta), scale = 1 / (1 - c)
    let outer = (
      SIMD3((r0.x - c) * scale, (r0.y + r1.x) / 2 * scale, (r0.z + r2.x) / 2 * scale),
      SIMD3((r1.x + r0.y) / 2 * scale, (r1.y - c) * scale, (r1.z + r2.y) / 2 * scale),
      SIMD3((r2.x + r0.z) / 2 * scale, (r2.y + r1.z) / 2 * scale, (r2.z - c) * scale))
    let column = outer.0.x >= outer.1.y && outer.0.x >= outer.2.z ? outer.0 : (outer.1.y >= outer.2.z ? outer.1 : outer.2)
    var a = column / column.length
    if (a * axis).sum() < 0 { a = -a }
    return a * theta
  }

  @inlinable
  public static func * (m: Rotation3, v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3((m.r0 * v).sum(), (m.r1 * v).sum(), (m.r2 * v).sum())
  }

  public static func * (a: Rotation3, b: Rotation3) -> Rotation3 {
    let (c0, c1, c2) = b.columns
    return Rotation3(columns: a * c0, a * c1, a * c2)
  }

  /// The nearest rotation to an almost-orthonormal matrix (Gram–Schmidt on x, then y).
  public var orthonormalized: Rotation3 {
    let (cx, cy, _) = columns
    let x = cx / cx.length
    var y = cy - (cy * x).sum() * x
    y /= y.length
    return Rotation3(columns: x, y, x.cross(y))
  }
}

extension SIMD3 where Scalar == Double {
  /// Euclidean length.
  @inlinable public var length: Double { (self * self).sum().squareRoot() }
  /// Cross product.
  @inlinable public func cross(_ o: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
  }
  /// Dot product.
  @inlinable public func dot(_ o: SIMD3<Double>) -> Double { (self * o).sum() }
  /// This vector scaled to length 1.
  @inlinable public var normalized: SIMD3<Double> { self / length }
}
