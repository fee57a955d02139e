import CVAI
import Foundation

/// A horizontal scale of clinical bands (CHOA severity levels, cranial-index classes) with a
/// value and its 95 % interval drawn on it, as SVG.
struct ScaleBar {
  /// One band of the scale: values in `range` get `label`.
  struct Band {
    var range: Range<Double>
    var label: String
    var colour: String
  }

  var title: String
  var domain: ClosedRange<Double>
  var bands: [Band]

  /// Children's Healthcare of Atlanta levels from CVAI (docs/head-frame-and-measures.md), on 0–16 %.
  static let choa = ScaleBar(
    title: "CVAI on the CHOA severity scale (%)", domain: 0...16,
    bands: [
      Band(range: 0..<3.5, label: "1", colour: "#a9dfbf"), Band(range: 3.5..<6.25, label: "2", colour: "#f9e79f"),
      Band(range: 6.25..<8.75, label: "3", colour: "#f8c471"), Band(range: 8.75..<11, label: "4", colour: "#f0b27a"),
      Band(range: 11..<16, label: "5", colour: "#ec7063"),
    ])

  /// Cranial-index classes (`CranialIndexClass`), on 60–100.
  static let cranialIndex = ScaleBar(
    title: "Cranial index (width / length × 100)", domain: 60...100,
    bands: [
      Band(range: 60..<75, label: "dolichocephalic", colour: "#d6eaf8"),
      Band(range: 75..<85, label: "normocephalic", colour: "#a9dfbf"),
      Band(range: 85..<100, label: "brachycephalic", colour: "#f9e79f"),
    ])

  /// The scale with `value` marked and its interval as a bar; values off the scale are drawn at its end.
  func svg(value: Double, interval: Interval95?, valueLabel: String) -> String {
    let width = 640.0, height = 104.0, left = 16.0, right = 16.0, barTop = 40.0, barHeight = 26.0
    func x(_ v: Double) -> Double {
      let clamped = min(max(v, domain.lowerBound), domain.upperBound)
      return left + (clamped - domain.lowerBound) / (domain.upperBound - domain.lowerBound) * (width - left - right)
    }
    var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\">\n"
    svg += "<text x=\"\(Int(left))\" y=\"16\" font-size=\"13\">\(HTMLPage.escaped(title))</text>\n"
    for band in bands {
      let x0 = x(band.range.lowerBound), x1 = x(band.range.upperBound)
      svg += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%@\" stroke=\"white\"/>\n", x0, barTop, x1 - x0, barHeight, band.colour)
      svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">%@</text>\n", (x0 + x1) / 2, barTop + barHeight - 8, HTMLPage.escaped(band.label))
    }
    let edges = Set(bands.flatMap { [$0.range.lowerBound, $0.range.upperBound] }).sorted()
    for edge in edges {
      svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\" fill=\"#555\">%@</text>\n", x(edge), barTop + barHeight + 13, HTMLPage.number(edge, edge == edge.rounded() ? 0 : 2))
    }
    if let interval {
      svg += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"6\" fill=\"#1b2631\" fill-opacity=\"0.75\"/>\n", x(interval.low), barTop + barHeight / 2 - 3, max(1.5, x(interval.high) - x(interval.low)))
    }
    let vx = x(value)
    svg += String(format: "<path d=\"M%.1f %.1fl-7 -11h14z\" fill=\"#1b2631\"/>\n", vx, barTop - 1)
    svg += String(format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1b2631\" stroke-width=\"2\"/>\n", vx, barTop, vx, barTop + barHeight)
    let anchor = vx > width - 150 ? "end" : (vx < 150 ? "start" : "middle")
    svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\" text-anchor=\"%@\">%@</text>\n", vx, barTop - 14, anchor, HTMLPage.escaped(valueLabel))
    return svg + "</svg>\n"
  }
}
