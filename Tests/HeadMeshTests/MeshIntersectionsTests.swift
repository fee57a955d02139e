import Foundation
import HeadMesh
import Testing

/// The exact triangle–triangle test and its broad phase (``MeshIntersections``) on hand-made
/// cases, against an independent distance computation on random pairs, and on closed meshes.
struct MeshIntersectionsTests {
  /// The number of intersecting pairs of a mesh of these triangles, given by their corners;
  /// corners equal across triangles are one vertex only where `shared` says so.
  static func count(_ a: [SIMD3<Float>], _ b: [SIMD3<Float>], sharing shared: [(Int, Int)] = []) -> Int {
    var positions = a
    var second = SIMD3<Int32>(0, 0, 0)
    for k in 0..<3 {
      if let s = shared.first(where: { $0.1 == k }) {
        second[k] = Int32(s.0)
      } else {
        second[k] = Int32(positions.count)
        positions.append(b[k])
      }
    }
    return MeshIntersections(TriangleMesh(positions: positions, triangles: [SIMD3(0, 1, 2), second])).count
  }

  static let flat: [SIMD3<Float>] = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]

  @Test func crossingTrianglesIntersect() {
    // An upright triangle through the flat one's middle.
    #expect(Self.count(Self.flat, [[0.2, 0.2, -0.5], [0.3, 0.2, 0.5], [0.2, 0.3, 0.5]]) == 1)
    // Only an edge through the other's edge (skew edges crossing at one point).
    #expect(Self.count(Self.flat, [[0.5, -0.5, 0], [0.5, 0.5, 0], [0.5, 0, 1]].map { $0 + [0, 0, 0] }) == 1)
  }

  @Test func disjointTrianglesDoNot() {
    #expect(Self.count(Self.flat, [[0, 0, 1], [1, 0, 1], [0, 1, 1]]) == 0)
    // Crossing the flat triangle's plane outside it.
    #expect(Self.count(Self.flat, [[0.8, 0.8, -0.5], [0.9, 0.8, 0.5], [0.8, 0.9, 0.5]]) == 0)
  }

  @Test func touchingWithoutSharingACornerIntersects() {
    // A corner on the other's face, an edge along the other's edge, a corner on a corner.
    #expect(Self.count(Self.flat, [[0.2, 0.2, 0], [0.3, 0.2, 1], [0.2, 0.3, 1]]) == 1)
    #expect(Self.count(Self.flat, [[0.2, 0, 0], [0.6, 0, 0], [0.4, 0, 1]]) == 1)
    #expect(Self.count(Self.flat, [[1, 0, 0], [2, 0, 1], [2, 1, 1]]) == 1)
  }

  @Test func nearlyTouchingDoesNot() {
    // A corner a float step above the face, and one a micrometre beside an edge.
    let above = Float(0).nextUp
    #expect(Self.count(Self.flat, [[0.2, 0.2, above], [0.3, 0.2, 1], [0.2, 0.3, 1]]) == 0)
    #expect(Self.count(Self.flat, [[0.5, -1e-6, -1], [0.5, -1e-6, 1], [0.5, -1, 0]]) == 0)
    #expect(Self.count(Self.flat, [[0.5, 0, -1], [0.5, 0, 1], [0.5, -1, 0]]) == 1)
    // Across the hypotenuse x + y = 1 by one float step, and exactly on it.
    let x: Float = 0.375, y: Float = 0.625
    #expect(Self.count(Self.flat, [[x, y.nextUp, -1], [x, y.nextUp, 1], [x + 1, y + 1, 0]]) == 0)
    #expect(Self.count(Self.flat, [[x, y, -1], [x, y, 1], [x + 1, y + 1, 0]]) == 1)
  }

  @Test func coplanarTriangles() {
    // Overlapping, one inside the other, side by side, touching along an edge.
    #expect(Self.count(Self.flat, [[0.5, 0.5, 0], [-0.5, 0.5, 0], [0.5, -0.5, 0]]) == 1)
    #expect(Self.count(Self.flat, [[0.1, 0.1, 0], [0.3, 0.1, 0], [0.1, 0.3, 0]]) == 1)
    #expect(Self.count(Self.flat, [[1, 1, 0], [0.6, 1, 0], [1, 0.6, 0]]) == 0)
    #expect(Self.count(Self.flat, [[0, 0, 0], [0, -1, 0], [1, 0, 0]].map { $0 + [0.25, 0, 0] }) == 1)
  }

  @Test func trianglesSharingACornerTouchOnlyThere() {
    // Sharing corner 0 and going off in another direction: fine.
    #expect(Self.count(Self.flat, [[0, 0, 0], [-1, 0, 1], [0, -1, 1]], sharing: [(0, 0)]) == 0)
    // Sharing corner 0, the other's far edge through this one.
    #expect(Self.count(Self.flat, [[0, 0, 0], [0.3, 0.3, -1], [0.3, 0.3, 1]], sharing: [(0, 0)]) == 1)
    // Sharing corner 0, lying in the same plane, overlapping near the corner.
    #expect(Self.count(Self.flat, [[0, 0, 0], [1, 1, 0], [-1, 1, 0]], sharing: [(0, 0)]) == 1)
    // Sharing corner 0, same plane, side by side.
    #expect(Self.count(Self.flat, [[0, 0, 0], [-1, 1, 0], [-1, 0, 0]], sharing: [(0, 0)]) == 0)
    // Sharing corner 0, an edge from it running inside the other (same plane, along its edge).
    #expect(Self.count(Self.flat, [[0, 0, 0], [0.5, 0, 0], [0.5, -1, 0]], sharing: [(0, 0)]) == 1)
    // The same corner position without sharing the vertex: touching counts.
    #expect(Self.count(Self.flat, [[0, 0, 0], [-1, 0, 1], [0, -1, 1]]) == 1)
  }

  @Test func trianglesSharingAnEdgeTouchOnlyThere() {
    // A hinge at any angle, flat out, and folded back onto each other in one plane.
    #expect(Self.count(Self.flat, [[1, 0, 0], [0, 0, 0], [0.5, -0.5, 0.7]], sharing: [(1, 0), (0, 1)]) == 0)
    #expect(Self.count(Self.flat, [[1, 0, 0], [0, 0, 0], [0.5, -0.5, 0]], sharing: [(1, 0), (0, 1)]) == 0)
    #expect(Self.count(Self.flat, [[1, 0, 0], [0, 0, 0], [0.5, 0.2, 0]], sharing: [(1, 0), (0, 1)]) == 1)
    // Folded almost flat: a float step out of the plane is no intersection.
    #expect(Self.count(Self.flat, [[1, 0, 0], [0, 0, 0], [0.5, 0.2, Float(0).nextUp]], sharing: [(1, 0), (0, 1)]) == 0)
    // The same triangle twice.
    #expect(Self.count(Self.flat, Self.flat, sharing: [(0, 0), (1, 1), (2, 2)]) == 1)
  }
}

