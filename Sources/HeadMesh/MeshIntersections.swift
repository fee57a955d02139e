import Foundation
import _HeadScanSupport

/// The pairs of a mesh's triangles that intersect: two triangles with no corner in common that
/// have any point in common (touching included), and two that share a corner or an edge but
/// meet anywhere else (a fold onto each other, an edge through the other). A mesh with none is
/// free of self-intersections — with ``MeshTopology/isClosedManifold``, what CAD tools and
/// slicers call watertight (Open3D's `is_watertight()`).
///
/// The test is exact: on the positions as stored (single-precision floats, taken exactly as
/// doubles), every sign it decides — which side of a plane a corner lies, which way a line
/// passes an edge — is the sign of the exact determinant (``ExactPredicates``), so touching at
/// a point counts and a gap of any size, however small, does not. Candidate pairs are the
/// triangles whose bounding boxes overlap, found through a uniform grid of cells about a
/// triangle's size; each pair is tested once, in the cell holding the low corner of their
/// boxes' overlap, the cells shared out over the processor cores. A head mesh of 130 000
/// triangles takes about a quarter of a second of CPU.
public struct MeshIntersections: Sendable, Hashable {
  /// The intersecting pairs, as triangle indices (smaller first), in increasing order.
  public var pairs: [SIMD2<Int32>]

  /// Number of intersecting pairs.
  public var count: Int { pairs.count }

  /// The triangles in at least one intersecting pair, in increasing order.
  public var triangles: [Int] { Array(Set(pairs.flatMap { [Int($0.x), Int($0.y)] })).sorted() }

  /// The intersecting pairs of `mesh`'s triangles. Triangles with a corner index outside the
  /// vertices are left out.
  /// - Parameter clearance: also count two triangles with no corner in common that come closer
  ///   than this (in the positions' unit; 0, the default: only those that touch or cross). Their
  ///   distance is computed in double precision (the least of the corner–triangle and edge–edge
  ///   distances), good to about 1e-15 of the coordinates. A checker that works in floating point
  ///   with a tolerance (Open3D's, Möller's test with its ε) takes such near contacts for contacts.
  public init(_ mesh: TriangleMesh, clearance: Double = 0) {
    pairs = Self.intersectingPairs(mesh.positions, mesh.triangles, among: nil, clearance: max(0, clearance))
  }

  /// The intersecting pairs of which at least one triangle is in `among` (sorted or not).
  static func pairs(of mesh: TriangleMesh, involving among: [Int]) -> [SIMD2<Int32>] {
    Self.intersectingPairs(mesh.positions, mesh.triangles, among: among, clearance: 0)
  }

