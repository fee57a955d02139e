/// Whether two closed triangles meet anywhere but where a mesh lets them — the narrow phase of
/// ``MeshIntersections``, on ``ExactPredicates``' exact signs.
///
/// Two closed triangles meet exactly when an edge of one meets the other (the ends of their
/// intersection lie on their edges). An edge meets a triangle when its ends are not strictly on
/// one side of the triangle's plane and the line through it passes through the triangle (the
/// three orientations of the line with the triangle's edges do not differ in sign); a segment
/// in the triangle's plane is tested in the projection on the coordinate plane the triangle
/// projects onto without collapsing. Triangles that share corners may touch there:
/// - sharing an edge, they meet elsewhere only when they lie in one plane on the same side of
///   it (a fold);
/// - sharing a corner `u`, they meet elsewhere when the edge of one opposite `u` meets the other,
///   or an edge of one from `u` lies in the other's plane inside its angle at `u`;
/// - sharing all three, they are the same triangle twice.
///
/// A triangle whose corners are collinear (zero area) is taken as the segments of its edges;
/// sharing a corner with another triangle, it counts as meeting it.
struct TriangleIntersection {
  /// A triangle's corners in double precision, whether they are collinear, and the coordinate
  /// plane it projects onto faithfully (the axis along which its normal has its largest
  /// nonzero component).
  struct Triangle {
    var corners: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    var isFlat: Bool
    var axis: Int

    init(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) {
      corners = (a, b, c)
      let n = cross(b - a, c - a)
      var best = -1
      for k in 0..<3 where TriangleIntersection.normalComponentSign(a, b, c, along: k) != 0 {
        if best < 0 || abs(n[k]) > abs(n[best]) { best = k }
      }
      isFlat = best < 0
      axis = max(best, 0)
    }

    subscript(_ i: Int) -> SIMD3<Double> { i == 0 ? corners.0 : i == 1 ? corners.1 : corners.2 }
  }

  /// The exact sign of component `k` of `(b − a) × (c − a)`.
  static func normalComponentSign(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, along k: Int) -> Int {
    ExactPredicates.orientation2D(a, b, c, (k + 1) % 3, (k + 2) % 3)
  }

  // MARK: Pairs with no shared corner

  /// Whether the closed triangles have a point in common.
  static func meet(_ p: Triangle, _ q: Triangle) -> Bool {
    // Strictly on one side of the other's plane: apart.
    if !p.isFlat {
      let s = (0..<3).map { ExactPredicates.orientation(p[0], p[1], p[2], q[$0]) }
      if s.allSatisfy({ $0 > 0 }) || s.allSatisfy({ $0 < 0 }) { return false }
    }
    if !q.isFlat {
      let s = (0..<3).map { ExactPredicates.orientation(q[0], q[1], q[2], p[$0]) }
      if s.allSatisfy({ $0 > 0 }) || s.allSatisfy({ $0 < 0 }) { return false }
    }
    for i in 0..<3 where segmentMeetsTriangle(p[i], p[(i + 1) % 3], q) { return true }
    for i in 0..<3 where segmentMeetsTriangle(q[i], q[(i + 1) % 3], p) { return true }
    return false
  }

  /// Whether the closed segment `a`–`b` and the closed triangle `t` have a point in common.
  static func segmentMeetsTriangle(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ t: Triangle) -> Bool {
    if t.isFlat {
      return (0..<3).contains { segmentsMeet(a, b, t[$0], t[($0 + 1) % 3]) }
    }
    let sa = ExactPredicates.orientation(t[0], t[1], t[2], a), sb = ExactPredicates.orientation(t[0], t[1], t[2], b)
    if sa != 0 && sa == sb { return false }
    if sa == 0 && sb == 0 {
      let (i, j) = ((t.axis + 1) % 3, (t.axis + 2) % 3)
      return segmentMeetsTriangle2D(a, b, t[0], t[1], t[2], i, j)
    }
    // The segment crosses or touches the plane at one point: inside the triangle when the line
    // a–b passes no edge on the outside (Plücker signs all ≥ 0 or all ≤ 0).
    let s0 = ExactPredicates.orientation(a, b, t[0], t[1])
    let s1 = ExactPredicates.orientation(a, b, t[1], t[2])
    let s2 = ExactPredicates.orientation(a, b, t[2], t[0])
    return !((s0 > 0 || s1 > 0 || s2 > 0) && (s0 < 0 || s1 < 0 || s2 < 0))
  }

