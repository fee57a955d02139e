import Foundation
import _HeadScanSupport

/// A band's points binned by angle about their centroid: each bin's median radius, and the
/// least-squares line through its measured neighbours' medians (``SlicingOptions/smoothingBins``)
/// evaluated at the bin, millimetres.
struct BinnedRadii {
  /// The band's centroid (layer coordinates, mm).
  var centre: SIMD2<Double>
  /// Each bin's median radius; `nil` for an empty bin.
  var medians: [Double?]
  /// Each measured bin's radius from the line through its measured neighbours' medians
  /// (their average where the whole window is measured); `nil` for an empty bin.
  var smoothed: [Double?]
  /// The measured bins' centre angles and medians, for the Fourier fill.
  var samples: [(theta: Double, r: Double)]
  /// The longest run of empty bins, in bins.
  var largestGap: Int
  /// How many harmonics the fill may use: ``SlicingOptions/harmonics``, none whose period is
  /// shorter than twice the widest gap (those would swing freely inside it; 16 harmonics bridged a
  /// 45° gap 20 mm outside the head and made it the longest layer), and a quarter of the samples.
  var fillHarmonics: Int

  init(_ band: [SIMD3<Double>], options: SlicingOptions) {
    let bins = options.bins
    centre = band.isEmpty ? .zero : band.reduce(SIMD2<Double>.zero) { $0 + SIMD2($1.x, $1.y) } / Double(band.count)
    var radii = [[Double]](repeating: [], count: bins)
    for p in band {
      let (angle, radius) = polar(SIMD2(p.x, p.y), about: centre)
      radii[angularBin(angle, of: bins)].append(radius)
    }
    medians = radii.map { values -> Double? in
      guard !values.isEmpty else { return nil }
      let sorted = values.sorted()
      return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    let medians = medians
    smoothed = medians.indices.map { k -> Double? in
      guard medians[k] != nil else { return nil }
      let window = (-options.smoothingBins...options.smoothingBins).compactMap { j in
        medians[((k + j) % bins + bins) % bins].map { (offset: Double(j), radius: $0) }
      }
      return localLinearValue(window)
    }
    samples = medians.indices.compactMap { k in medians[k].map { (binCentre(k, of: bins), $0) } }
    largestGap = _HeadScanSupport.largestGap(occupied: medians.map { $0 != nil })
    let gapDegrees = Double(largestGap) * 360 / Double(bins)
    let bridging = gapDegrees > 0 ? max(1, Int(180 / gapDegrees)) : options.harmonics
    fillHarmonics = min(options.harmonics, bridging, max(1, samples.count / 4 - 1))
  }

  /// The contour's roughness: each measured bin's smoothed radius less the least-squares Fourier
  /// series of ``fillHarmonics`` through the smoothed radii, mm; 0 for empty bins. A head's
  /// contour has no detail finer than the fill's harmonics (it is bridged with them), so this is
  /// the contour's error on the scale of a few bins: the fused surface's noise, which fusion and
  /// cleaning share between neighbouring points. `nil` when the fit fails.
  func roughness() -> [Double]? {
    let measured = smoothed.indices.compactMap { k in smoothed[k].map { (theta: angle(k), r: $0) } }
    guard let coefficients = fitFourier(measured, harmonics: fillHarmonics) else { return nil }
    return smoothed.indices.map { k in smoothed[k].map { $0 - evaluateFourier(coefficients, angle(k)) } ?? 0 }
  }

  /// Bin `k`'s centre angle, radians.
  func angle(_ k: Int) -> Double { binCentre(k, of: medians.count) }
}
