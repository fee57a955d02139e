import Foundation
import ScanIO

extension HeadSurface {
  /// A shaded picture of the surface seen from `view`, as SVG.
  ///
  /// A mesh is rasterised orthographically (nearest triangle per cell, normals interpolated
  /// from the vertices, so the shading is smooth), lit from the upper left, anti-aliased and
  /// embedded as a PNG; the band of surface within ±0.6 mm of the measurement level is painted
  /// red on it, and filled (not measured) surface is grey-blue. A cloud (no triangles) is
  /// splatted into a depth buffer, small holes between points are closed, and cells of equal
  /// shade become SVG paths. Either way the page needs no server or script.
  /// - Parameters:
  ///   - view: the direction looked from.
  ///   - cellSize: a picture's pixel, mm; default: the surface's largest side / 420 for a mesh
  ///     (rasterised at half that and averaged 2 × 2 into each pixel), / 110 for a cloud.
  ///   - measurementLevel: h*, mm; painted on a mesh, a dashed line over a cloud (side and
  ///     front views), and labelled.
  /// - Complexity: O(points + covered cells of the triangles + cells).
  public func svg(view: View, cellSize: Double? = nil, measurementLevel: Double? = nil) -> String {
    let (right, up, toward) = view.basis
    let projected = points.map { SIMD3(($0 * right).sum(), ($0 * up).sum(), ($0 * toward).sum()) }.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
    guard let first = projected.first else { return Self.nothingToDraw }
    let low = projected.reduce(first) { pointwiseMin($0, $1) }, high = projected.reduce(first) { pointwiseMax($0, $1) }
    let box = high - low
    guard box.x.isFinite, box.y.isFinite, box.z.isFinite else { return Self.nothingToDraw }
    // One scale for every view: the largest side of the surface's box (the view axes are the
    // head's axes, so every view's box has the same sides), so views compare.
    let bounds = Bounds(uLow: low.x, uHigh: high.x, vLow: low.y, vHigh: high.y, extent: max(box.x, box.y, box.z, 1e-6))
    let validTriangles = triangles.filter { t in (0..<3).allSatisfy { t[$0] >= 0 && Int(t[$0]) < points.count } }
    let body: (picture: String, width: Double, height: Double, levelPainted: Bool)
    if !validTriangles.isEmpty, projected.count == points.count {
      body = meshPicture(view: view, projected: projected, triangles: validTriangles, bounds: bounds, cellSize: cellSize, level: measurementLevel)
    } else {
      body = cloudPicture(projected: projected, bounds: bounds, cellSize: cellSize)
    }
    let margin = 22.0
    let labelsLevel = measurementLevel.map { view != .top && $0 >= bounds.vLow && $0 <= bounds.vHigh } ?? false
    let pageWidth = body.width + 2 * margin + (labelsLevel ? 56 : 0), pageHeight = body.height + 2 * margin
    var svg = String(format: "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n", pageWidth, pageHeight, pageWidth, pageHeight)
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    svg += String(format: "<g transform=\"translate(%.1f %.1f)\">\n", margin, margin) + body.picture + "</g>\n"
    if let h = measurementLevel, labelsLevel {
      let y = margin + (bounds.vHigh - h) * Self.pictureSide / bounds.extent, pictureRight = margin + body.width
      if body.levelPainted {
        svg += String(format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"1.5\"/>\n", pictureRight + 2, y, pictureRight + 10, y)
      } else {
        svg += String(format: "<line x1=\"4\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\"/>\n", y, pictureRight + 10, y)
      }
      svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#c0392b\">h* %.1f mm</text>\n", pictureRight + 12, y + 3, h)
    }
    let labels = view.edgeLabels
    svg += String(format: "<text x=\"3\" y=\"%.0f\" font-size=\"10\" fill=\"#777\">%@</text>\n", pageHeight / 2, labels.left)
    svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\" fill=\"#777\">%@</text>\n", margin + body.width + 19, pageHeight / 2, labels.right)
    if !labels.top.isEmpty { svg += String(format: "<text x=\"%.0f\" y=\"13\" font-size=\"10\" text-anchor=\"middle\" fill=\"#777\">%@</text>\n", pageWidth / 2, labels.top) }
    return svg + "</svg>\n"
  }

  /// The page's largest side for a view's picture (the surface box's largest side), in SVG units.
  private static let pictureSide = 300.0

  /// What a view shows of the surface, in its page axes (mm): right (u) and up (v), and the
  /// largest side of the surface's box.
  private struct Bounds {
    var uLow: Double, uHigh: Double, vLow: Double, vHigh: Double, extent: Double
  }

  private static let nothingToDraw =
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"60\" viewBox=\"0 0 300 60\"><text x=\"10\" y=\"30\" font-family=\"sans-serif\" font-size=\"13\">no points to draw</text></svg>\n"
  /// Half the height of the band painted at the measurement level, mm.
  static let levelBandHalfWidth = 0.6

  /// Vertex normals (area-weighted, outward for counter-clockwise triangles) in head axes.
  private func vertexNormals(_ triangles: [SIMD3<Int32>]) -> [SIMD3<Double>] {
    var normals = [SIMD3<Double>](repeating: .zero, count: points.count)
    for t in triangles {
      let a = points[Int(t.x)], b = points[Int(t.y)], c = points[Int(t.z)]
      let e = b - a, f = c - a
      let n = SIMD3(e.y * f.z - e.z * f.y, e.z * f.x - e.x * f.z, e.x * f.y - e.y * f.x)
      guard n.x.isFinite, n.y.isFinite, n.z.isFinite else { continue }
      normals[Int(t.x)] += n
      normals[Int(t.y)] += n
      normals[Int(t.z)] += n
    }
    return normals
  }

  private func meshPicture(
    view: View, projected: [SIMD3<Double>], triangles: [SIMD3<Int32>], bounds: Bounds, cellSize: Double?, level: Double?
  ) -> (picture: String, width: Double, height: Double, levelPainted: Bool) {
    let downsample = 2
    let pixel = max(cellSize ?? bounds.extent / 420, bounds.extent / 1200), cell = pixel / Double(downsample)
    let columns = (Int((bounds.uHigh - bounds.uLow) / cell) + 1 + downsample) / downsample * downsample
    let rows = (Int((bounds.vHigh - bounds.vLow) / cell) + 1 + downsample) / downsample * downsample
    var raster = SurfaceRaster(width: columns, height: rows)
    let (right, up, toward) = view.basis
    let normals = vertexNormals(triangles).map { n in SIMD3((n * right).sum(), (n * up).sum(), (n * toward).sum()) }
    let vertices = points.indices.map { i in
      SurfaceRaster.Vertex(
        grid: SIMD3((projected[i].x - bounds.uLow) / cell, (bounds.vHigh - projected[i].y) / cell, projected[i].z),
        normal: normals[i], headHeight: points[i].z, filled: i < filled.count && filled[i])
    }
    for t in triangles { raster.fill(vertices[Int(t.x)], vertices[Int(t.y)], vertices[Int(t.z)]) }
    let image = raster.bgrPixels(level: level, levelHalfWidth: Self.levelBandHalfWidth, downsample: downsample)
    let scale = Self.pictureSide / bounds.extent * pixel
    let (width, height) = (Double(image.width) * scale, Double(image.height) * scale)
    guard let png = ImageFiles.pngData(bgr: image.bytes, width: image.width, height: image.height) else {
      return ("<text x=\"10\" y=\"30\" font-size=\"13\">the view could not be encoded</text>\n", width, height, false)
    }
    let picture = String(format: "<image width=\"%.1f\" height=\"%.1f\" href=\"data:image/png;base64,%@\"/>\n", width, height, png.base64EncodedString())
    return (picture, width, height, level != nil)
  }

  private func cloudPicture(projected: [SIMD3<Double>], bounds: Bounds, cellSize: Double?)
    -> (picture: String, width: Double, height: Double, levelPainted: Bool)
  {
    let cell = max(cellSize ?? bounds.extent / 110, bounds.extent / 400)
    var buffer = DepthBuffer(width: Int((bounds.uHigh - bounds.uLow) / cell) + 1, height: Int((bounds.vHigh - bounds.vLow) / cell) + 1)
    for p in projected { buffer.splat(SIMD3((p.x - bounds.uLow) / cell, (bounds.vHigh - p.y) / cell, p.z)) }
    buffer.closeHoles()
    let scale = Self.pictureSide / bounds.extent * cell
    var picture = String(format: "<g transform=\"scale(%.4f)\" shape-rendering=\"crispEdges\">\n", scale)
    for (shade, path) in buffer.shadedRuns(cellSize: cell) {
      let grey = 0.18 + 0.82 * shade
      let colour = String(format: "#%02x%02x%02x", Int(236 * grey), Int(206 * grey), Int(178 * grey))
      picture += "<path fill=\"\(colour)\" d=\"\(path)\"/>\n"
    }
    picture += "</g>\n"
    return (picture, Double(buffer.width) * scale, Double(buffer.height) * scale, false)
  }
}
