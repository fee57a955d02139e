import Foundation
import PointCloud
import ScanIO
import _HeadScanSupport

/// One depth-lifted marker view's focal length and apparent size.
struct MarkerFocalSample {
  /// The frame it was seen in (the bootstrap resamples frames).
  var frame: Int
  /// Focal length this view shows, pixels.
  var focalLength: Double
  /// Its mean side in the image, pixels.
  var apparentSide: Double
  /// Whether its corners were moved onto its fitted border edges (they differ from the
  /// corners fitted to the edges' parts next to each, ``LiftedMarker/triangulationCorners``).
  var edgeRefined: Bool
}

/// Checks the scan's stated focal length against the one its markers show.
///
/// For each marker lifted by depth (corners refined along the border edges when the
/// observation did so), the corners' offsets from the principal point times their depths,
/// `m = ((u − cx)·z, (v − cy)·z·fx/fy)`, span the printed square: along each side and
/// diagonal of printed length `L` whose depth changes by `Δz`,
/// `|m₂ − m₁| = f · √(L² − Δz²)`. The marker's focal length is the ratio of those sums over
/// its four sides and two diagonals, which does not depend on the stated focal length.
///
/// Corners a detector places `b` pixels inside the printed square shorten every side by
/// `2b`, so a view of apparent side `ℓ` pixels reads `f·(1 − 2b/ℓ)`: OpenCV's corners sit about
/// 0.3 px inside small markers (the real TrueDepth board: 0.37 px, sides 3 % short). The check
/// therefore uses the corners moved onto the fitted border edges where the observation has
/// them (``ObservationOptions/refineCornersAlongEdges``), and tests what bias is left: the
/// views' focal lengths are fitted as a line in `1/ℓ` (Huber-weighted least squares, scale
/// from the median absolute deviation); while its slope is more than two standard errors from
/// zero, the smallest quarter of the views is left out (at most three times). The estimate is
/// the Huber mean of the views kept; its standard error, and the slope's, come from
/// resampling whole frames (views in one frame share its depth error).
/// - Parameters:
///   - observations: the observation stage's result (``observeScan(_:options:progress:)``);
///     no registration is needed.
///   - statedFocalLength: the focal length to judge, colour-image pixels; default the
///     observations' own (`context.colour.fx`). Pass the scan's original one when the
///     observations were made with other intrinsics.
///   - options: see ``IntrinsicsCheckOptions``.
/// - Returns: `nil` when fewer than `options.minimumMarkers` views qualify.
public func checkIntrinsics(
  _ observations: ScanObservations, statedFocalLength: Double? = nil, options: IntrinsicsCheckOptions = .default
) -> IntrinsicsCheck? {
  let colour = observations.context.colour
  let side = observations.context.markerSideLength
  var samples: [MarkerFocalSample] = []
  for (position, frame) in observations.frames.enumerated() {
    for marker in frame.lifted where marker.method == .depth && marker.facing >= options.minimumFacing {
      if let sample = focalSample(marker, frame: position, colour: colour, side: side) { samples.append(sample) }
    }
  }
  let minimum = max(3, options.minimumMarkers)
  guard samples.count >= minimum, side > 0 else { return nil }
  // Corners on fitted border edges where enough views have them; the detector's own otherwise.
  let refined = samples.filter(\.edgeRefined)
  let candidates = (refined.count >= minimum ? refined : samples).sorted { $0.apparentSide < $1.apparentSide }
  // The smallest views first out until the rest show no trend with 1/ℓ (the corner bias).
  var generator = SeededGenerator(seed: options.seed)
  var chosen = focalBootstrap(candidates, resamples: options.resamples, workers: options.workers, generator: &generator)
  for quarter in 1..<4 {
    guard abs(chosen.fit.slope) > 2 * chosen.slopeError else { break }
    let kept = Array(candidates[(candidates.count * quarter / 4)...])
    guard kept.count >= minimum else { break }
    chosen = focalBootstrap(kept, resamples: options.resamples, workers: options.workers, generator: &generator)
  }
  let estimate = chosen.fit.mean
  let bias = upperMedian(samples.map { $0.apparentSide * (1 - $0.focalLength / estimate) / 2 })
  var limit = max(options.tolerance, 2 * chosen.meanError / estimate)
  // Without edge-refined corners (cells under 3.5 px, e.g. 320×240) a trend left after the
  // trimming is a corner bias not under control: the limit takes in the shortfall the trend
  // puts on the kept views' median size, so a biased estimate does not raise a false alarm.
  if refined.count < minimum, chosen.fit.slope < 0, abs(chosen.fit.slope) > 2 * chosen.slopeError {
    limit = max(limit, abs(chosen.fit.slope) / chosen.medianSide / estimate)
  }
  return IntrinsicsCheck(
    statedFocalLength: statedFocalLength ?? colour.fx, focalLengthEstimate: estimate, focalLengthUncertainty: chosen.meanError,
    cornerBias: bias, markersUsed: chosen.count, framesUsed: chosen.frames, smallestSide: chosen.smallestSide, limit: limit)
}

