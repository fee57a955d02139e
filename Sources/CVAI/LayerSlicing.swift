import Foundation
import _HeadScanSupport

/// One layer's contour estimated from a point cloud.
public struct LayerEstimate: Sendable, Hashable {
  /// The contour (millimetres, layer coordinates: x anterior, y left).
  public var contour: LayerContour
  /// Fraction of the 1° angular bins that held points (the rest is interpolated by the fit), 0…1.
  public var measuredFraction: Double
  /// Largest run of empty bins, degrees.
  public var largestGap: Double
  /// Points that fell in the layer's band.
  public var points: Int
  /// ``ContourMethod/fourierFit``: the Fourier order cross-validation chose (0 otherwise).
  public var harmonics = 0
  /// ``ContourMethod/fourierFit``: RMS radial distance of the band's points from the contour,
  /// outliers left out, millimetres (the surface's noise plus the band's slope; 0 otherwise).
  public var residualRMS = 0.0
}

/// Slicing parameters. Lengths in millimetres.
public struct SlicingOptions: Sendable, Hashable {
  /// Distance between layers (1 mm unless the user sets another, within ``spacingRange``).
  public var spacing = 1.0
  /// The layer spacings ``measureHead(points:options:workers:)`` takes: 0.01…100 mm.
  public static let spacingRange = 0.01...100.0
  /// Points within ± this of a layer's plane belong to it.
  public var halfBand = 1.0
  /// Angular bins around the layer centre.
  public var bins = 360
  /// Harmonics of the smooth radius function r(θ) that fills empty bins (with
  /// ``ContourMethod/fourierFit``: the largest order cross-validation may choose).
  public var harmonics = 16
  /// How a layer's points become its contour.
  public var contour = ContourMethod.fourierFit
  /// Measured bins are smoothed over ± this many neighbouring measured bins (a local line
  /// through their medians, evaluated at the bin: their average when none is missing).
  public var smoothingBins = 2
  /// A layer is closed when at least this fraction of bins is measured…
  public var minimumMeasuredFraction = 0.6
  /// …and no gap is wider than this, degrees.
  public var maximumGap = 45.0

  public static let `default` = SlicingOptions()

  /// For a head frame whose layers start at the lowest scanned point (the automatic frame),
  /// not at the ears' plane: the lowest layers then cut the face, whose contours are long
  /// (nose, cheeks) but broken where the chin and neck hide them, and the longest of them
  /// would be taken for the measurement level. Only layers measured nearly all round
  /// (90 % of the bins, no gap over 20°) count; the cap's layers are.
  public static let fromLowestPoint: SlicingOptions = {
    var o = SlicingOptions()
    o.minimumMeasuredFraction = 0.9
    o.maximumGap = 20
    return o
  }()

  public init() {}
}

/// Estimates the contour of the layer `z = height` from head-frame points (millimetres).
///
/// ``ContourMethod/fourierFit`` (the default): a radius function r(θ) of up to 16 harmonics
/// fitted to every point of the band by least squares about the points' mean, its order the one
/// that predicts left-out 10° sectors best, outliers down-weighted by Tukey's biweight, then
/// refitted at that order about the first curve's area centroid.
///
/// ``ContourMethod/binnedMedians``: points within the band are binned by angle (1°) around their centroid; each
/// bin's radius is the median of its points (robust to noise and stray points),
/// smoothed with its measured neighbours (±2°: noise would otherwise lengthen the
/// perimeter, and sharp features stay sharp) by a local least-squares line evaluated at the
/// bin's centre: the plain average where all neighbours are measured, unbiased by the slope
/// of r(θ) where some are not (``localLinearValue(_:)``). Empty bins take the value of a
/// Fourier series fitted to the measured bins by least squares, which bridges holes
/// smoothly: up to 16 harmonics, and none whose period is shorter than twice the widest gap
/// (those would swing freely inside it).
/// - Returns: `nil` when the band holds too few points for the fit.
public func estimateLayer(points: [SIMD3<Double>], height: Double, options: SlicingOptions = .default) -> LayerEstimate? {
  let band = points.filter { abs($0.z - height) <= options.halfBand }
  guard band.count >= 4 * options.harmonics + 4 else { return nil }
  if options.contour == .fourierFit { return fittedLayer(band.map { SIMD2($0.x, $0.y) }, height: height, options: options) }
  let binned = BinnedRadii(band, options: options)
  guard let coefficients = fitFourier(binned.samples, harmonics: binned.fillHarmonics) else { return nil }
  // Measured bins: a local line through the medians (keeps sharp features); empty bins: the smooth fit.
  let outline = (0..<options.bins).map { k -> SIMD2<Double> in
    let theta = binned.angle(k)
    let radius = binned.smoothed[k] ?? evaluateFourier(coefficients, theta)
    return binned.centre + radius * SIMD2(cos(theta), sin(theta))
  }
  let samples = binned.samples, largest = binned.largestGap
  return LayerEstimate(
    contour: LayerContour(points: outline, height: height),
    measuredFraction: Double(samples.count) / Double(options.bins),
    largestGap: Double(largest) * 360 / Double(options.bins), points: band.count)
}