  /// Whether two closed segments in space have a point in common.
  static func segmentsMeet(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ d: SIMD3<Double>) -> Bool {
    guard ExactPredicates.orientation(a, b, c, d) == 0 else { return false }
    let (i, j) = projectionPlane([a, b, c, d])
    return segmentsMeet2D(a, b, c, d, i, j)
  }

  /// A coordinate plane `(i, j)` onto which points that lie in one plane (or on one line) project
  /// without two of their differences collapsing.
  static func projectionPlane(_ points: [SIMD3<Double>]) -> (Int, Int) {
    guard let first = points.first, let other = points.first(where: { $0 != first }) else { return (0, 1) }
    let u = other - first
    for p in points {
      let n = cross(u, p - first)
      var best = -1
      for k in 0..<3 where normalComponentSign(first, other, p, along: k) != 0 {
        if best < 0 || abs(n[k]) > abs(n[best]) { best = k }
      }
      if best >= 0 { return ((best + 1) % 3, (best + 2) % 3) }
    }
    // All on one line: drop the coordinate along which it runs least.
    let k = abs(u.x) <= abs(u.y) && abs(u.x) <= abs(u.z) ? 0 : abs(u.y) <= abs(u.z) ? 1 : 2
    return ((k + 1) % 3, (k + 2) % 3)
  }

  /// Whether the closed segment `a`–`b` meets the closed triangle `p`, `q`, `r`, all in one plane,
  /// in coordinates `i`, `j`.
  static func segmentMeetsTriangle2D(
    _ a: SIMD3<Double>, _ b: SIMD3<Double>, _ p: SIMD3<Double>, _ q: SIMD3<Double>, _ r: SIMD3<Double>, _ i: Int, _ j: Int
  ) -> Bool {
    let turn = ExactPredicates.orientation2D(p, q, r, i, j)
    if turn != 0 && (pointInTriangle2D(a, p, q, r, turn, i, j) || pointInTriangle2D(b, p, q, r, turn, i, j)) { return true }
    return segmentsMeet2D(a, b, p, q, i, j) || segmentsMeet2D(a, b, q, r, i, j) || segmentsMeet2D(a, b, r, p, i, j)
  }

  /// Whether `x` lies in the closed triangle `p`, `q`, `r` turning `turn` (±1) in coordinates `i`, `j`.
  static func pointInTriangle2D(
    _ x: SIMD3<Double>, _ p: SIMD3<Double>, _ q: SIMD3<Double>, _ r: SIMD3<Double>, _ turn: Int, _ i: Int, _ j: Int
  ) -> Bool {
    ExactPredicates.orientation2D(p, q, x, i, j) * turn >= 0 && ExactPredicates.orientation2D(q, r, x, i, j) * turn >= 0
      && ExactPredicates.orientation2D(r, p, x, i, j) * turn >= 0
  }

  /// Whether the closed segments `a`–`b` and `c`–`d` meet, in coordinates `i`, `j`.
  static func segmentsMeet2D(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ d: SIMD3<Double>, _ i: Int, _ j: Int) -> Bool {
    let o1 = ExactPredicates.orientation2D(a, b, c, i, j), o2 = ExactPredicates.orientation2D(a, b, d, i, j)
    let o3 = ExactPredicates.orientation2D(c, d, a, i, j), o4 = ExactPredicates.orientation2D(c, d, b, i, j)
    if o1 * o2 < 0 && o3 * o4 < 0 { return true }
    /// `x` on the segment `s`–`e`, given that the three are collinear.
    func within(_ x: SIMD3<Double>, _ s: SIMD3<Double>, _ e: SIMD3<Double>) -> Bool {
      min(s[i], e[i]) <= x[i] && x[i] <= max(s[i], e[i]) && min(s[j], e[j]) <= x[j] && x[j] <= max(s[j], e[j])
    }
    return (o1 == 0 && within(c, a, b)) || (o2 == 0 && within(d, a, b)) || (o3 == 0 && within(a, c, d)) || (o4 == 0 && within(b, c, d))
  }

  // MARK: Pairs that share corners

