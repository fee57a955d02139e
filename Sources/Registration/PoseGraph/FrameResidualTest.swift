import Foundation

/// Whether a frame's corner residuals fit the spread its markers show over the whole scan: a χ²
/// test (``OptimisationOptions/frameFalseRejectRate``).
///
/// Each marker's mean squared 3D corner residual over all its observations, σ²ₘ, is the scale of
/// its corners' noise (a sticker far up the cap's side is noisier than one facing the camera).
/// With the three coordinates of a residual normal with variance σ²ₘ / 3, the sum over a frame's
/// corners of 3 |r|² / σ²ₘ follows χ² with three degrees of freedom a corner; a frame is rejected
/// when that sum exceeds the χ² quantile at 1 − the false-reject rate (Wilson–Hilferty) **and**
/// its sum per degree of freedom also stands out from the other frames' (``PeerTest``,
/// logarithmic): real recordings vary from frame to frame more than independent noise would
/// (a frame's own depth offset, its blur, its distance), and a frame is only an outlier when it
/// is one against both its markers and the other frames. A frame whose corner RMS is within
/// ``PeerTest/micrometre`` always passes (exact synthetic data).
struct FrameResidualTest {
  private var statistic: [Int: (sum: Double, corners: Int, squares: Double)] = [:]
  private let normalQuantile: Double
  /// The frames' normalised statistics (χ² / degrees of freedom) tested against each other.
  private let peers: PeerTest

  init(_ residuals: [MapOptimisation.Residual], falseRejectRate: Double, deviations: Double) {
    var markerSquares: [Int: (sum: Double, count: Int)] = [:]
    for r in residuals {
      let previous = markerSquares[r.markerID] ?? (0, 0)
      markerSquares[r.markerID] = (previous.sum + r.squaredErrors.reduce(0, +), previous.count + r.squaredErrors.count)
    }
    for r in residuals {
      guard let m = markerSquares[r.markerID], m.count > 0, m.sum > 0 else { continue }
      let variance = m.sum / Double(m.count)
      let squares = r.squaredErrors.reduce(0, +)
      let previous = statistic[r.frame] ?? (0, 0, 0)
      statistic[r.frame] = (previous.sum + 3 * squares / variance, previous.corners + r.squaredErrors.count, previous.squares + squares)
    }
    normalQuantile = Self.upperNormalQuantile(min(0.5, max(1e-12, falseRejectRate)))
    let normalised = statistic.values.map { $0.sum / (3 * Double(max(1, $0.corners))) }
    peers = PeerTest(peers: normalised, deviations: deviations, logarithmic: true, resolution: 0)
  }

  /// Whether frame `frame` (its position in the scan) passes; frames without residuals pass.
  func accepts(frame: Int) -> Bool {
    guard let s = statistic[frame], s.corners > 0, s.squares / Double(s.corners) > PeerTest.micrometre * PeerTest.micrometre
    else { return true }
    let dof = 3 * Double(s.corners)
    // Wilson–Hilferty: (χ²/k)^(1/3) is close to normal with mean 1 − 2/(9k), variance 2/(9k).
    let a = 2 / (9 * dof)
    let cube = 1 - a + normalQuantile * a.squareRoot()
    return s.sum <= dof * cube * cube * cube || peers.accepts(s.sum / dof)
  }

  /// z with P(Z > z) = p for a standard normal Z (Acklam's rational approximation, refined once
  /// by Newton's method on erfc), 0 < p ≤ 0.5.
  static func upperNormalQuantile(_ p: Double) -> Double {
    // Tail rational approximation (Acklam), for the lower tail probability p.
    let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
      4.374664141464968e+00, 2.938163982698783e+00]
    let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    var z: Double
    if p < 0.02425 {
      let q = (-2 * log(p)).squareRoot()
      z = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    } else {
      // Central region: Newton's method from 0 converges for p ≥ 0.024.
      z = 0
    }
    for _ in 0..<12 {
      let e = 0.5 * erfc(z / 2.0.squareRoot()) - p
      let density = exp(-z * z / 2) / (2 * Double.pi).squareRoot()
      z += e / density
    }
    return z
  }
}
