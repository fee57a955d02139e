/// The connected pieces of a mesh's vertices, joined through the corners of each triangle
/// (union–find with path halving). Triangles with an index outside the vertices are ignored.
struct VertexPieces {
  private var parent: [Int]

  init(vertexCount: Int, triangles: [SIMD3<Int32>]) {
    parent = Array(0..<max(0, vertexCount))
    for t in triangles where t.min() >= 0 && Int(t.max()) < parent.count {
      let a = root(Int(t.x)), b = root(Int(t.y))
      parent[b] = a
      parent[root(Int(t.z))] = a
    }
  }

  /// The representative vertex of `v`'s piece.
  mutating func root(_ v: Int) -> Int {
    var v = v
    while parent[v] != v {
      parent[v] = parent[parent[v]]
      v = parent[v]
    }
    return v
  }
}
