import CVAI
import Foundation
import Reports
import _HeadScanSupport

/// SVG figures of a measurement, for people who would rather look than read.
///
/// Top views are drawn as seen from above the vertex with the face at the top of
/// the page, so the infant's left is on the page's left. Lengths in millimetres.
public enum HeadPlots {
  /// The contour at the measurement level with length, width and both diagonals through the centroid.
  public static func contourAtLevel(_ m: HeadMeasurement, denominator: CVAIDenominator = .longer) -> String {
    let contour = m.contourAtLevel.contour
    let frame = TopView(points: contour.points, size: 520, margin: 70)
    var svg = frame.open(title: String(format: "Contour at the measurement level (%.1f mm above the ears' plane)", m.level.height))
    svg += "<path d=\"\(frame.path(contour.points))\" fill=\"#e8f0f8\" stroke=\"#1f4e79\" stroke-width=\"2\"/>\n"
    let c = m.measures.centroid
    let angle = Double.pi / 6
    let chords: [(String, SIMD2<Double>, Double, String)] = [
      ("length", [1, 0], m.measures.length, "#444444"),
      ("width", [0, 1], m.measures.width, "#444444"),
      ("+30°", [cos(angle), sin(angle)], m.measures.diagonalPlus30, "#c0392b"),
      ("−30°", [cos(angle), -sin(angle)], m.measures.diagonalMinus30, "#27ae60"),
    ]
    for (name, direction, value, colour) in chords {
      guard let (back, forward) = contour.chordEnds(through: c, direction: direction) else { continue }
      let a = frame.page(c + back * direction), b = frame.page(c + forward * direction)
      svg += String(format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%@\" stroke-width=\"1.5\" stroke-dasharray=\"%@\"/>\n", a.x, a.y, b.x, b.y, colour, name.hasPrefix("l") || name.hasPrefix("w") ? "4 3" : "none")
      svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"%@\">%@ %.1f mm</text>\n", b.x + 4, b.y - 4, colour, name, value)
    }
    let centre = frame.page(c)
    svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#1f4e79\"/>\n", centre.x, centre.y)
    svg += frame.orientationLabels()
    let lines = [
      String(format: "CVAI %.1f %% (%@)   CVA %.1f mm   severity %d", m.measures.cvai(denominator: denominator), denominator.rawValue, m.measures.cva, m.measures.severity),
      String(format: "CI %.1f   circumference %.1f mm   %.0f %% of the contour measured", m.measures.ci, m.measures.circumference, m.contourAtLevel.measuredFraction * 100),
    ]
    for (i, line) in lines.enumerated() { svg += "<text x=\"16\" y=\"\(frame.size + 2 * frame.margin - 34 + 18 * i)\" font-size=\"14\">\(line)</text>\n" }
    return svg + "</svg>\n"
  }

  /// Every closed layer's contour, coloured from the ears' plane (blue) to the top (red); h* in black.
  public static func stackedLayers(_ m: HeadMeasurement) -> String {
    let all = m.layers.flatMap(\.contour.points)
    let frame = TopView(points: all, size: 520, margin: 70)
    var svg = frame.open(title: "All layer contours, \(String(format: "%g", m.layerSpacing)) mm apart (top view)")
    let top = max(1, m.layers.map(\.contour.height).max() ?? 1)
    for layer in m.layers {
      let t = layer.contour.height / top
      let colour = String(format: "rgb(%d,%d,%d)", Int(40 + 200 * t), 80, Int(220 - 180 * t))
      svg += "<path d=\"\(frame.path(layer.contour.points))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"0.8\" opacity=\"0.8\"/>\n"
    }
    svg += "<path d=\"\(frame.path(m.contourAtLevel.contour.points))\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>\n"
    svg += frame.orientationLabels()
    svg += String(format: "<text x=\"16\" y=\"%d\" font-size=\"14\">%d layers from 0 to %.0f mm; black: the measurement level (%.1f mm)</text>\n", frame.size + 2 * frame.margin - 16, m.layers.count, top, m.level.height)
    return svg + "</svg>\n"
  }

  /// Perimeter against height over the measured head only, the fitted band and h*.
  ///
  /// Shows the unbroken run of layers around h* whose contours are at least
  /// `minimumMeasuredFraction` measured and, above the fitted band, narrowing
  /// (``HeadMeasurement/measuredLayerRange(minimumMeasuredFraction:)``), and says where it ends;
  /// layers beyond it (the vertex, the neck) are left out. Empty when no layer qualifies.
  public static func perimeterByHeight(_ m: HeadMeasurement, minimumMeasuredFraction: Double = measuredLayerFraction) -> String {
    let run = m.measuredLayerRange(minimumMeasuredFraction: minimumMeasuredFraction)
    let shown = run.map { Array(m.layers[$0]) } ?? m.layers.filter { $0.measuredFraction >= minimumMeasuredFraction }
    let hs = shown.map(\.contour.height), ps = shown.map(\.contour.perimeter)
    guard let lowest = hs.min(), let highest = hs.max() else { return "" }
    var chart = SVGChart(
      title: "Contour perimeter by height above the ears' plane", xLabel: "height h (mm)", yLabel: "perimeter (mm)",
      x: SVGChart.padded(hs + [m.level.height], margin: 0.02), y: SVGChart.padded(ps))
    chart.band(x: (m.level.longestLayerHeight - 10)...(m.level.longestLayerHeight + 10), colour: "#fdebd0")
    chart.polyline(zip(hs, ps).map { SIMD2($0, $1) }, colour: "#9db3c9", width: 1)
    chart.dots(zip(hs, ps).map { SIMD2($0, $1) }, radius: 2)
    chart.verticalLine(at: m.level.height, colour: "#c0392b", label: String(format: "h* = %.1f mm (parabola over the longest layer ± 10 mm)", m.level.height))
    let left = m.layers.count - shown.count
    let percent = Int((minimumMeasuredFraction * 100).rounded())
    if run != nil {
      chart.note(
        String(format: "Measured head: h %.0f to %.0f mm, layers with ≥ %d %% of the contour measured", lowest, highest, percent)
          + (left > 0 ? "; \(left) less measured layer\(left == 1 ? "" : "s") beyond it not shown" : ""))
    } else {
      chart.note("The layer at h* is less than \(percent) % measured; only layers measured ≥ \(percent) % are shown")
    }
    return chart.svg
  }

  /// The share of a layer's contour that must be measured for the perimeter curve to show it:
  /// the completeness a report asks of the contour at the measurement level.
  public static let measuredLayerFraction = MeasureReport.completeContourPercent / 100
}