  private static func intersectingPairs(
    _ positions: [SIMD3<Float>], _ triangles: [SIMD3<Int32>], among: [Int]?, clearance: Double
  ) -> [SIMD2<Int32>] {
    let n = positions.count
    let valid = triangles.indices.filter { t in triangles[t].min() >= 0 && Int(triangles[t].max()) < n }
    guard valid.count > 1 else { return [] }
    var marked: [Bool]?
    if let among {
      var m = [Bool](repeating: false, count: triangles.count)
      for t in among where t >= 0 && t < triangles.count { m[t] = true }
      marked = m
      if !m.contains(true) { return [] }
    }
    // Boxes (grown by half the clearance: they overlap where the triangles may be that close),
    // and a cell side of about the mean box's largest side.
    var low = [SIMD3<Double>](repeating: .zero, count: triangles.count)
    var high = low
    var extent: Double = 0
    var meshLow = SIMD3<Double>(repeating: .infinity), meshHigh = SIMD3<Double>(repeating: -.infinity)
    let grow = SIMD3<Double>(repeating: clearance / 2)
    for t in valid {
      let f = triangles[t]
      let a = SIMD3<Double>(positions[Int(f.x)]), b = SIMD3<Double>(positions[Int(f.y)]), c = SIMD3<Double>(positions[Int(f.z)])
      low[t] = pointwiseMin(a, pointwiseMin(b, c)) - grow
      high[t] = pointwiseMax(a, pointwiseMax(b, c)) + grow
      extent += (high[t] - low[t]).max()
      meshLow = pointwiseMin(meshLow, low[t])
      meshHigh = pointwiseMax(meshHigh, high[t])
    }
    guard meshLow.x.isFinite, meshLow.y.isFinite, meshLow.z.isFinite, meshHigh.x.isFinite, meshHigh.y.isFinite, meshHigh.z.isFinite else {
      return []
    }
    let span = meshHigh - meshLow
    var side = max(extent / Double(valid.count), span.max() / 1e5, 1e-30)
    // Coarser cells while boxes would fill too many (a few huge triangles).
    func cells(_ t: Int, _ side: Double) -> (SIMD3<Int>, SIMD3<Int>) {
      let l = ((low[t] - meshLow) / side).rounded(.down), h = ((high[t] - meshLow) / side).rounded(.down)
      return (SIMD3<Int>(l), SIMD3<Int>(h))
    }
    while true {
      var entries = 0
      for t in valid {
        let (l, h) = cells(t, side)
        entries += (h.x - l.x + 1) * (h.y - l.y + 1) * (h.z - l.z + 1)
        if entries > 16 * valid.count + 1_000_000 { break }
      }
      if entries <= 16 * valid.count + 1_000_000 { break }
      side *= 2
    }
    let dims = SIMD3<Int>((span / side).rounded(.down)) &+ 1
    func key(_ c: SIMD3<Int>) -> Int { (c.z * dims.y + c.y) * dims.x + c.x }
    var entries: [(cell: Int, triangle: Int32)] = []
    for t in valid {
      let (l, h) = cells(t, side)
      for z in l.z...h.z {
        for y in l.y...h.y {
          for x in l.x...h.x { entries.append((key(SIMD3(x, y, z)), Int32(t))) }
        }
      }
    }
    entries.sort { ($0.cell, $0.triangle) < ($1.cell, $1.triangle) }
    var groups: [Range<Int>] = []
    var start = 0
    while start < entries.count {
      var end = start + 1
      while end < entries.count && entries[end].cell == entries[start].cell { end += 1 }
      if end - start > 1 { groups.append(start..<end) }
      start = end
    }
    // Shares of about equal work (pairs per group grow as its size squared).
    var shares: [Range<Int>] = []
    let totalWork = groups.reduce(0) { $0 + $1.count * $1.count }
    let perShare = max(1, totalWork / 64)
    var shareStart = 0, work = 0
    for (g, range) in groups.enumerated() {
      work += range.count * range.count
      if work >= perShare || g == groups.count - 1 {
        shares.append(shareStart..<(g + 1))
        shareStart = g + 1
        work = 0
      }
    }
    let doubles = positions.map { SIMD3<Double>($0) }
    let found = ResultSlots<[SIMD2<Int32>]>(count: shares.count)
    let context = (entries, groups, low, high, doubles, triangles, marked, meshLow, side, dims, shares)
    forEachIndexConcurrently(shares.count, workers: ProcessInfo.processInfo.activeProcessorCount) { s in
      let (entries, groups, low, high, positions, triangles, marked, meshLow, side, dims, shares) = context
      var pairs: [SIMD2<Int32>] = []
      for g in shares[s] {
        let range = groups[g]
        let cell = entries[range.lowerBound].cell
        for x in range {
          let ta = Int(entries[x].triangle)
          for y in (x + 1)..<range.upperBound {
            let tb = Int(entries[y].triangle)
            if let marked, !marked[ta] && !marked[tb] { continue }
            let overlapLow = pointwiseMax(low[ta], low[tb]), overlapHigh = pointwiseMin(high[ta], high[tb])
            guard all(overlapLow .<= overlapHigh) else { continue }
            // Tested in one cell only: the one holding the overlap's low corner.
            let c = SIMD3<Int>(((overlapLow - meshLow) / side).rounded(.down))
            guard (c.z * dims.y + c.y) * dims.x + c.x == cell else { continue }
            if intersect(ta, tb, triangles, positions, clearance: clearance) { pairs.append(SIMD2(Int32(ta), Int32(tb))) }
          }
        }
      }
      found.store(pairs, at: s)
    }
    return found.takeAll().flatMap { $0 }.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
  }

  /// Whether triangles `a` and `b` (a < b) meet where a mesh does not let them, or, sharing no
  /// corner, come closer than `clearance`.
  static func intersect(_ a: Int, _ b: Int, _ triangles: [SIMD3<Int32>], _ positions: [SIMD3<Double>], clearance: Double) -> Bool {
    let f = triangles[a], g = triangles[b]
    let p = TriangleIntersection.Triangle(positions[Int(f.x)], positions[Int(f.y)], positions[Int(f.z)])
    let q = TriangleIntersection.Triangle(positions[Int(g.x)], positions[Int(g.y)], positions[Int(g.z)])
    // Which of f's corners are g's.
    var shared: [(Int, Int)] = []
    for i in 0..<3 {
      for j in 0..<3 where f[i] == g[j] { shared.append((i, j)) }
    }
    // A triangle with a repeated corner is a segment or a point: taken as meeting any triangle
    // it shares a corner with.
    if f.x == f.y || f.y == f.z || f.z == f.x || g.x == g.y || g.y == g.z || g.z == g.x {
      return shared.isEmpty ? TriangleIntersection.meet(p, q) || (clearance > 0 && TriangleIntersection.distance(p, q) < clearance) : true
    }
    switch shared.count {
    case 0:
      return TriangleIntersection.meet(p, q) || (clearance > 0 && TriangleIntersection.distance(p, q) < clearance)
    case 1:
      let (i, j) = shared[0]
      return TriangleIntersection.meetOffSharedCorner(
        p, u: p[i], a: p[(i + 1) % 3], b: p[(i + 2) % 3], q, c: q[(j + 1) % 3], d: q[(j + 2) % 3])
    case 2:
      let i = 3 - shared[0].0 - shared[1].0, j = 3 - shared[0].1 - shared[1].1
      return TriangleIntersection.meetOffSharedEdge(p, u: p[shared[0].0], v: p[shared[1].0], a: p[i], q, b: q[j])
    default:
      return true
    }
  }
}
