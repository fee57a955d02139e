import Foundation
import _HeadScanSupport

/// A radius function `r(θ) = a₀ + Σₖ aₖ cos kθ + bₖ sin kθ` about a centre, fitted to a layer's
/// points (millimetres): ``ContourMethod/fourierFit``.
struct FourierContourFit {
  /// [a0, a1, b1, a2, b2, …], millimetres.
  var coefficients: [Double]
  /// The order chosen by cross-validation.
  var harmonics: Int
  /// RMS radial residual of the points the biweight kept, millimetres.
  var residualRMS: Double

  /// Fits the band's points (layer coordinates, millimetres) about `centre`: the order (1…`maximum`)
  /// whose fit predicts left-out sectors best, then three rounds of Tukey's biweight.
  /// `nil` when the system is singular.
  init?(_ band: [SIMD2<Double>], centre: SIMD2<Double>, maximum: Int, order: Int? = nil) {
    let samples = band.map { p -> (theta: Double, r: Double) in
      let (angle, radius) = polar(p, about: centre)
      return (angle, radius)
    }
    let chosen = order ?? Self.crossValidatedOrder(samples, maximum: maximum)
    guard let (x, rms) = Self.robustFit(samples, harmonics: chosen) else { return nil }
    (coefficients, harmonics, residualRMS) = (x, chosen, rms)
  }

  /// `count` points of the curve at equal angles (counter-clockwise from θ = 0), millimetres.
  func outline(around centre: SIMD2<Double>, count: Int) -> [SIMD2<Double>] {
    (0..<count).map { k in
      let theta = binCentre(k, of: count)
      return centre + evaluateFourier(coefficients, theta) * SIMD2(cos(theta), sin(theta))
    }
  }

  /// The basis row [1, cos θ, sin θ, …, cos Kθ, sin Kθ] by the angle-addition recurrence.
  static func row(_ theta: Double, harmonics: Int, into row: inout [Double]) {
    row[0] = 1
    let c1 = cos(theta), s1 = sin(theta)
    var c = 1.0, s = 0.0
    for k in 0..<harmonics {
      (c, s) = (c * c1 - s * s1, s * c1 + c * s1)
      row[2 * k + 1] = c
      row[2 * k + 2] = s
    }
  }

  /// The order whose fit predicts left-out sectors best. Points go to five folds by interleaved
  /// 10° sectors, so a fold leaves out whole stretches of outline and an order that follows the
  /// noise predicts them badly. Each fold's normal equations are summed once at the largest
  /// order; a smaller order's are their leading block, so each order costs only small solves.
  static func crossValidatedOrder(_ samples: [(theta: Double, r: Double)], maximum: Int) -> Int {
    let folds = 5, n = 2 * maximum + 1
    // Fold f's normal equations: gram[f * n * n ..< (f + 1) * n * n] (upper triangle), moment[f * n ..< (f + 1) * n].
    var gram = [Double](repeating: 0, count: folds * n * n), moment = [Double](repeating: 0, count: folds * n)
    let rows = basisRows(samples, harmonics: maximum)
    let fold = samples.map { Int($0.theta / (2 * .pi) * 36) % folds }
    rows.withUnsafeBufferPointer { r in
      for (k, s) in samples.enumerated() {
        accumulate(r, from: k * n, count: n, weight: 1, target: s.r, gram: &gram, moment: &moment, at: fold[k])
      }
    }
    var best = (order: 1, error: Double.infinity)
    for order in 1...max(1, maximum) {
      let m = 2 * order + 1
      var error = 0.0
      for held in 0..<folds {
        var a = [Double](repeating: 0, count: m * m), b = [Double](repeating: 0, count: m)
        for f in 0..<folds where f != held {
          for i in 0..<m {
            b[i] += moment[f * n + i]
            for j in i..<m { a[i * m + j] += gram[f * n * n + i * n + j] }
          }
        }
        for i in 0..<m { for j in 0..<i { a[i * m + j] = a[j * m + i] } }
        guard let x = solveLinearSystem(a, b) else {
          error = .infinity
          break
        }
        for k in samples.indices where fold[k] == held {
          var predicted = 0.0
          for i in 0..<m { predicted += rows[k * n + i] * x[i] }
          error += (predicted - samples[k].r) * (predicted - samples[k].r)
        }
      }
      if error < best.error { best = (order, error) }
    }
    return best.order
  }

  /// Every sample's basis row (``row(_:harmonics:into:)``), one after another: 2 × `harmonics` + 1
  /// values a sample.
  static func basisRows(_ samples: [(theta: Double, r: Double)], harmonics: Int) -> [Double] {
    let n = 2 * harmonics + 1
    var rows = [Double](repeating: 0, count: samples.count * n)
    var basis = [Double](repeating: 0, count: n)
    rows.withUnsafeMutableBufferPointer { r in
      for (k, s) in samples.enumerated() {
        row(s.theta, harmonics: harmonics, into: &basis)
        for i in 0..<n { r[k * n + i] = basis[i] }
      }
    }
    return rows
  }

  /// Adds one weighted sample, its basis row `x[start ..< start + n]`, to normal equations block
  /// `block` of `gram` (upper triangle of each n × n block) and `moment`.
  @inline(__always)
  static func accumulate(
    _ x: UnsafeBufferPointer<Double>, from start: Int, count n: Int, weight: Double, target: Double,
    gram: inout [Double], moment: inout [Double], at block: Int
  ) {
    gram.withUnsafeMutableBufferPointer { g in
      moment.withUnsafeMutableBufferPointer { m in
        let g0 = block * n * n, m0 = block * n
        for i in 0..<n {
          let wi = weight * x[start + i]
          m[m0 + i] += wi * target
          let row = g0 + i * n
          for j in i..<n { g[row + j] += wi * x[start + j] }
        }
      }
    }
  }

  /// Least squares at `harmonics`, then three rounds of Tukey's biweight (c = 4.685 robust σ, σ
  /// from the median absolute residual). Returns the coefficients and the kept points' RMS.
  static func robustFit(_ samples: [(theta: Double, r: Double)], harmonics: Int) -> ([Double], Double)? {
    let n = 2 * harmonics + 1
    var weights = [Double](repeating: 1, count: samples.count)
    var residuals = [Double](repeating: 0, count: samples.count)
    let rows = basisRows(samples, harmonics: harmonics)  // the rounds reuse them
    var x: [Double] = []
    for round in 0..<4 {
      var a = [Double](repeating: 0, count: n * n), b = [Double](repeating: 0, count: n)
      rows.withUnsafeBufferPointer { r in
        for (k, s) in samples.enumerated() where weights[k] > 0 {
          accumulate(r, from: k * n, count: n, weight: weights[k], target: s.r, gram: &a, moment: &b, at: 0)
        }
      }
      for i in 0..<n { for j in 0..<i { a[i * n + j] = a[j * n + i] } }
      guard let solution = solveLinearSystem(a, b) else { return nil }
      x = solution
      rows.withUnsafeBufferPointer { r in
        for (k, s) in samples.enumerated() {
          var fitted = 0.0
          for i in 0..<n { fitted += r[k * n + i] * solution[i] }
          residuals[k] = s.r - fitted
        }
      }
      guard round < 3, !residuals.isEmpty else { break }
      let scale = 1.4826 * upperMedian(residuals.map(abs))
      guard scale > 0 else { break }
      for k in samples.indices {
        let u = residuals[k] / (4.685 * scale)
        weights[k] = abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0
      }
    }
    let kept = residuals.indices.filter { weights[$0] > 0 }
    return (x, rootMeanSquare(kept.map { residuals[$0] }))
  }
}
