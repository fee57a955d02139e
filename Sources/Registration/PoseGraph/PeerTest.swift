import Foundation
import _HeadScanSupport

/// A one-sided test of a value against its peers in the same scan: the value is an outlier when it
/// lies more than ``deviations`` robust standard deviations above the peers' median.
///
/// The peers' spread is estimated robustly (1.4826 · median absolute deviation, which equals the
/// standard deviation for normally distributed values and ignores up to half of them being
/// outliers) and combined in quadrature with each value's own sampling spread, so a value measured
/// from few samples is not rejected for its sampling noise alone, and a scan whose peers happen to
/// agree closely does not reject everything above them.
///
/// Scale-like values (RMS residuals, spreads) are tested on a logarithmic scale, where their
/// distribution across markers or frames is close to normal: a marker twice as noisy as the
/// median is as far out on a quiet scan as on a noisy one. Under that model the false-reject rate
/// of one value is the normal tail beyond ``deviations`` (3.5: 0.023 %; 3: 0.13 %).
public struct PeerTest: Sendable, Hashable {
  /// The peers' median (in the tested scale: the logarithm for ``logarithmic`` tests).
  public var centre: Double
  /// The peers' robust standard deviation (same scale as ``centre``).
  public var spread: Double
  /// Standard deviations above the median beyond which a value is rejected.
  public var deviations: Double
  /// Whether values are tested on a logarithmic scale.
  public var logarithmic: Bool
  /// How many peers the median and spread come from.
  public var peers: Int
  /// Values no larger than this always pass, and the limit is never below it (the values' unit):
  /// below the measurement's resolution nothing is an outlier — without it, exact synthetic data
  /// would reject values for their rounding errors.
  public var resolution: Double

  /// The test from the peers' values (non-positive values are left out of a logarithmic test).
  /// With no peers the test accepts everything.
  public init(peers values: [Double], deviations: Double, logarithmic: Bool, resolution: Double = Self.micrometre) {
    self.init(peers: values, weights: values.map { _ in 1 }, deviations: deviations, logarithmic: logarithmic, resolution: resolution)
  }

  /// The test from the peers' values, each counted by its weight in the median and in the median
  /// absolute deviation (for instance the number of residuals a value was measured from, so that
  /// a value from few samples moves the scan's median less than one from many). Values with no
  /// positive weight are left out; with equal weights this is ``init(peers:deviations:logarithmic:resolution:)``.
  public init(peers values: [Double], weights: [Double], deviations: Double, logarithmic: Bool, resolution: Double = Self.micrometre) {
    precondition(values.count == weights.count, "one weight a value")
    self.resolution = resolution
    let usable = zip(values, weights).filter { $0.0.isFinite && (!logarithmic || $0.0 > 0) && $0.1 > 0 }
      .map { (value: logarithmic ? log($0.0) : $0.0, weight: $0.1) }
    self.deviations = deviations
    self.logarithmic = logarithmic
    peers = usable.count
    guard !usable.isEmpty else {
      centre = .infinity
      spread = 0
      return
    }
    let median = weightedLowerMedian(usable)
    centre = median
    spread = 1.4826 * weightedLowerMedian(usable.map { (value: abs($0.value - median), weight: $0.weight) })
  }

  /// The largest value that passes, for a value with its own sampling spread `ownSpread` (in the
  /// tested scale: relative for logarithmic tests), back in the values' unit.
  public func limit(ownSpread: Double = 0) -> Double {
    guard centre.isFinite else { return .infinity }
    let bound = centre + deviations * (spread * spread + ownSpread * ownSpread).squareRoot()
    return max(resolution, logarithmic ? exp(bound) : bound)
  }

  /// One micrometre in metres: the default ``resolution``, far below any depth camera's noise and
  /// far above floating-point rounding.
  public static let micrometre = 1e-6

  /// The peers' median in the values' unit.
  public var median: Double { logarithmic ? exp(centre) : centre }

  /// Whether `value` passes.
  public func accepts(_ value: Double, ownSpread: Double = 0) -> Bool { value.isFinite && value <= limit(ownSpread: ownSpread) }
}

/// The smallest value at which the cumulative weight of the values up to it reaches half the
/// total: the lower median when every weight is equal.
/// - Precondition: not empty, weights positive.
func weightedLowerMedian(_ values: [(value: Double, weight: Double)]) -> Double {
  let sorted = values.sorted { $0.value < $1.value }
  let half = sorted.reduce(0) { $0 + $1.weight } / 2
  var cumulative = 0.0
  for entry in sorted {
    cumulative += entry.weight
    if cumulative >= half { return entry.value }
  }
  return sorted[sorted.count - 1].value
}
