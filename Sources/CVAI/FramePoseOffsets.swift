import _HeadScanSupport
import Foundation

/// The radial offsets the frames' own pose errors leave on the fused contour, as each frame's
/// jackknife over its stickers shows them, for the bootstrap to draw.
///
/// Each row holds one frame's change of the contour's radius, bin by bin, when one of its M
/// stickers is left out of its pose fit — already centred on the mean of that frame's M rows,
/// scaled by `√((M − 1)/M)` (the jackknife's factor) and divided by the number of such frames
/// that see the bin (the fused surface averages them). A replicate weighs every row by an
/// independent standard normal number and adds them up: an offset whose covariance across the
/// contour is the jackknife's estimate of the averaged pose errors' — a frame's tilt raises
/// one side of what it sees and lowers the other, and that shape is kept.
public struct FramePoseOffsets: Sendable, Hashable {
  /// Angular bins about the head frame's z axis: bin k covers the polar angles `atan2(y, x)`
  /// (wrapped to 0…2π) from `2πk/bins` to `2π(k + 1)/bins`.
  public let bins: Int
  /// The rows one after another, `bins` offsets each, millimetres.
  public let offsets: [Double]

  /// Rows of `bins` offsets each (millimetres), laid one after another in `offsets`; `nil`
  /// when `bins` is not positive or `offsets` is not whole rows.
  public init?(bins: Int, offsets: [Double]) {
    guard bins > 0, offsets.count % bins == 0, offsets.allSatisfy(\.isFinite) else { return nil }
    self.bins = bins
    self.offsets = offsets
  }

  /// Number of rows (frame and left-out sticker pairs).
  public var rows: Int { offsets.count / bins }

  /// Standard deviation of the drawn offset in each bin, millimetres.
  public var binSD: [Double] {
    var variance = [Double](repeating: 0, count: bins)
    for r in 0..<rows { for b in 0..<bins { variance[b] += offsets[r * bins + b] * offsets[r * bins + b] } }
    return variance.map { $0.squareRoot() }
  }

  /// The contour's point in each of `bins` angular bins about the head frame's origin: the
  /// bin's centre angle (radians) and the mean radius of the contour's vertices in the bin, or
  /// the nearest vertex's where the bin holds none (the contour's millimetres).
  public static func binnedRadii(of contour: LayerContour, bins: Int) -> [(angle: Double, radius: Double)] {
    let vertices = contour.points.map { polar($0, about: .zero) }
    var sums = [Double](repeating: 0, count: bins), counts = [Int](repeating: 0, count: bins)
    for v in vertices {
      let b = angularBin(v.angle, of: bins)
      sums[b] += v.radius
      counts[b] += 1
    }
    return (0..<bins).map { b in
      let angle = binCentre(b, of: bins)
      if counts[b] > 0 { return (angle, sums[b] / Double(counts[b])) }
      return (angle, vertices.min { angularDistance($0.angle, angle) < angularDistance($1.angle, angle) }?.radius ?? 0)
    }
  }

  /// One replicate's offset as a function of the polar angle (radians), millimetres.
  func drawn(_ random: inout SeededGenerator) -> (Double) -> Double {
    var sum = [Double](repeating: 0, count: bins)
    for r in 0..<rows {
      let g = random.gaussian()
      for b in 0..<bins { sum[b] += g * offsets[r * bins + b] }
    }
    let bins = self.bins
    return { [sum] theta in
      let angle = theta < 0 ? theta + 2 * .pi : theta
      return sum[angularBin(angle, of: bins)]
    }
  }
}

/// The angle between two polar angles (radians), 0…π.
private func angularDistance(_ a: Double, _ b: Double) -> Double {
  let d = abs(a - b).truncatingRemainder(dividingBy: 2 * .pi)
  return min(d, 2 * .pi - d)
}
