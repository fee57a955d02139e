import Agreement
import Foundation
import _HeadScanSupport

/// Bland–Altman figures: differences (report − calliper) against the pair means.
public enum BlandAltmanPlot {
  /// One measure's plot: the pairs, the bias with its 95 % CI band, the 95 % limits of
  /// agreement with their CI bands, labelled axes in the measure's unit.
  public static func svg(_ a: MeasureAgreement) -> String {
    let s = a.statistics
    let means = a.pairs.map { ($0.report + $0.calliper) / 2 }, differences = a.pairs.map { $0.report - $0.calliper }
    let yValues = differences + [s.lowerLoACI.low, s.upperLoACI.high, 0]
    var chart = SVGChart(
      title: "Bland–Altman: \(a.measure.title), headscan − calliper (n = \(s.n))",
      xLabel: "mean of headscan and calliper (\(a.measure.unit))", yLabel: "difference, headscan − calliper (\(a.measure.unit))",
      x: SVGChart.padded(means), y: SVGChart.padded(yValues, margin: 0.12))
    chart.band(y: s.upperLoACI.low...s.upperLoACI.high, colour: "#f5cba7")
    chart.band(y: s.lowerLoACI.low...s.lowerLoACI.high, colour: "#f5cba7")
    chart.band(y: s.biasCI.low...s.biasCI.high, colour: "#d6eaf8")
    chart.horizontalLine(at: 0, colour: "#999999")
    chart.horizontalLine(at: s.bias, colour: "#1f4e79", label: String(format: "bias %.2f (95%% CI %.2f to %.2f)", s.bias, s.biasCI.low, s.biasCI.high))
    chart.horizontalLine(at: s.upperLoA, colour: "#c0392b", dashed: true, label: String(format: "upper LoA %.2f", s.upperLoA))
    chart.horizontalLine(at: s.lowerLoA, colour: "#c0392b", dashed: true, label: String(format: "lower LoA %.2f", s.lowerLoA))
    chart.dots(zip(means, differences).map { SIMD2($0, $1) })
    var note = String(format: "SD %.2f  MAD %.2f", s.sd, s.meanAbsoluteDifference)
    if let r = s.pearsonR { note += String(format: "  r %.3f", r) }
    if let icc = s.icc { note += String(format: "  ICC(2,1) %.3f", icc) }
    chart.note(note + "; shaded: 95 % confidence intervals")
    return chart.svg
  }
}
