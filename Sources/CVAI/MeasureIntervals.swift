import Foundation
import PointCloud
import _HeadScanSupport

/// A 95 % interval, in the measure's unit.
public struct Interval95: Sendable, Hashable, Codable {
  public var low: Double
  public var high: Double

  public init(low: Double, high: Double) {
    self.low = low
    self.high = high
  }

  /// Half the interval's width.
  public var halfWidth: Double { (high - low) / 2 }
}

/// Bootstrap 95 % intervals of the head measures.
///
/// Each replicate redraws what the measurement depends on:
/// - the measurement level: the parabola is refitted to the layer perimeters plus residuals
///   redrawn (with replacement) from the fit's own residuals, giving a new h*;
/// - the contour at that level: the points of its band are redrawn with replacement;
/// - with a ``MeasurementUncertainty``: the head frame (landmarks drawn about where they were
///   placed), the reconstruction's scale, the offsets the frames' pose errors leave on the
///   surface (or, without them, a smooth offset shared by its points), and the contour's
///   roughness measured at the level (see there).
///
/// The interval is the replicates' spread around their median, moved onto the estimate θ̂:
/// `[θ̂ − (q₅₀ − q₂.₅), θ̂ + (q₉₇.₅ − q₅₀)]`. Redrawing with replacement thins a contour's
/// points, which lengthens noisy perimeters; plain percentiles would inherit that bias and
/// could even miss the estimate. Without a ``MeasurementUncertainty`` it covers only the
/// sampling noise of the cloud and the choice of level; ``includes`` says what it covers.
public struct MeasureIntervals: Sendable, Hashable, Codable, HeadMeasureValues {
  public var cvai: Interval95
  public var cva: Interval95
  public var diagonalA: Interval95
  public var diagonalB: Interval95
  public var length: Interval95
  public var width: Interval95
  public var ci: Interval95
  public var circumference: Interval95
  public var measurementLevel: Interval95
  /// Replicates that produced a closed contour (the others are left out).
  public var replicates: Int
  /// What the replicates drew, e.g. `["cloud sampling", "measurement level", "head frame",
  /// "scale", "surface"]` (report key `intervals95.includes`; `nil` in reports written before it).
  public var includes: [String]?

  /// Intervals from each measure's (`interval`) and the measurement level's.
  public init(
    _ interval: (HeadMeasure) -> Interval95, measurementLevel: Interval95, replicates: Int, includes: [String]?
  ) {
    (cvai, cva, diagonalA, diagonalB) = (interval(.cvai), interval(.cva), interval(.diagonalA), interval(.diagonalB))
    (length, width, ci, circumference) = (interval(.length), interval(.width), interval(.ci), interval(.circumference))
    (self.measurementLevel, self.replicates, self.includes) = (measurementLevel, replicates, includes)
  }
}