  /// Whether triangles `(u, v, a)` and `(u, v, b)` (in either turn), sharing the edge `u`–`v`,
  /// meet off it.
  static func meetOffSharedEdge(_ t: Triangle, u: SIMD3<Double>, v: SIMD3<Double>, a: SIMD3<Double>, _ other: Triangle, b: SIMD3<Double>) -> Bool {
    if t.isFlat || other.isFlat { return true }
    guard ExactPredicates.orientation(u, v, a, b) == 0 else { return false }
    let (i, j) = ((t.axis + 1) % 3, (t.axis + 2) % 3)
    return ExactPredicates.orientation2D(u, v, a, i, j) * ExactPredicates.orientation2D(u, v, b, i, j) > 0
  }

  /// Whether triangles `(u, a, b)` and `(u, c, d)` (in either turn), sharing the corner `u`, meet
  /// anywhere else.
  static func meetOffSharedCorner(
    _ t: Triangle, u: SIMD3<Double>, a: SIMD3<Double>, b: SIMD3<Double>, _ other: Triangle, c: SIMD3<Double>, d: SIMD3<Double>
  ) -> Bool {
    if t.isFlat || other.isFlat { return true }
    if segmentMeetsTriangle(a, b, other) || segmentMeetsTriangle(c, d, t) { return true }
    /// Whether the edge from `u` to `x` runs into triangle `(u, p, q)` (plane `s`) beyond `u`.
    func edgeEnters(_ x: SIMD3<Double>, _ s: Triangle, _ p: SIMD3<Double>, _ q: SIMD3<Double>) -> Bool {
      guard ExactPredicates.orientation(u, p, q, x) == 0 else { return false }
      let (i, j) = ((s.axis + 1) % 3, (s.axis + 2) % 3)
      let turn = ExactPredicates.orientation2D(u, p, q, i, j)
      return ExactPredicates.orientation2D(u, p, x, i, j) * turn >= 0 && ExactPredicates.orientation2D(u, x, q, i, j) * turn >= 0
    }
    return edgeEnters(a, other, c, d) || edgeEnters(b, other, c, d) || edgeEnters(c, t, a, b) || edgeEnters(d, t, a, b)
  }

  // MARK: Distance

  /// The distance between two triangles that do not meet (double precision): the least of
  /// each corner's distance to the other triangle and each edge's to each edge of the other.
  static func distance(_ p: Triangle, _ q: Triangle) -> Double {
    var least = Double.infinity
    for i in 0..<3 {
      least = min(least, pointTriangleDistance(p[i], q), pointTriangleDistance(q[i], p))
      for j in 0..<3 { least = min(least, segmentDistance(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3])) }
    }
    return least
  }

  static func pointSegmentDistance(_ x: SIMD3<Double>, _ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let d = b - a, l = (d * d).sum()
    let t = l > 0 ? max(0, min(1, ((x - a) * d).sum() / l)) : 0
    let r = x - (a + t * d)
    return (r * r).sum().squareRoot()
  }

  static func pointTriangleDistance(_ x: SIMD3<Double>, _ t: Triangle) -> Double {
    let edges = min(pointSegmentDistance(x, t[0], t[1]), pointSegmentDistance(x, t[1], t[2]), pointSegmentDistance(x, t[2], t[0]))
    let n = cross(t[1] - t[0], t[2] - t[0]), nn = (n * n).sum()
    guard nn > 0 else { return edges }
    // Inside the triangle's prism: the distance to its plane.
    let inside = (0..<3).allSatisfy { k in (cross(t[(k + 1) % 3] - t[k], x - t[k]) * n).sum() >= 0 }
    return inside ? abs(((x - t[0]) * n).sum()) / nn.squareRoot() : edges
  }

  /// Distance between segments `a`–`b` and `c`–`d`: at an end of one, or where both are
  /// crossed by their common perpendicular.
  static func segmentDistance(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ d: SIMD3<Double>) -> Double {
    var least = min(pointSegmentDistance(a, c, d), pointSegmentDistance(b, c, d), pointSegmentDistance(c, a, b), pointSegmentDistance(d, a, b))
    let u = b - a, v = d - c, w = a - c
    let uu = (u * u).sum(), uv = (u * v).sum(), vv = (v * v).sum(), uw = (u * w).sum(), vw = (v * w).sum()
    let det = uu * vv - uv * uv
    if det > 1e-12 * uu * vv {
      let s = (uv * vw - vv * uw) / det, t = (uu * vw - uv * uw) / det
      if s > 0 && s < 1 && t > 0 && t < 1 {
        let r = (a + s * u) - (c + t * v)
        least = min(least, (r * r).sum().squareRoot())
      }
    }
    return least
  }
}