/// The fits of some views and their standard errors from resampling whole frames.
func focalBootstrap(
  _ samples: [MarkerFocalSample], resamples: Int, workers: Int? = nil, generator: inout SeededGenerator
) -> (
  fit: (intercept: Double, slope: Double, mean: Double), slopeError: Double, meanError: Double, count: Int, frames: Int,
  smallestSide: Double, medianSide: Double
) {
  // In frame order: the draws, and so the errors, must not depend on the dictionary's hashing.
  let frames = Dictionary(grouping: samples, by: \.frame).sorted { $0.key < $1.key }.map(\.value)
  // The draws in order from the one generator, then the replicates' fits on every core.
  let draws = (0..<max(2, resamples)).map { _ in frames.indices.map { _ in generator.below(frames.count) } }
  let fits = ResultSlots<(slope: Double, mean: Double)>(count: draws.count)
  forEachIndexConcurrently(draws.count, workers: workerCount(workers)) { r in
    let fit = focalFits(draws[r].flatMap { frames[$0] })
    fits.store((fit.slope, fit.mean), at: r)
  }
  let replicates = fits.takeAll()
  let slopes = replicates.map(\.slope), means = replicates.map(\.mean)
  return (
    focalFits(samples), standardDeviation(slopes.filter(\.isFinite)), standardDeviation(means), samples.count, frames.count,
    samples.map(\.apparentSide).min() ?? 0, samples.isEmpty ? 1 : upperMedian(samples.map(\.apparentSide))
  )
}

/// One view's focal length: `Σ|m₂ − m₁| / Σ√(L² − Δz²)` over the four sides and two diagonals.
/// `nil` where an edge runs within 30° of the line of sight or a value is not finite.
func focalSample(_ marker: LiftedMarker, frame: Int, colour: CameraIntrinsics, side: Double) -> MarkerFocalSample? {
  guard marker.pixelCorners.count == 4, marker.cameraCorners.count == 4, colour.fy > 0 else { return nil }
  let aspect = colour.fx / colour.fy
  let m = zip(marker.pixelCorners, marker.cameraCorners).map { p, c in
    SIMD2((p.x - colour.cx) * c.z, (p.y - colour.cy) * c.z * aspect)
  }
  var across = 0.0, printed = 0.0, apparent = 0.0
  for (a, b, length) in [(0, 1, side), (1, 2, side), (2, 3, side), (3, 0, side), (0, 2, side * 2.squareRoot()), (1, 3, side * 2.squareRoot())] {
    let dz = marker.cameraCorners[b].z - marker.cameraCorners[a].z
    let extent = length * length - dz * dz
    guard extent > 0.25 * length * length else { return nil }
    let d = m[b] - m[a]
    across += (d * d).sum().squareRoot()
    printed += extent.squareRoot()
    if length == side {
      let q = marker.pixelCorners[b] - marker.pixelCorners[a]
      apparent += (q * q).sum().squareRoot() / 4
    }
  }
  let f = across / printed
  guard f.isFinite, f > 0, apparent.isFinite, apparent > 0 else { return nil }
  return MarkerFocalSample(
    frame: frame, focalLength: f, apparentSide: apparent, edgeRefined: marker.pixelCorners != marker.triangulationCorners)
}

/// The Huber line `f = intercept + slope/ℓ` and the Huber mean of the views' focal lengths.
func focalFits(_ samples: [MarkerFocalSample]) -> (intercept: Double, slope: Double, mean: Double) {
  let line = huberFit(samples.map { (1 / $0.apparentSide, $0.focalLength) }, slopeFree: true)
  let mean = huberFit(samples.map { (0, $0.focalLength) }, slopeFree: false)
  return (line.intercept, line.slope, mean.intercept)
}

/// Iteratively reweighted least squares of `y = a + b·x` (or `y = a`) with Huber weights,
/// threshold 1.345 robust σ (1.4826 × the median absolute residual).
func huberFit(_ points: [(x: Double, y: Double)], slopeFree: Bool) -> (intercept: Double, slope: Double) {
  guard !points.isEmpty else { return (.nan, .nan) }
  var a = upperMedian(points.map(\.y)), b = 0.0
  var weights = [Double](repeating: 1, count: points.count)
  for _ in 0..<20 {
    var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
    for (p, w) in zip(points, weights) {
      sw += w
      sx += w * p.x
      sy += w * p.y
      sxx += w * p.x * p.x
      sxy += w * p.x * p.y
    }
    let determinant = sw * sxx - sx * sx
    let (na, nb): (Double, Double)
    if slopeFree && determinant > 1e-12 * max(1, sw * sxx) {
      nb = (sw * sxy - sx * sy) / determinant
      na = (sy - nb * sx) / sw
    } else {
      (na, nb) = (sy / sw, 0)
    }
    let moved = abs(na - a) + abs(nb - b) * (points.first?.x ?? 0)
    (a, b) = (na, nb)
    let residuals = points.map { abs($0.y - a - b * $0.x) }
    let scale = max(1e-9, 1.4826 * upperMedian(residuals))
    weights = residuals.map { $0 <= 1.345 * scale ? 1 : 1.345 * scale / $0 }
    if moved < 1e-9 * abs(a) { break }
  }
  return (a, b)
}

/// Sample standard deviation (0 for fewer than two values).
func standardDeviation(_ values: [Double]) -> Double {
  guard values.count > 1 else { return 0 }
  let mean = values.reduce(0, +) / Double(values.count)
  return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
}
