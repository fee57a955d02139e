import _HeadScanSupport
import PointCloud

extension TriangleMesh {
  /// Points spread over the triangles at about one per `spacing × spacing` of area (each
  /// triangle gets ⌊area/spacing² + u⌋ uniform random points, `u` uniform from a seeded
  /// generator, so the density is even on average whatever the triangles' sizes), with each
  /// point's triangle normal and nearest corner's colour: a dense cloud of the mesh's surface
  /// to measure as if it were a scan.
  /// - Parameters:
  ///   - spacing: in the positions' unit.
  ///   - includeFilled: also sample triangles with a filled corner (default `false`: measured
  ///     surface only).
  ///   - seed: the generator's seed, for repeatable points.
  public func sampledPoints(spacing: Double, includeFilled: Bool = false, seed: UInt64 = 1) -> PointSet {
    guard spacing > 0, spacing.isFinite else { return PointSet() }
    var rng = SeededGenerator(seed: seed)
    var points = PointSet()
    let normals = triangleNormals
    let hasColours = colours.count == vertexCount
    let unitArea = spacing * spacing
    for t in triangles.indices {
      let f = triangles[t]
      if !includeFilled && (filled[Int(f.x)] || filled[Int(f.y)] || filled[Int(f.z)]) { continue }
      let (a, b, c) = corners(t)
      let n = SIMD3<Double>(cross(b - a, c - a))
      let area = 0.5 * (n * n).sum().squareRoot()
      let count = Int((area / unitArea + rng.uniform()).rounded(.down))
      for _ in 0..<count {
        var u = rng.uniform(), v = rng.uniform()
        if u + v > 1 { (u, v) = (1 - u, 1 - v) }
        let p = SIMD3<Double>(a) + u * SIMD3<Double>(b - a) + v * SIMD3<Double>(c - a)
        points.positions.append(SIMD3<Float>(p))
        points.normals.append(normals[t])
        if hasColours {
          let nearest = u > 0.5 ? f.y : v > 0.5 ? f.z : (1 - u - v) > 0.5 ? f.x : (u > v ? f.y : f.z)
          points.colors.append(colours[Int(nearest)])
        }
      }
    }
    return points
  }
}
