import Foundation

/// A small x–y chart drawn as SVG: axes with ticks and labels, dots, reference lines, bands.
/// Used for the perimeter-by-height figure and the Bland–Altman plots.
package struct SVGChart: Sendable {
  package let width: Double, height: Double
  let left = 74.0, right = 24.0, top = 44.0, bottom = 52.0
  let xRange: ClosedRange<Double>, yRange: ClosedRange<Double>
  private var body = ""

  /// - Parameters: the chart's page size (px), title, axis labels (with units) and value ranges.
  package init(
    width: Double = 640, height: Double = 420, title: String, xLabel: String, yLabel: String,
    x: ClosedRange<Double>, y: ClosedRange<Double>
  ) {
    self.width = width
    self.height = height
    xRange = x.upperBound > x.lowerBound ? x : (x.lowerBound - 1)...(x.upperBound + 1)
    yRange = y.upperBound > y.lowerBound ? y : (y.lowerBound - 1)...(y.upperBound + 1)
    body += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    body += "<text x=\"\(Int(left))\" y=\"26\" font-size=\"15\">\(Self.escaped(title))</text>\n"
    body += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", left, height - bottom, width - right, height - bottom)
    body += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", left, top, left, height - bottom)
    for tick in Self.ticks(xRange) {
      body += String(format: "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">%@</text>\n", px(tick), height - bottom + 16, Self.label(tick))
    }
    for tick in Self.ticks(yRange) {
      body += String(format: "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%@</text>\n", left - 6, py(tick) + 4, Self.label(tick))
    }
    body += String(format: "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">%@</text>\n", (left + width - right) / 2, height - 12, Self.escaped(xLabel))
    let middle = (top + height - bottom) / 2
    body += String(format: "<text x=\"18\" y=\"%.0f\" font-size=\"12\" transform=\"rotate(-90 18 %.0f)\" text-anchor=\"middle\">%@</text>\n", middle, middle, Self.escaped(yLabel))
  }

  /// Page x of a value.
  func px(_ x: Double) -> Double { left + (x - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * (width - left - right) }
  /// Page y of a value.
  func py(_ y: Double) -> Double { top + (yRange.upperBound - y) / (yRange.upperBound - yRange.lowerBound) * (height - top - bottom) }

  /// Round dots at the points.
  package mutating func dots(_ points: [SIMD2<Double>], colour: String = "#1f4e79", radius: Double = 3) {
    for p in points {
      body += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%@\" fill-opacity=\"0.8\"/>\n", px(p.x), py(p.y), radius, colour)
    }
  }

  /// A horizontal line across the plot at `y`, labelled at its right end.
  package mutating func horizontalLine(at y: Double, colour: String, dashed: Bool = false, label: String? = nil) {
    body += String(format: "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%@\" stroke-width=\"1.5\"%@/>\n", left, py(y), width - right, py(y), colour, dashed ? " stroke-dasharray=\"6 4\"" : "")
    if let label {
      body += String(format: "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"%@\">%@</text>\n", width - right - 4, py(y) - 4, colour, Self.escaped(label))
    }
  }

  /// A vertical line at `x`, labelled at its top.
  package mutating func verticalLine(at x: Double, colour: String, label: String? = nil) {
    body += String(format: "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%@\" stroke-width=\"1.5\"/>\n", px(x), top, px(x), height - bottom, colour)
    if let label {
      body += String(format: "<text x=\"%.1f\" y=\"%.0f\" font-size=\"12\" fill=\"%@\">%@</text>\n", px(x) + 6, top + 14, colour, Self.escaped(label))
    }
  }

  /// A shaded band over `x` (full height) or over `y` (full width).
  package mutating func band(x: ClosedRange<Double>? = nil, y: ClosedRange<Double>? = nil, colour: String) {
    let x0 = px(max(xRange.lowerBound, x?.lowerBound ?? xRange.lowerBound)), x1 = px(min(xRange.upperBound, x?.upperBound ?? xRange.upperBound))
    let y0 = py(min(yRange.upperBound, y?.upperBound ?? yRange.upperBound)), y1 = py(max(yRange.lowerBound, y?.lowerBound ?? yRange.lowerBound))
    body += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%@\" fill-opacity=\"0.5\"/>\n", x0, y0, x1 - x0, y1 - y0, colour)
  }

  /// Points joined by straight segments, in the order given.
  package mutating func polyline(_ points: [SIMD2<Double>], colour: String = "#1f4e79", width: Double = 1.5) {
    guard points.count > 1 else { return }
    let coordinates = points.map { String(format: "%.1f,%.1f", px($0.x), py($0.y)) }.joined(separator: " ")
    body += "<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(width)\"/>\n"
  }

  /// Vertical error bars from `low` to `high` at `x`, with short caps.
  package mutating func errorBars(_ bars: [(x: Double, low: Double, high: Double)], colour: String = "#1f4e79") {
    for bar in bars {
      let x = px(bar.x), y0 = py(bar.low), y1 = py(bar.high)
      body += String(format: "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%@\" stroke-width=\"1.5\" fill=\"none\"/>\n", x, y0, y1, x - 4, y0, x + 4, x - 4, y1, x + 4, colour)
    }
  }

  /// A label at a data point, offset a few pixels up and right.
  package mutating func label(_ text: String, at p: SIMD2<Double>, colour: String = "#333") {
    body += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%@\">%@</text>\n", px(p.x) + 6, py(p.y) - 6, colour, Self.escaped(text))
  }

  /// A line of text under the title.
  package mutating func note(_ text: String) {
    body += "<text x=\"\(Int(left))\" y=\"\(Int(top) - 2)\" font-size=\"11\" fill=\"#555\">\(Self.escaped(text))</text>\n"
  }

  /// The finished SVG document.
  package var svg: String {
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\">\n" + body + "</svg>\n"
  }

  /// A range widened to round numbers with `margin` (fraction) of slack on each side.
  package static func padded(_ values: [Double], margin: Double = 0.08) -> ClosedRange<Double> {
    guard let lo = values.min(), let hi = values.max() else { return 0...1 }
    let slack = max(hi - lo, max(abs(hi), 1) * 0.01) * margin
    return (lo - slack)...(hi + slack)
  }

  /// 4–8 round tick values inside the range.
  static func ticks(_ r: ClosedRange<Double>) -> [Double] {
    let span = r.upperBound - r.lowerBound
    let raw = span / 6, magnitude = pow(10, (log10(raw)).rounded(.down))
    let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
    return Array(stride(from: (r.lowerBound / step).rounded(.up) * step, through: r.upperBound + step * 1e-9, by: step))
  }

  static func label(_ v: Double) -> String {
    let v = abs(v) < 1e-9 ? 0 : v
    return abs(v - v.rounded()) < 1e-9 ? String(format: "%.0f", v) : String(format: "%g", (v * 1000).rounded() / 1000)
  }

  static func escaped(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
  }
}
