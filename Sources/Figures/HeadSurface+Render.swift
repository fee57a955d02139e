import Foundation

extension HeadSurface {
  /// A shaded picture of the surface seen from `view`, as SVG: the points (or triangles) are
  /// projected orthographically into a depth buffer of `cellSize` mm cells, small holes between
  /// points are closed, and each cell is lit from the upper left by its normal from the depth
  /// gradient; cells of equal shade become one SVG path, so no server or script is needed.
  /// - Parameters:
  ///   - view: the direction looked from.
  ///   - cellSize: depth-buffer cell, mm; default: the surface's extent / 110.
  ///   - measurementLevel: h*, mm; drawn as a dashed line on the side and front views.
  /// - Complexity: O(points + covered cells of the triangles + cells).
  public func svg(view: View, cellSize: Double? = nil, measurementLevel: Double? = nil) -> String {
    let (right, up, toward) = view.basis
    let projected = points.map { SIMD3(($0 * right).sum(), ($0 * up).sum(), ($0 * toward).sum()) }.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
    let pagePixels = 300.0
    guard let uLow = projected.map(\.x).min(), let uHigh = projected.map(\.x).max(),
      let vLow = projected.map(\.y).min(), let vHigh = projected.map(\.y).max(),
      (uHigh - uLow).isFinite, (vHigh - vLow).isFinite
    else {
      return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"60\" viewBox=\"0 0 300 60\"><text x=\"10\" y=\"30\" font-family=\"sans-serif\" font-size=\"13\">no points to draw</text></svg>\n"
    }
    let extent = max(uHigh - uLow, vHigh - vLow, 1e-6)
    let cell = max(cellSize ?? extent / 110, extent / 400)
    var buffer = DepthBuffer(width: Int((uHigh - uLow) / cell) + 1, height: Int((vHigh - vLow) / cell) + 1)
    func grid(_ p: SIMD3<Double>) -> SIMD3<Double> { SIMD3((p.x - uLow) / cell, (vHigh - p.y) / cell, p.z) }
    let validTriangles = triangles.filter { t in (0..<3).allSatisfy { t[$0] >= 0 && Int(t[$0]) < points.count } }
    if validTriangles.isEmpty || projected.count != points.count {
      for p in projected { buffer.splat(grid(p)) }
      buffer.closeHoles()
    } else {
      for t in validTriangles { buffer.fill(grid(projected[Int(t.x)]), grid(projected[Int(t.y)]), grid(projected[Int(t.z)])) }
    }
    let scale = pagePixels / Double(max(buffer.width, buffer.height))
    let margin = 22.0
    let pageWidth = Double(buffer.width) * scale + 2 * margin, pageHeight = Double(buffer.height) * scale + 2 * margin
    var svg = String(format: "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n", pageWidth, pageHeight, pageWidth, pageHeight)
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    svg += String(format: "<g transform=\"translate(%.1f %.1f) scale(%.4f)\" shape-rendering=\"crispEdges\">\n", margin, margin, scale)
    for (shade, path) in buffer.shadedRuns(cellSize: cell) {
      let grey = 0.18 + 0.82 * shade
      let colour = String(format: "#%02x%02x%02x", Int(236 * grey), Int(206 * grey), Int(178 * grey))
      svg += "<path fill=\"\(colour)\" d=\"\(path)\"/>\n"
    }
    svg += "</g>\n"
    if let h = measurementLevel, view != .top, h >= vLow, h <= vHigh {
      let y = margin + (vHigh - h) / cell * scale
      svg += String(format: "<line x1=\"4\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\"/>\n", y, pageWidth - 4, y)
      svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" fill=\"#c0392b\">h* %.1f mm</text>\n", pageWidth - 4, y - 3, h)
    }
    let labels = view.edgeLabels
    svg += String(format: "<text x=\"3\" y=\"%.0f\" font-size=\"10\" fill=\"#777\">%@</text>\n", pageHeight / 2, labels.left)
    svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\" fill=\"#777\">%@</text>\n", pageWidth - 3, pageHeight / 2, labels.right)
    if !labels.top.isEmpty { svg += String(format: "<text x=\"%.0f\" y=\"13\" font-size=\"10\" text-anchor=\"middle\" fill=\"#777\">%@</text>\n", pageWidth / 2, labels.top) }
    return svg + "</svg>\n"
  }
}
