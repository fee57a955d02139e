extension TriangleMesh {
  /// Each vertex's neighbours along triangle edges (sorted, no repeats).
  func neighbours() -> [[Int32]] {
    var lists = [[Int32]](repeating: [], count: positions.count)
    for t in triangles {
      for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] {
        lists[Int(a)].append(b)
        lists[Int(b)].append(a)
      }
    }
    return lists.map { Array(Set($0)).sorted() }
  }

  /// Umbrella smoothing of the filled vertices (each moves halfway to its neighbours' mean per
  /// round), the measured ones held: takes the grid's facets out of the membrane over a hole.
  mutating func smoothFilledVertices(rounds: Int) {
    guard rounds > 0, filled.contains(true) else { return }
    let around = neighbours()
    let moving = positions.indices.filter { filled[$0] && !around[$0].isEmpty }
    for _ in 0..<rounds {
      let next = moving.map { v in
        let mean = around[v].reduce(SIMD3<Float>.zero) { $0 + positions[Int($1)] } / Float(around[v].count)
        return positions[v] + 0.5 * (mean - positions[v])
      }
      for (v, p) in zip(moving, next) { positions[v] = p }
    }
  }

  /// Colours the filled vertices from the measured ones, spreading outward in breadth-first
  /// order (each takes the mean of its already coloured neighbours); grey if nothing was measured.
  mutating func colourFilledVertices() {
    guard colours.count == positions.count, filled.contains(true) else { return }
    let around = neighbours()
    var done = filled.map { !$0 }
    var queue = positions.indices.filter { v in done[v] && around[v].contains { filled[Int($0)] } }
    if queue.isEmpty {
      colours = colours.map { _ in SIMD3(repeating: 128) }
      return
    }
    var head = 0
    while head < queue.count {
      let v = queue[head]
      head += 1
      for n in around[v].map(Int.init) where !done[n] {
        let coloured = around[n].map(Int.init).filter { done[$0] }
        let sum = coloured.reduce(SIMD3<Int>.zero) { $0 &+ SIMD3<Int>(truncatingIfNeeded: colours[$1]) }
        colours[n] = SIMD3<UInt8>(clamping: sum / SIMD3(repeating: max(1, coloured.count)))
        done[n] = true
        queue.append(n)
      }
    }
  }
}