/// The value at offset 0 of the least-squares line through `samples` (bin offsets, radii): a
/// bin's local average that stays unbiased where the window is lopsided.
///
/// A plain average of the measured bins within ± `smoothingBins` places their mean radius at the
/// bin's centre; beside an empty bin (a gap's edge) the window's measured bins lie on one side,
/// their mean belongs to an angle up to a bin and a half away, and on a slope r′(θ) the radius is
/// off by r′ times that (13 mm/rad × 1° = 0.23 mm at the side of a CI 84 head: the cloud's
/// contour then zigzags at each gap, 0.1–0.4 mm too long). The line through the window removes
/// that term and equals the plain average when the window is symmetric.
func localLinearValue(_ samples: [(offset: Double, radius: Double)]) -> Double {
  let n = Double(samples.count)
  let meanOffset = samples.reduce(0) { $0 + $1.offset } / n
  let meanRadius = samples.reduce(0) { $0 + $1.radius } / n
  let spread = samples.reduce(0) { $0 + ($1.offset - meanOffset) * ($1.offset - meanOffset) }
  guard spread > 0 else { return meanRadius }
  let slope = samples.reduce(0) { $0 + ($1.offset - meanOffset) * ($1.radius - meanRadius) } / spread
  return meanRadius - slope * meanOffset
}

/// ``ContourMethod/fourierFit``: the curve fitted about the points' mean, then refitted (same
/// order) about that curve's area centroid (the mean leans toward the side seen most).
func fittedLayer(_ band: [SIMD2<Double>], height: Double, options: SlicingOptions) -> LayerEstimate? {
  let samples = 2 * options.bins
  var centre = band.reduce(SIMD2<Double>.zero, +) / Double(band.count)
  guard let first = FourierContourFit(band, centre: centre, maximum: options.harmonics) else { return nil }
  centre = LayerContour(points: first.outline(around: centre, count: samples), height: height).centroid
  guard let fit = FourierContourFit(band, centre: centre, maximum: options.harmonics, order: first.harmonics) else { return nil }
  var occupied = [Bool](repeating: false, count: options.bins)
  for p in band { occupied[angularBin(polar(p, about: centre).angle, of: options.bins)] = true }
  var estimate = LayerEstimate(
    contour: LayerContour(points: fit.outline(around: centre, count: samples), height: height),
    measuredFraction: Double(occupied.filter { $0 }.count) / Double(options.bins),
    largestGap: Double(largestGap(occupied: occupied)) * 360 / Double(options.bins), points: band.count)
  estimate.harmonics = fit.harmonics
  estimate.residualRMS = fit.residualRMS
  return estimate
}

/// A point's polar angle (0 ≤ θ < 2π, counter-clockwise from +x) and distance about `centre`.
func polar(_ p: SIMD2<Double>, about centre: SIMD2<Double>) -> (angle: Double, radius: Double) {
  let d = p - centre
  let angle = atan2(d.y, d.x)
  return (angle < 0 ? angle + 2 * .pi : angle, (d * d).sum().squareRoot())
}

/// The bin (0..<`bins`) of equal angular width that an angle in 0…2π falls in.
func angularBin(_ angle: Double, of bins: Int) -> Int {
  min(bins - 1, Int(angle / (2 * .pi) * Double(bins)))
}

/// The centre angle of bin `k` of `bins` equal ones (``angularBin(_:of:)``), radians.
func binCentre(_ k: Int, of bins: Int) -> Double {
  (Double(k) + 0.5) / Double(bins) * 2 * .pi
}

/// Least-squares `r(θ) = a0 + Σ a_k cos kθ + b_k sin kθ`; coefficients as [a0, a1, b1, a2, b2, …].
func fitFourier(_ samples: [(theta: Double, r: Double)], harmonics: Int) -> [Double]? {
  let rows = samples.map { s -> [Double] in
    var row = [1.0]
    for k in 1...harmonics { row += [cos(Double(k) * s.theta), sin(Double(k) * s.theta)] }
    return row
  }
  return solveNormalEquations(rows: rows, targets: samples.map(\.r))
}

/// The series [a0, a1, b1, a2, b2, …] at `theta`; cos kθ and sin kθ by the angle-addition
/// recurrence (one cosine and one sine a call, not two a harmonic).
func evaluateFourier(_ c: [Double], _ theta: Double) -> Double {
  var r = c[0]
  let c1 = cos(theta), s1 = sin(theta)
  var (ck, sk) = (1.0, 0.0)
  var k = 1
  while 2 * k < c.count {
    (ck, sk) = (ck * c1 - sk * s1, sk * c1 + ck * s1)
    r += c[2 * k - 1] * ck + c[2 * k] * sk
    k += 1
  }
  return r
}
