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
  /// corners fitted to the edges' parts next to each, ``LiftedMarker/triangulationCorners``, or
  /// the observation fitted ``LiftedMarker/focalCorners``).
  var edgeRefined: Bool
  /// Whether those are the lifting's own corners (cells of 3.5 px and more), not
  /// ``LiftedMarker/focalCorners``.
  var liftingEdges: Bool
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
/// A sticker on the cap is not flat: keeping its printed lengths along the curved surface, its
/// corners lie closer together than `L` and `L·√2` (a 16 mm sticker on a 70 mm sphere: both
/// 0.43 %), which alone reads the focal length that much short. The check therefore first
/// estimates with flat stickers, then measures each marker's bend along its diagonals (the
/// sticker's fitted depth surface where each diagonal crosses its middle, against the chord
/// between its corners: ``stickerBends(_:colour:focalLength:)``, the median over the marker's
/// views) and estimates again with the chords of the printed square laid on that bend
/// (``bentSquareChords(side:bend:)``). A flat board measures no bend.
///
/// Corners a detector places `b` pixels inside the printed square shorten every side by
/// `2b`, so a view of apparent side `ℓ` pixels reads `f·(1 − 2b/ℓ)`: OpenCV's corners sit about
/// 0.3 px inside small markers (the real TrueDepth board: 0.37 px, sides 3 % short). The check
/// therefore uses the corners moved onto the fitted border edges where the observation has
/// them (``ObservationOptions/refineCornersAlongEdges``): the lifting's own where enough views
/// have them, else also those fitted for this check on markers with smaller cells
/// (``LiftedMarker/focalCorners``), and tests what bias is left: the
/// views' focal lengths are fitted as a line in `1/ℓ` (Huber-weighted least squares, scale
/// from the median absolute deviation); while its slope is more than two standard errors from
/// zero, the smallest quarter of the views is left out (at most three times). The estimate is
/// the Huber mean of the views kept; its standard error, and the slope's, come from
/// resampling whole frames (views in one frame share its depth error). Its uncertainty adds
/// what the model leaves open: half the bend's correction, and the change from all views to
/// their larger half.
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
  let views = observations.frames.enumerated().flatMap { position, frame in
    frame.lifted.filter { $0.method == .depth && $0.facing >= options.minimumFacing }.map { (position, $0) }
  }
  let minimum = max(3, options.minimumMarkers)
  // A first estimate with every sticker taken flat, then each sticker's bend along its
  // diagonals (measured with that estimate) and the estimate again with the printed square
  // laid on the bent cap.
  let flat = views.compactMap { focalSample($0.1, frame: $0.0, colour: colour, side: side, bend: .zero) }
  guard flat.count >= minimum, side > 0 else { return nil }
  let bends = stickerBends(views.map(\.1), colour: colour, focalLength: focalMean(flat))
  let samples = views.compactMap { focalSample($0.1, frame: $0.0, colour: colour, side: side, bend: bends[$0.1.id] ?? .zero) }
  guard samples.count >= minimum else { return nil }
  // Corners on the lifting's fitted border edges where enough views have them; else on the
  // edges fitted for this check where cells are smaller too; the detector's own otherwise.
  let lifting = samples.filter(\.liftingEdges), refined = samples.filter(\.edgeRefined)
  let onEdges: (MarkerFocalSample) -> Bool = lifting.count >= minimum ? { $0.liftingEdges } : { $0.edgeRefined }
  let candidates = (refined.count >= minimum ? samples.filter(onEdges) : samples).sorted { $0.apparentSide < $1.apparentSide }
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
  // What the model itself leaves open, in quadrature with the frames' sampling error: half the
  // bend's correction (between a sticker taken flat and one following the cap as measured),
  // and how far the estimate moves from all candidate views to their larger half (what a
  // corner bias left could still move it).
  let flatCandidates = refined.count >= minimum ? flat.filter(onEdges) : flat
  let candidatesMean = focalMean(candidates)
  let bendShift = candidatesMean - focalMean(flatCandidates)
  let sizeShift = focalMean(Array(candidates[(candidates.count / 2)...])) - candidatesMean
  let modelError = ((bendShift / 2) * (bendShift / 2) + sizeShift * sizeShift).squareRoot()
  let uncertainty = (chosen.meanError * chosen.meanError + (modelError.isFinite ? modelError * modelError : 0)).squareRoot()
  let bias = upperMedian(samples.map { $0.apparentSide * (1 - $0.focalLength / estimate) / 2 })
  var limit = max(options.tolerance, 2 * chosen.meanError / estimate)
  // Without edge-refined corners (cells under 3.5 px, e.g. 320×240) a trend left after the
  // trimming is a corner bias not under control: the limit takes in the shortfall the trend
  // puts on the kept views' median size, so a biased estimate does not raise a false alarm.
  if refined.count < minimum, chosen.fit.slope < 0, abs(chosen.fit.slope) > 2 * chosen.slopeError {
    limit = max(limit, abs(chosen.fit.slope) / chosen.medianSide / estimate)
  }
  return IntrinsicsCheck(
    statedFocalLength: statedFocalLength ?? colour.fx, focalLengthEstimate: estimate, focalLengthUncertainty: uncertainty,
    cornerBias: bias, markersUsed: chosen.count, framesUsed: chosen.frames, smallestSide: chosen.smallestSide, limit: limit,
    edgeFittedCorners: refined.count >= minimum)
}

