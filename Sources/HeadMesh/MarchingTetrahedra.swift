/// The zero level of an ``ImplicitGrid`` as triangles: each grid cube is cut into the six
/// tetrahedra around its main diagonal (Kuhn's triangulation, the same in every cube, so
/// neighbouring cubes share their face diagonals) and the linear interpolant of each
/// tetrahedron's corner values is cut at zero.
///
/// Unlike marching cubes there is no ambiguous case: the level set of a piecewise-linear
/// function on a triangulation with no vertex exactly at zero is a closed 2-manifold, so every
/// edge of the result is shared by exactly two triangles as long as the grid's outer faces are
/// all on one side. Values within a thousandth of a spacing of zero are moved to + that first,
/// so every grid vertex has a side.
///
/// The signs alone make the triangles; each vertex is then placed on its grid edge where the
/// algebraic spheres fitted at the edge's two ends cross it (``ImplicitGrid/spheres``), not at
/// the linear interpolation of the two distances, which lies inside a convex surface.
///
/// Wherever a vertex sits inside its grid edge, each triangle lies in its tetrahedron (the hull
/// of points on the tetrahedron's edges) and meets a neighbouring tetrahedron's triangles only
/// in the vertices and edges they share on the common face: the triangles cannot intersect.
/// Each vertex is kept at least ``cornerMargin`` of its edge from the edge's ends
/// (``keptOffCorners(_:)``): where the zero level passes within micrometres of a grid vertex,
/// the triangles around it would otherwise be micrometres across, and triangles sharing no
/// corner would come that close to each other — apart, but close enough for a checker that
/// works in floating point with a tolerance (Open3D's) to take them for intersecting.
struct MarchingTetrahedra {
  /// The least distance of a vertex from either end of its grid edge, as a fraction of the
  /// edge: a hundredth (20 µm along an axis edge at the default 2 mm spacing).
  static let cornerMargin = 0.01

  /// `fraction` (along an edge, 0…1) moved off the ends: within twice ``cornerMargin`` of an
  /// end, the distance from it is halved and the margin added — continuous and increasing, so
  /// vertices keep their order along the edge and none land on the same spot.
  static func keptOffCorners(_ fraction: Double) -> Double {
    let m = cornerMargin, t = max(0, min(1, fraction))
    if t < 2 * m { return m + t / 2 }
    if t > 1 - 2 * m { return 1 - m - (1 - t) / 2 }
    return t
  }

  /// The triangles and, per vertex, the grid edge it lies on and where along it.
  struct Result {
    var positions: [SIMD3<Float>] = []
    /// Grid vertices at the edge's ends (outside first) and the fraction from the first.
    var edges: [(outside: Int, inside: Int, fraction: Float)] = []
    var triangles: [SIMD3<Int32>] = []
  }

  /// Cube corner offsets by bit (x = 1, y = 2, z = 4).
  private static let corner: [SIMD3<Int>] = (0..<8).map { SIMD3($0 & 1, ($0 >> 1) & 1, ($0 >> 2) & 1) }
  /// The six tetrahedra (cube corner bits): from corner 0 to corner 7 one axis at a time.
  private static let tetrahedra: [SIMD4<Int>] = [
    SIMD4(0, 1, 3, 7), SIMD4(0, 1, 5, 7), SIMD4(0, 2, 3, 7), SIMD4(0, 2, 6, 7), SIMD4(0, 4, 5, 7), SIMD4(0, 4, 6, 7),
  ]

