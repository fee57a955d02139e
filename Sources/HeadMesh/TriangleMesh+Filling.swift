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