/// Bootstrap intervals for `measurement` of the head-frame `points` (metres, as given to
/// ``measureHead(points:options:workers:)``). Deterministic for a seed.
/// - Parameters:
///   - replicates: how many bootstrap draws (200 gives percentiles to about ±0.5 %).
///   - denominator: which diagonal divides CVA in the CVAI interval.
///   - uncertainty: the head frame's, the scale's and the surface's errors to draw as well
///     (default: none).
/// - Returns: `nil` when fewer than half the replicates close their contour.
public func bootstrapIntervals(
  points: [SIMD3<Double>], measurement: HeadMeasurement, replicates: Int = 200, seed: UInt64 = 1,
  denominator: CVAIDenominator = .longer, options: SlicingOptions = .default, uncertainty: MeasurementUncertainty = .none,
  workers: Int? = nil
) -> MeasureIntervals? {
  let heights = measurement.layers.map(\.contour.height), perimeters = measurement.layers.map(\.contour.perimeter)
  // Residuals of the level's parabola, over the layers it was fitted to.
  let h0 = measurement.level.longestLayerHeight
  let fitted = heights.indices.filter { abs(heights[$0] - h0) <= 10 + 1e-9 }
  let residuals = parabolaResiduals(heights: fitted.map { heights[$0] }, perimeters: fitted.map { perimeters[$0] })
  // Points near any candidate level (h* stays within ±10 mm of the longest layer), with room for
  // a drawn frame's tilt.
  let moving = uncertainty.landmarks != nil || uncertainty.scaleSD > 0
  let reach = 10 + options.halfBand + (moving ? 10 : 0)
  let nearMetres = points.filter { abs($0.z * 1000 - h0) <= reach }
  let near = nearMetres.map { $0 * 1000 }
  // The contour's roughness at the estimate's level.
  let roughness = uncertainty.contourRoughness ? BinnedRadii(near.filter { abs($0.z - measurement.level.height) <= options.halfBand }, options: options).roughness() : nil
  // One bootstrap replicate: the measures and h* it draws, nil when its contour does not close.
  let replicate: @Sendable (UInt64) -> [Double]? = { seed in
    var random = SeededGenerator(seed: seed)
    var redrawn = perimeters
    if let r = residuals, !r.fitted.isEmpty {
      for (k, i) in fitted.enumerated() { redrawn[i] = r.fitted[k] + r.residuals[random.below(r.residuals.count)] }
    }
    let level = MeasurementLevel(heights: heights, perimeters: redrawn)
    var source = near
    if moving {
      let move = uncertainty.drawnMove(&random)
      source = nearMetres.map { move.frame.apply($0) * (1000 * move.scale) }
    }
    var band = source.filter { abs($0.z - level.height) <= options.halfBand }
    guard !band.isEmpty else { return nil }
    if uncertainty.drawsSurface { band = movedRadially(band, by: uncertainty.drawnSurfaceOffset(&random)) }
    let resampled = (0..<band.count).map { _ in band[random.below(band.count)] }
    guard let e = estimateLayer(points: resampled, height: level.height, options: options),
      e.measuredFraction >= options.minimumMeasuredFraction, e.largestGap <= options.maximumGap
    else { return nil }
    var contour = e.contour
    if let roughness {
      // Added to the replicate's contour, after its own smoothing: the roughness was measured
      // on a smoothed contour, and smoothing it again would shrink it.
      let offset = MeasurementUncertainty.drawnRoughness(roughness, &random), centre = contour.centroid
      contour.points = contour.points.map { p in
        let d = p - centre
        return radialFactor(d, by: offset).map { centre + d * $0 } ?? p
      }
    }
    guard let m = HeadShapeMeasures(contour: contour) else { return nil }
    return HeadMeasure.allCases.map { $0.value(in: m, denominator: denominator) } + [level.height]
  }
  // Each replicate draws from a generator of its own (seeded from `seed`), so the replicates run
  // on every core and the result does not depend on how many there are.
  var master = SeededGenerator(seed: seed)
  let seeds = (0..<replicates).map { _ in master.next() }
  let samples = mapConcurrently(replicates, workers: threadsRunning(workers: workerCount(workers))) { replicate(seeds[$0]) }
    .compactMap { $0 }
  guard samples.count * 2 >= replicates, !samples.isEmpty else { return nil }
  let m = measurement.measures
  let estimates = HeadMeasure.allCases.map { $0.value(in: m, denominator: denominator) } + [measurement.level.height]
  func interval(_ k: Int) -> Interval95 {
    let values = samples.map { $0[k] }.sorted()
    func at(_ q: Double) -> Double {
      let position = q * Double(values.count - 1)
      let i = Int(position.rounded(.down)), f = position - Double(i)
      return i + 1 < values.count ? values[i] * (1 - f) + values[i + 1] * f : values[i]
    }
    let median = at(0.5)
    return Interval95(low: estimates[k] - (median - at(0.025)), high: estimates[k] + (at(0.975) - median))
  }
  var includes = ["cloud sampling", "measurement level"]
  if uncertainty.landmarks != nil { includes.append("head frame") }
  if uncertainty.scaleSD > 0 { includes.append("scale") }
  if uncertainty.drawsSurface { includes.append("surface") }
  if roughness != nil { includes.append("contour roughness") }
  let measures = HeadMeasure.allCases
  return MeasureIntervals(
    { interval(measures.firstIndex(of: $0)!) }, measurementLevel: interval(measures.count), replicates: samples.count, includes: includes)
}

/// Points (mm) moved along their radius from the z axis by `offset(polar angle)`, mm.
func movedRadially(_ points: [SIMD3<Double>], by offset: (Double) -> Double) -> [SIMD3<Double>] {
  points.map { p in radialFactor(SIMD2(p.x, p.y), by: offset).map { SIMD3(p.x * $0, p.y * $0, p.z) } ?? p }
}

/// The factor that moves a point `d` from the centre it is moved about (mm) along its radius by
/// `offset(its polar angle)` mm; `nil` at the centre itself.
func radialFactor(_ d: SIMD2<Double>, by offset: (Double) -> Double) -> Double? {
  let r = (d.x * d.x + d.y * d.y).squareRoot()
  guard r > 0 else { return nil }
  return 1 + offset(atan2(d.y, d.x)) / r
}

/// The least-squares parabola's values at `heights` and the residuals; `nil` for under 3 layers.
func parabolaResiduals(heights: [Double], perimeters: [Double]) -> (fitted: [Double], residuals: [Double])? {
  guard heights.count >= 3 else { return nil }
  let mean = heights.reduce(0, +) / Double(heights.count)
  let rows = heights.map { h -> [Double] in let t = h - mean; return [1, t, t * t] }
  guard let c = solveNormalEquations(rows: rows, targets: perimeters) else { return nil }
  let fitted = rows.map { c[0] * $0[0] + c[1] * $0[1] + c[2] * $0[2] }
  return (fitted, zip(perimeters, fitted).map { $0 - $1 })
}
