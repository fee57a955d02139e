import PointCloud

/// An indexed triangle mesh with per-vertex colours and a per-vertex flag for surface that was
/// filled in rather than measured.
///
/// Positions are in whatever frame and unit the producer states: ``extractMesh(from:options:)``
/// returns the input cloud's frame and unit (for headscan, the scan's world frame in
/// metres); ``transformed(by:scale:)`` moves it (e.g. into the head frame in millimetres).
/// Triangles wind counter-clockwise seen from outside, so their right-hand normals point out
/// of the head.
public struct TriangleMesh: Sendable, Equatable {
  /// Vertex positions.
  public var positions: [SIMD3<Float>]
  /// Vertex colours (RGB), one per vertex, or empty.
  public var colours: [SIMD3<UInt8>]
  /// `true` where a vertex closes a hole (under the cap edge, the neck cut, …): more than a few
  /// millimetres from any measured point, placed by smooth interpolation. Never measured surface.
  public var filled: [Bool]
  /// Vertex indices of each triangle, counter-clockwise seen from outside.
  public var triangles: [SIMD3<Int32>]

  /// A mesh of these vertices and triangles; `colours` and `filled` empty or one per vertex.
  public init(positions: [SIMD3<Float>], colours: [SIMD3<UInt8>] = [], filled: [Bool] = [], triangles: [SIMD3<Int32>]) {
    self.positions = positions
    self.colours = colours
    self.filled = filled.isEmpty ? [Bool](repeating: false, count: positions.count) : filled
    self.triangles = triangles
  }

  /// Number of vertices.
  public var vertexCount: Int { positions.count }
  /// Number of triangles.
  public var triangleCount: Int { triangles.count }

  /// The three corners of triangle `t`.
  func corners(_ t: Int) -> (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) {
    let f = triangles[t]
    return (positions[Int(f.x)], positions[Int(f.y)], positions[Int(f.z)])
  }

  /// Unit normal of each triangle (right-hand rule: outward); zero for a degenerate triangle.
  public var triangleNormals: [SIMD3<Float>] {
    triangles.indices.map { t in
      let (a, b, c) = corners(t)
      let n = cross(b - a, c - a)
      let length = (n * n).sum().squareRoot()
      return length > 0 ? n / length : .zero
    }
  }

  /// Area-weighted unit normal of each vertex (outward).
  public var vertexNormals: [SIMD3<Float>] {
    var sums = [SIMD3<Double>](repeating: .zero, count: positions.count)
    for t in triangles.indices {
      let (a, b, c) = corners(t)
      let n = SIMD3<Double>(cross(b - a, c - a))
      for v in [triangles[t].x, triangles[t].y, triangles[t].z] { sums[Int(v)] += n }
    }
    return sums.map { s in
      let length = (s * s).sum().squareRoot()
      return length > 0 ? SIMD3<Float>(s / length) : .zero
    }
  }

  /// Total area, in the square of the positions' unit.
  public var area: Double {
    triangles.indices.reduce(0) { sum, t in
      let (a, b, c) = corners(t)
      let n = SIMD3<Double>(cross(b - a, c - a))
      return sum + 0.5 * (n * n).sum().squareRoot()
    }
  }

  /// Enclosed volume (divergence theorem), in the cube of the positions' unit: positive for a
  /// closed mesh whose triangles face outward.
  public var enclosedVolume: Double {
    triangles.indices.reduce(0) { sum, t in
      let (a, b, c) = corners(t)
      let (p, q, r) = (SIMD3<Double>(a), SIMD3<Double>(b), SIMD3<Double>(c))
      return sum + (p * cross(q, r)).sum() / 6
    }
  }

  /// Smallest and largest coordinates of the vertices, or `nil` for an empty mesh.
  public var bounds: (minimum: SIMD3<Float>, maximum: SIMD3<Float>)? {
    guard var low = positions.first else { return nil }
    var high = low
    for p in positions {
      low = pointwiseMin(low, p)
      high = pointwiseMax(high, p)
    }
    return (low, high)
  }

  /// Fraction of the vertices flagged ``filled`` (filled in rather than measured); 0 without flags.
  public var filledFraction: Double {
    vertexCount == 0 ? 0 : Double(filled.filter { $0 }.count) / Double(vertexCount)
  }

  /// The mesh with every position mapped by `transform` and then multiplied by `scale`
  /// (e.g. `headFromWorld` and 1000 for the head frame in millimetres). A rigid transform
  /// and a positive scale keep the triangles facing outward.
  public func transformed(by transform: RigidTransform, scale: Double = 1) -> TriangleMesh {
    var moved = self
    moved.positions = positions.map { SIMD3<Float>(transform.apply(SIMD3<Double>($0)) * scale) }
    return moved
  }

  /// The mesh without every triangle that has a corner where `remove` holds, and without the
  /// vertices no triangle uses any more (e.g. a de-identified copy's face). The result is open
  /// where triangles went.
  public func removingTriangles(touching remove: (SIMD3<Float>) -> Bool) -> TriangleMesh {
    let removed = positions.map(remove)
    let kept = triangles.filter { !removed[Int($0.x)] && !removed[Int($0.y)] && !removed[Int($0.z)] }
    var newIndex = [Int32](repeating: -1, count: positions.count)
    var order: [Int] = []
    for t in kept {
      for v in [Int(t.x), Int(t.y), Int(t.z)] where newIndex[v] < 0 {
        newIndex[v] = Int32(order.count)
        order.append(v)
      }
    }
    return TriangleMesh(
      positions: order.map { positions[$0] }, colours: colours.count == positions.count ? order.map { colours[$0] } : [],
      filled: filled.count == positions.count ? order.map { filled[$0] } : [],
      triangles: kept.map { SIMD3(newIndex[Int($0.x)], newIndex[Int($0.y)], newIndex[Int($0.z)]) })
  }
}

/// Cross product.
func cross<T: FloatingPoint & SIMDScalar>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> SIMD3<T> {
  SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