/// ``MeshIntersections`` against an independent floating-point computation (distances between
/// triangles, and edges piercing triangles) on random triangles, where that computation is
/// clear: apart by more than a micrometre in a unit cube, or an edge through a triangle more than
/// a micrometre inside it.
struct MeshIntersectionsAgainstDistancesTests {
  typealias P = SIMD3<Double>

  static func dot(_ a: P, _ b: P) -> Double { (a * b).sum() }
  static func cross(_ a: P, _ b: P) -> P { P(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x) }
  static func length(_ a: P) -> Double { dot(a, a).squareRoot() }

  static func pointSegment(_ p: P, _ a: P, _ b: P) -> Double {
    let d = b - a, l = dot(d, d)
    let t = l > 0 ? max(0, min(1, dot(p - a, d) / l)) : 0
    return length(p - (a + t * d))
  }

  static func pointTriangle(_ p: P, _ t: [P]) -> Double {
    let n = cross(t[1] - t[0], t[2] - t[0]), nn = dot(n, n)
    let edges = min(pointSegment(p, t[0], t[1]), pointSegment(p, t[1], t[2]), pointSegment(p, t[2], t[0]))
    guard nn > 0 else { return edges }
    let h = dot(p - t[0], n) / nn
    let x = p - h * n
    let inside = (0..<3).allSatisfy { k in dot(cross(t[(k + 1) % 3] - t[k], x - t[k]), n) >= 0 }
    return inside ? abs(h) * nn.squareRoot() : edges
  }

  static func segmentSegment(_ p0: P, _ p1: P, _ q0: P, _ q1: P) -> Double {
    var best = min(pointSegment(p0, q0, q1), pointSegment(p1, q0, q1), pointSegment(q0, p0, p1), pointSegment(q1, p0, p1))
    let d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0
    let a = dot(d1, d1), b = dot(d1, d2), c = dot(d2, d2), d = dot(d1, r), e = dot(d2, r)
    let det = a * c - b * b
    if det > 1e-12 * a * c {
      let s = (b * e - c * d) / det, t = (a * e - b * d) / det
      if s > 0 && s < 1 && t > 0 && t < 1 { best = min(best, length((p0 + s * d1) - (q0 + t * d2))) }
    }
    return best
  }

