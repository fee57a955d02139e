extension TriangleMesh {
  /// Each vertex's neighbours along triangle edges (sorted, no repeats): vertex `v`'s are
  /// `list[start[v]..<start[v + 1]]`.
  func neighbours() -> (start: [Int], list: [Int32]) {
    let n = positions.count
    var keys: [Int] = []
    keys.reserveCapacity(6 * triangles.count)
    for t in triangles {
      for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] {
        keys.append(Int(a) * n + Int(b))
        keys.append(Int(b) * n + Int(a))
      }
    }
    keys.sort()
    var start = [Int](repeating: 0, count: n + 1)
    var list: [Int32] = []
    list.reserveCapacity(keys.count / 2)
    var previous = -1
    for key in keys where key != previous {
      previous = key
      start[key / n + 1] += 1
      list.append(Int32(key % n))
    }
    for v in 0..<n { start[v + 1] += start[v] }
    return (start, list)
  }

  /// Umbrella smoothing of the filled vertices (each moves halfway to its neighbours' mean per
  /// round), the measured ones held: takes the grid's facets out of the membrane over a hole.
  mutating func smoothFilledVertices(rounds: Int) {
    guard rounds > 0, filled.contains(true) else { return }
    let (start, list) = neighbours()
    let moving = positions.indices.filter { filled[$0] && start[$0 + 1] > start[$0] }
    for _ in 0..<rounds {
      let next = moving.map { v in
        let mean = list[start[v]..<start[v + 1]].reduce(SIMD3<Float>.zero) { $0 + positions[Int($1)] } / Float(start[v + 1] - start[v])
        return positions[v] + 0.5 * (mean - positions[v])
      }
      for (v, p) in zip(moving, next) { positions[v] = p }
    }
  }

  /// Puts vertices back where they were in `before` (one position per vertex, a mesh whose
  /// triangles did not intersect) wherever their move made triangles intersect: the moved corners
  /// of each intersecting pair go back, and the triangles around them are checked again, until
  /// none intersects or no moved corner is left to put back.
  /// - Returns: how many vertices went back.
  @discardableResult
  mutating func undoMovesThatIntersect(before: [SIMD3<Float>]) -> Int {
    guard before.count == positions.count else { return 0 }
    var pairs = MeshIntersections(self).pairs
    guard !pairs.isEmpty else { return 0 }
    // Each vertex's triangles.
    var start = [Int](repeating: 0, count: positions.count + 1)
    for t in triangles { for v in [t.x, t.y, t.z] where v >= 0 && Int(v) < positions.count { start[Int(v) + 1] += 1 } }
    for v in 0..<positions.count { start[v + 1] += start[v] }
    var around = [Int](repeating: 0, count: start[positions.count])
    var next = start
    for (i, t) in triangles.enumerated() {
      for v in [t.x, t.y, t.z] where v >= 0 && Int(v) < positions.count {
        around[next[Int(v)]] = i
        next[Int(v)] += 1
      }
    }
    var undone = 0
    while !pairs.isEmpty {
      var changed: [Int] = []
      for pair in pairs {
        for t in [pair.x, pair.y] {
          for v in [triangles[Int(t)].x, triangles[Int(t)].y, triangles[Int(t)].z].map(Int.init) where positions[v] != before[v] {
            positions[v] = before[v]
            changed.append(v)
          }
        }
      }
      guard !changed.isEmpty else { break }
      undone += changed.count
      pairs = MeshIntersections.pairs(of: self, involving: changed.flatMap { around[start[$0]..<start[$0 + 1]] })
    }
    return undone
  }

  /// Colours the filled vertices from the measured ones, spreading outward in breadth-first
  /// order (each takes the mean of its already coloured neighbours); grey if nothing was measured.
  mutating func colourFilledVertices() {
    guard colours.count == positions.count, filled.contains(true) else { return }
    let (start, list) = neighbours()
    func around(_ v: Int) -> ArraySlice<Int32> { list[start[v]..<start[v + 1]] }
    var done = filled.map { !$0 }
    var queue = positions.indices.filter { v in done[v] && around(v).contains { filled[Int($0)] } }
    if queue.isEmpty {
      colours = colours.map { _ in SIMD3(repeating: 128) }
      return
    }
    var head = 0
    while head < queue.count {
      let v = queue[head]
      head += 1
      for n in around(v).map(Int.init) where !done[n] {
        let coloured = around(n).map(Int.init).filter { done[$0] }
        let sum = coloured.reduce(SIMD3<Int>.zero) { $0 &+ SIMD3<Int>(truncatingIfNeeded: colours[$1]) }
        colours[n] = SIMD3<UInt8>(clamping: sum / SIMD3(repeating: max(1, coloured.count)))
        done[n] = true
        queue.append(n)
      }
    }
  }
}
