/// A point cloud: positions in metres (`Float`), optional normals and colours.
///
/// Bulk points are `Float`; poses that act on them are `Double`
/// (``RigidTransform``). Arrays that are present have one entry per point.
public struct PointSet: Sendable, Equatable {
  /// Positions, metres, in the frame the owner documents.
  public var positions: [SIMD3<Float>]
  /// Unit normals, or empty.
  public var normals: [SIMD3<Float>]
  /// Colours as (r, g, b), or empty.
  public var colors: [SIMD3<UInt8>]

  public init(positions: [SIMD3<Float>] = [], normals: [SIMD3<Float>] = [], colors: [SIMD3<UInt8>] = []) {
    precondition(normals.isEmpty || normals.count == positions.count, "one normal per point")
    precondition(colors.isEmpty || colors.count == positions.count, "one colour per point")
    self.positions = positions
    self.normals = normals
    self.colors = colors
  }

  /// Number of points.
  public var count: Int { positions.count }

  /// The set moved by `transform` (positions and normals).
  public func transformed(by transform: RigidTransform) -> PointSet {
    let r = transform.rotation, t = transform.translation
    func move(_ p: SIMD3<Float>) -> SIMD3<Float> {
      SIMD3<Float>(r * SIMD3<Double>(p) + t)
    }
    func turn(_ n: SIMD3<Float>) -> SIMD3<Float> { SIMD3<Float>(r * SIMD3<Double>(n)) }
    return PointSet(positions: positions.map(move), normals: normals.map(turn), colors: colors)
  }
}
