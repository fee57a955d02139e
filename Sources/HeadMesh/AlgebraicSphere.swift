/// The sphere (or plane) that best fits a weighted neighbourhood of oriented points, as an
/// algebraic sphere `s(q) = u₀ + u·q + u₄|q|²` whose gradient matches the points' normals:
/// the local fit of algebraic point set surfaces (APSS; Guennebaud and Gross 2007).
///
/// Everything is relative to the point the distance is wanted at (the origin of the offsets).
/// With weighted means `q̄` of the offsets, `n̄` of the normals and of `q·n` and `|q|²`, the
/// normal-constrained least-squares fit has the closed form
/// `u₄ = ½ (mean(q·n) − q̄·n̄) / (mean(|q|²) − |q̄|²)`, `u = n̄ − 2u₄ q̄`,
/// `u₀ = −u·q̄ − u₄ mean(|q|²)`. On points of a sphere with its outward normals it is that
/// sphere exactly (`u₄ = 1/(2R)`), on a plane that plane (`u₄ = 0`: the weighted plane fit).
/// The plane's bias on a curved surface — the neighbours' centroid lies inside a convex
/// surface by about `E[s²]/(2R)` for neighbours `s` away — is gone to first order.
struct AlgebraicSphere {
  /// Constant, linear and quadratic coefficients (offsets in metres; `s` is about a distance
  /// near the surface, positive outside).
  let u0: Double
  let u: SIMD3<Double>
  let u4: Double
  /// Distance from the origin to the neighbours' weighted centroid across their mean normal:
  /// about zero where points surround the origin, a third of the support and more at the
  /// edge of the data (the fit extrapolates there).
  let tangentialOffset: Double

  /// Fits the neighbourhood given by its weighted sums (not means).
  /// - Parameters:
  ///   - weight: Σw.
  ///   - offset: Σw·q, the points' positions from the origin.
  ///   - normal: Σw·n, unit outward normals.
  ///   - offsetDotNormal: Σw·(q·n).
  ///   - offsetSquared: Σw·|q|².
  ///   - smallestRadius: curvature radius below which the fit is not trusted (the sphere is
  ///     flattened to this radius): a neighbourhood of this size cannot resolve a tighter curve.
  /// - Returns: `nil` when the weight is not positive or the normals disagree (their weighted
  ///   mean is shorter than half a unit: two sides of a thin part, or noise only).
  init?(weight: Double, offset: SIMD3<Double>, normal: SIMD3<Double>, offsetDotNormal: Double, offsetSquared: Double, smallestRadius: Double) {
    guard weight > 0 else { return nil }
    let q = offset / weight, n = normal / weight
    let meanQN = offsetDotNormal / weight, meanQQ = offsetSquared / weight
    let normalLength = (n * n).sum().squareRoot()
    guard normalLength > 0.5 else { return nil }
    let along = n / normalLength
    let tangential = q - (q * along).sum() * along
    tangentialOffset = (tangential * tangential).sum().squareRoot()
    let spread = meanQQ - (q * q).sum()
    var quadratic = 0.0
    // A spread of (a thousandth of the neighbourhood)²: the points are all in one place and say
    // nothing about curvature.
    if spread > 1e-6 * smallestRadius * smallestRadius {
      quadratic = 0.5 * (meanQN - (q * n).sum()) / spread
      let largest = 0.5 * normalLength / smallestRadius
      quadratic = max(-largest, min(largest, quadratic))
    }
    u4 = quadratic
    u = n - 2 * quadratic * q
    u0 = -(u * q).sum() - quadratic * meanQQ
  }

  /// Signed distance (positive outside) from the origin to the fitted sphere along its
  /// gradient there: the nearest root of `s(t·u/|u|) = 0`, exact for a sphere (the gradient
  /// line passes through its centre); `u₀/|u|` (first order) if the fit has no real radius.
  var signedDistanceFromOrigin: Double? {
    let slope = (u * u).sum().squareRoot()
    guard slope > 0 else { return nil }
    let discriminant = slope * slope - 4 * u0 * u4
    guard discriminant >= 0 else { return u0 / slope }
    return 2 * u0 / (slope + discriminant.squareRoot())
  }

  /// Where the line `τ·direction` from the origin crosses the fitted sphere, for `τ` in
  /// `range`: the root of `u₀ + τ u·d + τ² u₄|d|²` in the range nearest to `guess`; `nil` when
  /// there is none.
  func crossing(along direction: SIMD3<Double>, in range: ClosedRange<Double>, nearestTo guess: Double) -> Double? {
    let a = u4 * (direction * direction).sum(), b = (u * direction).sum(), c = u0
    var roots: [Double] = []
    if abs(a) * (range.upperBound - range.lowerBound) <= 1e-9 * abs(b) {
      if b != 0 { roots = [-c / b] }
    } else {
      let discriminant = b * b - 4 * a * c
      guard discriminant >= 0 else { return nil }
      // The stable pair of roots: q/a and c/q.
      let q = -0.5 * (b + (b < 0 ? -1 : 1) * discriminant.squareRoot())
      if q != 0 { roots = [q / a, c / q] }
    }
    return roots.filter { range.contains($0) }.min { abs($0 - guess) < abs($1 - guess) }
  }
}