/// The replicates' relative tolerance in ``focalBootstrap(_:resamples:workers:generator:)``.
let replicateTolerance = 1e-7

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
  // Each replicate's fits start from the whole sample's and stop within 1e-7 of the line (6e-5
  // px on a 600 px focal length against a spread of ~1 px between replicates): about half the
  // iterations of a fit from the median to 1e-9.
  let whole = focalFits(samples)
  let replicates = mapConcurrently(draws.count, workers: threadsRunning(workers: workerCount(workers))) { r in
    let fit = focalFits(draws[r].flatMap { frames[$0] }, from: whole, tolerance: replicateTolerance)
    return (slope: fit.slope, mean: fit.mean)
  }
  let slopes = replicates.map(\.slope), means = replicates.map(\.mean)
  return (
    whole, standardDeviation(slopes.filter(\.isFinite)), standardDeviation(means), samples.count, frames.count,
    samples.map(\.apparentSide).min() ?? 0, samples.isEmpty ? 1 : upperMedian(samples.map(\.apparentSide))
  )
}

/// One view's focal length: `Σ|m₂ − m₁| / Σ√(c² − Δz²)` over the four sides and two diagonals,
/// `c` the distance between the two corners of the printed square laid on a cap bent by `bend`
/// (``bentSquareChords(side:bend:)``). `nil` where an edge runs within 30° of the line of sight
/// or a value is not finite.
func focalSample(
  _ marker: LiftedMarker, frame: Int, colour: CameraIntrinsics, side: Double, bend: SIMD2<Double>
) -> MarkerFocalSample? {
  // Corners on the border edges where the observation fitted them for this check alone.
  let corners = marker.focalCorners ?? marker.pixelCorners
  guard corners.count == 4, marker.cameraCorners.count == 4, colour.fy > 0 else { return nil }
  let aspect = colour.fx / colour.fy
  let m = zip(corners, marker.cameraCorners).map { p, c in
    SIMD2((p.x - colour.cx) * c.z, (p.y - colour.cy) * c.z * aspect)
  }
  let chords = bentSquareChords(side: side, bend: bend)
  var across = 0.0, printed = 0.0, apparent = 0.0
  for (a, b, length, isSide) in [
    (0, 1, chords.side, true), (1, 2, chords.side, true), (2, 3, chords.side, true), (3, 0, chords.side, true),
    (0, 2, chords.diagonals.x, false), (1, 3, chords.diagonals.y, false),
  ] {
    let dz = marker.cameraCorners[b].z - marker.cameraCorners[a].z
    let extent = length * length - dz * dz
    guard extent > 0.25 * length * length else { return nil }
    let d = m[b] - m[a]
    across += (d * d).sum().squareRoot()
    printed += extent.squareRoot()
    if isSide {
      let q = corners[b] - corners[a]
      apparent += (q * q).sum().squareRoot() / 4
    }
  }
  let f = across / printed
  guard f.isFinite, f > 0, apparent.isFinite, apparent > 0 else { return nil }
  let liftingEdges = marker.pixelCorners != marker.triangulationCorners
  return MarkerFocalSample(
    frame: frame, focalLength: f, apparentSide: apparent, edgeRefined: liftingEdges || marker.focalCorners != nil,
    liftingEdges: liftingEdges)
}