  /// The least margin by which an edge of one pierces the other: positive when it passes more
  /// than that far inside (in parameter along the edge and in barycentric coordinates).
  static func piercing(_ p: [P], _ q: [P]) -> Double {
    var best = -Double.infinity
    for (s, t) in [(p, q), (q, p)] {
      let n = cross(t[1] - t[0], t[2] - t[0]), nn = dot(n, n)
      for k in 0..<3 {
        let a = s[k], b = s[(k + 1) % 3]
        let den = dot(b - a, n)
        guard abs(den) > 1e-12 else { continue }
        let u = dot(t[0] - a, n) / den
        let x = a + u * (b - a)
        let w = (0..<3).map { k in dot(cross(t[(k + 1) % 3] - t[k], x - t[k]), n) / nn }
        best = max(best, min(u, 1 - u, w.min()!))
      }
    }
    return best
  }

  static func distance(_ p: [P], _ q: [P]) -> Double {
    var d = Double.infinity
    for k in 0..<3 {
      d = min(d, pointTriangle(p[k], q), pointTriangle(q[k], p))
      for l in 0..<3 { d = min(d, segmentSegment(p[k], p[(k + 1) % 3], q[l], q[(l + 1) % 3])) }
    }
    return d
  }

  /// Floats uniform in [0, 1) from a fixed sequence (splitmix64), so the tests repeat.
  struct Uniform {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> Float {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Float((z ^ (z >> 31)) >> 40) / Float(1 << 24)
    }
  }

  /// Whether the two are clearly intersecting (`true`), clearly apart (`false`) or too close to
  /// call (`nil`).
  static func clear(_ p: [P], _ q: [P]) -> Bool? {
    if piercing(p, q) > 1e-6 { return true }
    if distance(p, q) > 1e-6 { return false }
    return nil
  }

  @Test func randomPairsAgreeWithDistances() {
    var random = Uniform(seed: 12345)
    func uniform() -> Float { random.next() }
    var meeting = 0, apart = 0, unclear = 0, disagreements: [String] = []
    for _ in 0..<10_000 {
      let corners = (0..<6).map { _ in SIMD3<Float>(uniform(), uniform(), uniform()) }
      let mesh = TriangleMesh(positions: corners, triangles: [SIMD3(0, 1, 2), SIMD3(3, 4, 5)])
      let p = corners[0..<3].map(P.init), q = corners[3..<6].map(P.init)
      let found = MeshIntersections(mesh).count == 1
      guard let expected = Self.clear(p, q) else {
        unclear += 1
        continue
      }
      if expected { meeting += 1 } else { apart += 1 }
      if found != expected && disagreements.count < 5 { disagreements.append("\(corners): found \(found)") }
    }
    #expect(disagreements.isEmpty, "\(disagreements)")
    #expect(meeting > 500 && apart > 500 && unclear < 50, "\(meeting) meeting, \(apart) apart, \(unclear) unclear")
  }

  @Test func aSoupOfTrianglesGivesEveryPairOnce() {
    // 600 triangles of about a quarter of the unit cube: the broad phase's cells against all pairs.
    var random = Uniform(seed: 777)
    func uniform() -> Float { random.next() }
    var positions: [SIMD3<Float>] = []
    var triangles: [SIMD3<Int32>] = []
    for t in 0..<600 {
      let centre = SIMD3<Float>(uniform(), uniform(), uniform())
      // A few large ones spanning many cells.
      let size: Float = t % 100 == 0 ? 0.6 : 0.25
      for _ in 0..<3 { positions.append(centre + size * SIMD3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5)) }
      triangles.append(SIMD3(Int32(3 * t), Int32(3 * t + 1), Int32(3 * t + 2)))
    }
    let found = MeshIntersections(TriangleMesh(positions: positions, triangles: triangles)).pairs
    #expect(Set(found.map { [$0.x, $0.y] }).count == found.count, "each pair once")
    #expect(found.allSatisfy { $0.x < $0.y })
    let foundSet = Set(found.map { [Int($0.x), Int($0.y)] })
    var expected = 0, missing = 0, extra = 0
    for a in 0..<600 {
      let p = (0..<3).map { P(positions[3 * a + $0]) }
      for b in (a + 1)..<600 {
        let q = (0..<3).map { P(positions[3 * b + $0]) }
        switch Self.clear(p, q) {
        case true?:
          expected += 1
          if !foundSet.contains([a, b]) { missing += 1 }
        case false?: if foundSet.contains([a, b]) { extra += 1 }
        case nil: break
        }
      }
    }
    #expect(expected > 300 && missing == 0 && extra == 0, "\(expected) pairs meet, \(missing) missed, \(extra) found apart")
  }
}
