import _HeadScanSupport

/// Finds the measurement level h* from layer perimeters (docs/head-frame-and-measures.md).
///
/// The perimeter curve is flat near its peak, so the raw arg-max is unstable:
/// fit `P(h) = a h² + b h + c` by least squares to the layers within
/// `halfBand` of the longest, take the vertex, clamp it to that band.
public struct MeasurementLevel: Sendable, Hashable, Codable {
  /// Height of the longest sampled layer, mm.
  public var longestLayerHeight: Double
  /// The fitted and clamped ML height h*, mm.
  public var height: Double
  /// Curvature `a` of the fitted parabola, mm⁻¹ (negative at a real peak).
  public var curvature: Double
  /// Number of layers used in the fit.
  public var layersFitted: Int

  /// - Parameters:
  ///   - heights: layer heights, mm, increasing.
  ///   - perimeters: one perimeter per height, mm.
  ///   - halfBand: half-width of the fitting band, mm (10 by definition).
  public init(heights: [Double], perimeters: [Double], halfBand: Double = 10) {
    precondition(!heights.isEmpty && heights.count == perimeters.count, "one perimeter per layer")
    let best = perimeters.indices.max { perimeters[$0] < perimeters[$1] }!
    let h0 = heights[best]
    let band = heights.indices.filter { abs(heights[$0] - h0) <= halfBand + 1e-9 }
    let lowest = band.map { heights[$0] }.min()!, highest = band.map { heights[$0] }.max()!
    // Least squares in the centred variable t = h − h0 for conditioning: x = (c, b, a).
    let rows = band.map { i -> [Double] in let t = heights[i] - h0; return [1, t, t * t] }
    let solution = solveNormalEquations(rows: rows, targets: band.map { perimeters[$0] })
    longestLayerHeight = h0
    layersFitted = band.count
    if band.count >= 3, let x = solution, x[2] < 0 {
      curvature = x[2]
      height = min(highest, max(lowest, h0 - x[1] / (2 * x[2])))
    } else {
      curvature = 0
      height = h0
    }
  }
}