/// The distances between a printed square's corners once laid on a cap that bends along its
/// diagonals with curvatures `bend` (1/metres: corners 0–2, then 1–3), keeping its printed
/// lengths along the surface (a decal): each corner lies at arc `L/√2` from the centre along its
/// diagonal's circle, so a diagonal spans `2·sin(κs)/κ` and a side
/// `√(ρ₁² + ρ₂² + (w₁ − w₂)²)` with `ρ = sin(κs)/κ`, `w = (1 − cos κs)/κ`. A flat sticker
/// (zero bend) gives `L` and `L·√2`; a 16 mm sticker on a 70 mm sphere both 0.43 % less.
func bentSquareChords(side: Double, bend: SIMD2<Double>) -> (side: Double, diagonals: SIMD2<Double>) {
  let s = side / 2.squareRoot()
  func along(_ kappa: Double) -> (rho: Double, w: Double) {
    // Bends sharper than a radius of s/1.5 are no cap: held there.
    let k = max(-1.5 / s, min(1.5 / s, kappa))
    guard abs(k * s) > 1e-6 else { return (s, k * s * s / 2) }
    return (sin(k * s) / k, (1 - cos(k * s)) / k)
  }
  let a = along(bend.x), b = along(bend.y)
  return ((a.rho * a.rho + b.rho * b.rho + (a.w - b.w) * (a.w - b.w)).squareRoot(), SIMD2(2 * a.rho, 2 * b.rho))
}

/// Each marker's bend along its two diagonals (1/metres, positive where the cap bulges towards
/// the camera): per view, the circle through the two corners and the sticker's fitted surface
/// where the diagonal crosses its middle in the image (lateral coordinates at the focal length
/// `focalLength`), taken to the surface's normal section by Meusnier's theorem (times the
/// cosine between the marker's normal and the circle's direction off the chord), then the
/// median over the marker's views.
func stickerBends(_ views: [LiftedMarker], colour: CameraIntrinsics, focalLength: Double) -> [Int: SIMD2<Double>] {
  guard colour.fy > 0, focalLength > 0 else { return [:] }
  let aspect = colour.fx / colour.fy
  func point(_ p: SIMD2<Double>, _ z: Double) -> SIMD3<Double> {
    SIMD3((p.x - colour.cx) * z / focalLength, (p.y - colour.cy) * z * aspect / focalLength, z)
  }
  var perMarker: [Int: [SIMD2<Double>]] = [:]
  for view in views {
    guard let middles = view.diagonalMidpointDepths, view.pixelCorners.count == 4, view.cameraCorners.count == 4 else { continue }
    var kappa = SIMD2<Double>.zero
    let normal = view.cameraFromMarker.rotation * SIMD3(0, 0, 1)
    for (k, (a, b)) in [(0, 2), (1, 3)].enumerated() {
      let pa = point(view.pixelCorners[a], view.cameraCorners[a].z), pb = point(view.pixelCorners[b], view.cameraCorners[b].z)
      let pm = point((view.pixelCorners[a] + view.pixelCorners[b]) / 2, middles[k])
      let chord = pb - pa, c = chord.length
      guard c > 0 else { continue }
      let offset = pm - pa - chord * (pm - pa).dot(chord) / (c * c)
      let h = offset.length
      guard h > 0 else { continue }
      // Towards the camera (the origin) is convex. The circle lies in the plane of the
      // line of sight, not of the surface's normal: by Meusnier's theorem the surface bends
      // along the diagonal by the circle's curvature times the cosine between its plane's
      // direction off the chord and the normal.
      let sign: Double = offset.dot(-(pa + pb) / 2) >= 0 ? 1 : -1
      kappa[k] = sign * 2 * h / (c * c / 4 + h * h) * abs(normal.dot(offset / h))
    }
    if kappa.x.isFinite, kappa.y.isFinite { perMarker[view.id, default: []].append(kappa) }
  }
  return perMarker.mapValues { values in SIMD2(upperMedian(values.map(\.x)), upperMedian(values.map(\.y))) }
}