/// Maps layer coordinates (mm; x anterior, y left) to an SVG page seen from above, face up.
struct TopView {
  let size: Int
  let margin: Int
  let centre: SIMD2<Double>
  let scale: Double

  init(points: [SIMD2<Double>], size: Int, margin: Int) {
    self.size = size
    self.margin = margin
    let xs = points.map(\.x), ys = points.map(\.y)
    let lo = SIMD2(xs.min() ?? -1, ys.min() ?? -1), hi = SIMD2(xs.max() ?? 1, ys.max() ?? 1)
    centre = (lo + hi) / 2
    scale = Double(size) / max(1e-9, max(hi.x - lo.x, hi.y - lo.y))
  }

  /// Page point: anterior (x) up, the infant's left (y) to the page's left.
  func page(_ p: SIMD2<Double>) -> SIMD2<Double> {
    SIMD2(Double(margin + size / 2) - (p.y - centre.y) * scale, Double(margin + size / 2) - (p.x - centre.x) * scale)
  }

  func path(_ points: [SIMD2<Double>]) -> String {
    points.enumerated().map { i, p in
      let q = page(p)
      return String(format: "%@%.1f %.1f", i == 0 ? "M" : "L", q.x, q.y)
    }.joined() + "Z"
  }

  func open(title: String) -> String {
    let side = size + 2 * margin
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(side)\" height=\"\(side)\" viewBox=\"0 0 \(side) \(side)\" font-family=\"sans-serif\">\n"
      + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"16\" y=\"24\" font-size=\"15\">\(title)</text>\n"
  }

  func orientationLabels() -> String {
    let side = size + 2 * margin
    return "<text x=\"\(side / 2)\" y=\"44\" font-size=\"12\" text-anchor=\"middle\" fill=\"#777\">anterior (face)</text>\n"
      + "<text x=\"16\" y=\"\(side / 2)\" font-size=\"12\" fill=\"#777\">L</text>\n"
      + "<text x=\"\(side - 24)\" y=\"\(side / 2)\" font-size=\"12\" fill=\"#777\">R</text>\n"
  }
}