  static func extract(_ grid: ImplicitGrid) -> Result {
    let snap = Float(1e-3 * grid.spacing)
    let values = grid.values.map { abs($0) < snap ? snap : $0 }
    var result = Result()
    var vertexOfEdge: [Int: Int32] = [:]
    let size = grid.size
    let offsets = corner.map { grid.index($0.x, $0.y, $0.z) }

    /// The mesh vertex on the grid edge from `a` (outside, ≥ 0) to `b` (inside, < 0).
    func vertex(_ a: Int, _ b: Int) -> Int32 {
      let key = min(a, b) * grid.count + max(a, b)
      if let v = vertexOfEdge[key] { return v }
      let linear = values[a] / (values[a] - values[b])
      let pa = position(a), pb = position(b)
      let t = Float(keptOffCorners(crossing(a, b, pa, pb, linear: Double(linear))))
      let v = Int32(result.positions.count)
      result.positions.append(SIMD3<Float>(pa + Double(t) * (pb - pa)))
      result.edges.append((a, b, t))
      vertexOfEdge[key] = v
      return v
    }
    /// Where the surface crosses the edge from `a` to `b`, as a fraction from `a`: each end's
    /// fitted sphere crossed along the edge, weighted by nearness (each fit is exact at its own
    /// vertex); the linear interpolation of the values unless both ends are measured and
    /// surrounded by their points (elsewhere the fits extrapolate) and both spheres cross the edge. The distance to a curved surface is convex along an edge that
    /// runs across it, so the linear zero lies inside a convex surface, by up to an eighth of
    /// the edge's squared length across the normal times the curvature.
    func crossing(_ a: Int, _ b: Int, _ pa: SIMD3<Double>, _ pb: SIMD3<Double>, linear: Double) -> Double {
      let sa = grid.measuredSlot[a], sb = grid.measuredSlot[b]
      guard sa >= 0, sb >= 0, grid.surrounded[Int(sa)], grid.surrounded[Int(sb)] else { return linear }
      let edge = pb - pa
      guard let fromA = grid.spheres[Int(sa)].crossing(along: edge, in: 0...1, nearestTo: linear),
        let fromB = grid.spheres[Int(sb)].crossing(along: edge, in: -1...0, nearestTo: linear - 1)
      else { return linear }
      return (1 - linear) * fromA + linear * (1 + fromB)
    }
    func position(_ v: Int) -> SIMD3<Double> {
      let i = v % size.x, j = (v / size.x) % size.y, k = v / (size.x * size.y)
      return grid.position(i, j, k)
    }
    /// Orientation (sign of the determinant) of the corner offsets b − a, c − a, d − a.
    func orientation(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Int {
      let u = corner[b] &- corner[a], v = corner[c] &- corner[a], w = corner[d] &- corner[a]
      let det = u.x * (v.y * w.z - v.z * w.y) - u.y * (v.x * w.z - v.z * w.x) + u.z * (v.x * w.y - v.y * w.x)
      return det.signum()
    }

    // The cubes with corners on both sides (one pass over the grid with plain numbers).
    var mixed: [Int] = []
    values.withUnsafeBufferPointer { u in
      let (o1, o2, o3, o4, o5, o6, o7) = (offsets[1], offsets[2], offsets[3], offsets[4], offsets[5], offsets[6], offsets[7])
      for k in 0..<(size.z - 1) {
        for j in 0..<(size.y - 1) {
          let row = (k * size.y + j) * size.x
          for i in 0..<(size.x - 1) {
            let b = row + i
            let s = u[b] >= 0
            if (u[b + o1] >= 0) != s || (u[b + o2] >= 0) != s || (u[b + o3] >= 0) != s || (u[b + o4] >= 0) != s
              || (u[b + o5] >= 0) != s || (u[b + o6] >= 0) != s || (u[b + o7] >= 0) != s
            {
              mixed.append(b)
            }
          }
        }
      }
    }
    for base in mixed {
        do {
          for tet in tetrahedra {
            let ids = [tet[0], tet[1], tet[2], tet[3]]
            let pos = ids.filter { values[base + offsets[$0]] >= 0 }, neg = ids.filter { values[base + offsets[$0]] < 0 }
            switch (pos.count, neg.count) {
            case (1, 3), (3, 1):
              // One corner alone: a triangle across its three edges, facing it if it is outside.
              let lone = pos.count == 1 ? pos[0] : neg[0]
              let others = pos.count == 1 ? neg : pos
              var q = others.map { o in
                pos.count == 1 ? vertex(base + offsets[lone], base + offsets[o]) : vertex(base + offsets[o], base + offsets[lone])
              }
              // det(A − L, B − L, C − L) < 0 ⇔ the triangle (qA, qB, qC) faces L.
              let facesLone = orientation(lone, others[0], others[1], others[2]) < 0
              if facesLone != (pos.count == 1) { q.swapAt(1, 2) }
              result.triangles.append(SIMD3(q[0], q[1], q[2]))
            case (2, 2):
              // A quad through the edges P1N1, P1N2, P2N2, P2N1, cut along P1N1–P2N2.
              let (p1, p2, n1, n2) = (pos[0], pos[1], neg[0], neg[1])
              let q11 = vertex(base + offsets[p1], base + offsets[n1]), q12 = vertex(base + offsets[p1], base + offsets[n2])
              let q22 = vertex(base + offsets[p2], base + offsets[n2]), q21 = vertex(base + offsets[p2], base + offsets[n1])
              if orientation(p1, n1, n2, p2) > 0 {
                result.triangles.append(SIMD3(q11, q21, q22))
                result.triangles.append(SIMD3(q11, q22, q12))
              } else {
                result.triangles.append(SIMD3(q11, q12, q22))
                result.triangles.append(SIMD3(q11, q22, q21))
              }
            default: break
            }
          }
        }
    }
    return result
  }
}
