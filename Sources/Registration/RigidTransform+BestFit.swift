import PointCloud

extension RigidTransform {
  /// The rigid motion that best maps `source` onto `target` in the least-squares sense
  /// (Umeyama's method through Eigen, no scale), and the RMS residual (units of the points).
  /// - Returns: `nil` for fewer than three pairs or a degenerate (collinear) set.
  public static func bestFit(from source: [SIMD3<Double>], to target: [SIMD3<Double>]) -> (transform: RigidTransform, rms: Double)? {
    precondition(source.count == target.count, "one target point per source point")
    guard source.count >= 3, let (t, rms) = try? NativeGeometry.rigidFit(from: source, to: target) else { return nil }
    return (t, rms)
  }
}
