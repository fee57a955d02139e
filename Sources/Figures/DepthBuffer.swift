/// Nearest depth (toward the viewer, mm) per cell of a view's grid.
struct DepthBuffer {
  let width: Int, height: Int
  var depth: [Double]

  init(width: Int, height: Int) {
    (self.width, self.height) = (width, height)
    depth = Array(repeating: -.infinity, count: width * height)
  }

  func at(_ column: Int, _ row: Int) -> Double? {
    guard column >= 0, column < width, row >= 0, row < height else { return nil }
    let d = depth[row * width + column]
    return d.isFinite ? d : nil
  }

  /// A point in grid units (column, row, depth) into its cell.
  mutating func splat(_ p: SIMD3<Double>) {
    let column = min(width - 1, max(0, Int(p.x))), row = min(height - 1, max(0, Int(p.y)))
    depth[row * width + column] = max(depth[row * width + column], p.z)
  }

  /// Empty cells with at least five of eight filled neighbours take their mean depth (twice):
  /// closes the gaps a cloud leaves between its points without growing its outline.
  mutating func closeHoles() {
    for _ in 0..<2 {
      var next = depth
      for row in 0..<height {
        for column in 0..<width where at(column, row) == nil {
          var sum = 0.0, count = 0
          for dr in -1...1 { for dc in -1...1 where dr != 0 || dc != 0 { if let d = at(column + dc, row + dr) { sum += d; count += 1 } } }
          if count >= 5 { next[row * width + column] = sum / Double(count) }
        }
      }
      depth = next
    }
  }

  /// Each filled cell's shade (0 dark … 1 lit; 20 steps) from its depth gradient, lit from the
  /// upper left and in front; runs of equal shade along a row as SVG path data in cell units.
  func shadedRuns(cellSize: Double) -> [(shade: Double, path: String)] {
    let levels = 20
    let light = SIMD3(-0.45, 0.5, 0.74) / (0.45 * 0.45 + 0.25 + 0.74 * 0.74).squareRoot()
    var runs = [String](repeating: "", count: levels + 1)
    for row in 0..<height {
      var column = 0
      while column < width {
        guard let level = shadeLevel(column, row, light: light, levels: levels, cellSize: cellSize) else { column += 1; continue }
        var end = column + 1
        while end < width, shadeLevel(end, row, light: light, levels: levels, cellSize: cellSize) == level { end += 1 }
        runs[level] += "M\(column) \(row)h\(end - column)v1h-\(end - column)z"
        column = end
      }
    }
    return runs.enumerated().filter { !$0.element.isEmpty }.map { (Double($0.offset) / Double(levels), $0.element) }
  }

  private func shadeLevel(_ column: Int, _ row: Int, light: SIMD3<Double>, levels: Int, cellSize: Double) -> Int? {
    guard let d = at(column, row) else { return nil }
    func slope(_ before: Double?, _ after: Double?) -> Double {
      switch (before, after) {
      case (let b?, let a?): return (a - b) / (2 * cellSize)
      case (let b?, nil): return (d - b) / cellSize
      case (nil, let a?): return (a - d) / cellSize
      case (nil, nil): return 0
      }
    }
    let dU = slope(at(column - 1, row), at(column + 1, row))
    let dV = -slope(at(column, row - 1), at(column, row + 1))  // rows run down the page, v up
    let n = SIMD3(-dU, -dV, 1)
    let lit = 0.2 + 0.8 * max(0, (n * light).sum() / (n * n).sum().squareRoot())
    return Int((lit * Double(levels)).rounded())
  }
}
