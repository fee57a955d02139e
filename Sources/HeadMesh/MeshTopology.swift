/// How a triangle mesh's edges and vertices fit together: whether it is a closed, oriented
/// 2-manifold, and its Euler characteristic.
public struct MeshTopology: Sendable, Hashable, CustomStringConvertible {
  /// Distinct undirected edges.
  public var edges = 0
  /// Edges of only one triangle (a hole's rim).
  public var boundaryEdges = 0
  /// Edges of more than two triangles.
  public var nonManifoldEdges = 0
  /// Edges whose two triangles run them the same way (inconsistent orientation).
  public var misorientedEdges = 0
  /// Vertices whose triangles do not form one fan around them (two sheets touching at a point), or
  /// that no triangle uses.
  public var nonManifoldVertices = 0
  /// Triangles with a repeated corner.
  public var degenerateTriangles = 0
  /// Edge-connected pieces.
  public var pieces = 0
  /// V − E + F: 2 for one closed surface of a sphere's topology (no handles).
  public var eulerCharacteristic = 0

  /// Watertight and manifold: every edge in exactly two triangles running it opposite ways,
  /// every vertex one fan, no degenerate triangle.
  public var isClosedManifold: Bool {
    boundaryEdges == 0 && nonManifoldEdges == 0 && misorientedEdges == 0 && nonManifoldVertices == 0 && degenerateTriangles == 0
  }

  public var description: String {
    "\(edges) edges (\(boundaryEdges) boundary, \(nonManifoldEdges) non-manifold, \(misorientedEdges) misoriented), "
      + "\(nonManifoldVertices) non-manifold vertices, \(degenerateTriangles) degenerate triangles, \(pieces) pieces, "
      + "Euler characteristic \(eulerCharacteristic)"
  }

  /// The topology of `mesh`.
  public init(_ mesh: TriangleMesh) {
    let n = mesh.vertexCount
    // Directed edges a → b per triangle, keyed by the unordered pair.
    var uses: [Int: (forward: Int, backward: Int)] = [:]
    var fans = [[(Int32, Int32)]](repeating: [], count: n)
    for t in mesh.triangles {
      guard t.x != t.y, t.y != t.z, t.z != t.x, t.min() >= 0, Int(t.max()) < n else {
        degenerateTriangles += 1
        continue
      }
      for (a, b, c) in [(t.x, t.y, t.z), (t.y, t.z, t.x), (t.z, t.x, t.y)] {
        let key = Int(min(a, b)) * n + Int(max(a, b))
        var use = uses[key] ?? (0, 0)
        if a < b { use.forward += 1 } else { use.backward += 1 }
        uses[key] = use
        // The edge opposite a in its fan: b → c.
        fans[Int(a)].append((b, c))
      }
    }
    edges = uses.count
    for use in uses.values {
      switch use.forward + use.backward {
      case 1: boundaryEdges += 1
      case 2: if use.forward != 1 { misorientedEdges += 1 }
      default: nonManifoldEdges += 1
      }
    }
    // A vertex is one fan when following its triangles' outer edges b → c from any one visits
    // them all.
    for fan in fans {
      guard !fan.isEmpty else {
        nonManifoldVertices += 1
        continue
      }
      var next: [Int32: Int32] = [:]
      for (b, c) in fan { next[b] = c }
      var steps = 0
      var at = fan[0].0
      while let c = next[at], steps <= fan.count {
        steps += 1
        at = c
        if at == fan[0].0 { break }
      }
      if steps != fan.count || next.count != fan.count { nonManifoldVertices += 1 }
    }
    // Pieces: union–find over the vertices of each triangle.
    var parent = Array(0..<n)
    func root(_ v: Int) -> Int {
      var v = v
      while parent[v] != v {
        parent[v] = parent[parent[v]]
        v = parent[v]
      }
      return v
    }
    for t in mesh.triangles where t.min() >= 0 && Int(t.max()) < n {
      parent[root(Int(t.y))] = root(Int(t.x))
      parent[root(Int(t.z))] = root(Int(t.x))
    }
    pieces = Set((0..<n).filter { !fans[$0].isEmpty }.map(root)).count
    eulerCharacteristic = n - edges + mesh.triangleCount
  }
}
