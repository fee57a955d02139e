/// Finds the measurement level h* from layer perimeters (contract §4).
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
  ///   - halfBand: half-width of the fitting band, mm (contract: 10).
  public init(heights: [Double], perimeters: [Double], halfBand: Double = 10) {
    precondition(!heights.isEmpty && heights.count == perimeters.count, "one perimeter per layer")
    let best = perimeters.indices.max { perimeters[$0] < perimeters[$1] }!
    let h0 = heights[best]
    let band = heights.indices.filter { abs(heights[$0] - h0) <= halfBand + 1e-9 }
    let lowest = band.map { heights[$0] }.min()!, highest = band.map { heights[$0] }.max()!
    // Least squares in the centred variable t = h − h0 for conditioning.
    var s = [Double](repeating: 0, count: 5), r = [Double](repeating: 0, count: 3)
    for i in band {
      let t = heights[i] - h0, p = perimeters[i]
      var power = 1.0
      for k in 0..<5 {
        s[k] += power
        if k < 3 { r[k] += power * p }
        power *= t
      }
    }
    // Normal equations for (c, b, a): [[s0 s1 s2] [s1 s2 s3] [s2 s3 s4]] x = r.
    let m = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
    longestLayerHeight = h0
    layersFitted = band.count
    if band.count >= 3, let x = Self.solve3(m, r), x[2] < 0 {
      curvature = x[2]
      height = min(highest, max(lowest, h0 - x[1] / (2 * x[2])))
    } else {
      curvature = 0
      height = h0
    }
  }

  /// Cramer's rule for a 3×3 system; `nil` when singular.
  private static func solve3(_ m: [[Double]], _ r: [Double]) -> [Double]? {
    func det(_ a: [[Double]]) -> Double {
      a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
    }
    let d = det(m)
    guard abs(d) > 1e-12 else { return nil }
    return (0..<3).map { column in
      var replaced = m
      for row in 0..<3 { replaced[row][column] = r[row] }
      return det(replaced) / d
    }
  }
}