/// The Huber line `f = intercept + slope/ℓ` and the Huber mean of the views' focal lengths,
/// iterated from `start` where given (a fit of similar views), else from their median, to a
/// relative `tolerance` (``huberFit(_:slopeFree:from:tolerance:)``).
func focalFits(
  _ samples: [MarkerFocalSample], from start: (intercept: Double, slope: Double, mean: Double)? = nil,
  tolerance: Double = 1e-9
) -> (intercept: Double, slope: Double, mean: Double) {
  let line = huberFit(
    samples.map { (1 / $0.apparentSide, $0.focalLength) }, slopeFree: true, from: start.map { ($0.intercept, $0.slope) },
    tolerance: tolerance)
  let mean = huberFit(
    samples.map { (0, $0.focalLength) }, slopeFree: false, from: start.map { ($0.mean, 0) }, tolerance: tolerance)
  return (line.intercept, line.slope, mean.intercept)
}

/// The Huber mean of the views' focal lengths (``focalFits(_:from:tolerance:)``'s `mean`, without the line).
func focalMean(_ samples: [MarkerFocalSample]) -> Double {
  huberFit(samples.map { (0, $0.focalLength) }, slopeFree: false).intercept
}

/// Iteratively reweighted least squares of `y = a + b·x` (or `y = a`) with Huber weights,
/// threshold 1.345 robust σ (1.4826 × the median absolute residual), until a step moves the
/// line by less than `tolerance` of `a` (at most 20 steps). From `start`'s weights where given,
/// else from equal weights (the first step an ordinary least-squares fit).
func huberFit(
  _ points: [(x: Double, y: Double)], slopeFree: Bool, from start: (intercept: Double, slope: Double)? = nil,
  tolerance: Double = 1e-9
) -> (intercept: Double, slope: Double) {
  guard !points.isEmpty else { return (.nan, .nan) }
  var a = 0.0, b = 0.0
  var weights = [Double](repeating: 1, count: points.count)
  var residuals = [Double](repeating: 0, count: points.count)
  // The Huber weights of the residuals from the line (a, b).
  func reweight() {
    for (k, p) in points.enumerated() { residuals[k] = abs(p.y - a - b * p.x) }
    let scale = max(1e-9, 1.4826 * upperMedian(residuals))
    for k in residuals.indices { weights[k] = residuals[k] <= 1.345 * scale ? 1 : 1.345 * scale / residuals[k] }
  }
  if let start, start.intercept.isFinite, start.slope.isFinite {
    (a, b) = (start.intercept, slopeFree ? start.slope : 0)
    reweight()
  } else {
    a = upperMedian(points.map(\.y))
  }
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
    reweight()
    if moved < tolerance * abs(a) { break }
  }
  return (a, b)
}

/// Sample standard deviation (0 for fewer than two values).
func standardDeviation(_ values: [Double]) -> Double {
  guard values.count > 1 else { return 0 }
  let mean = values.reduce(0, +) / Double(values.count)
  return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
}
