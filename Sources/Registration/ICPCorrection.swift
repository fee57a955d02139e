import PointCloud

/// The small rigid motion (world ← world) that ICP finds for one frame's points against the
/// voxel model so far, if it converges, lowers their mean squared distance to the model by
/// at least a fifth, and moves them by no more than 3 mm and 1°; otherwise `nil`.
func icpCorrection(_ points: [SIMD3<Double>], model: VoxelGrid, voxelSize: Double) -> RigidTransform? {
  let source = stride(from: 0, to: points.count, by: 16).map { SIMD3<Float>(points[$0]) }
  // The model only where this frame can reach it: its bounding box and the search margin.
  let reach = Float(3 * voxelSize)
  let low = source.reduce(SIMD3<Float>(repeating: .infinity)) { pointwiseMin($0, $1) } - reach
  let high = source.reduce(SIMD3<Float>(repeating: -.infinity)) { pointwiseMax($0, $1) } + reach
  let target = model.means(inside: low, high)
  guard target.count >= 500 else { return nil }
  guard let fit = try? NativeGeometry.icp(source, onto: target, maxDistance: 3 * voxelSize, iterations: 30),
    fit.converged, fit.after < 0.8 * fit.before
  else { return nil }
  let (angle, distance) = fit.transform.difference(to: .identity)
  guard angle <= .pi / 180, distance <= 0.003 else { return nil }
  return fit.transform
}
