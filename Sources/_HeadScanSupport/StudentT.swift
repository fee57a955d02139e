import Foundation

/// The p-quantile of Student's t with ν degrees of freedom (bisection on the CDF, to 1e-12).
package func tQuantile(_ p: Double, degreesOfFreedom nu: Double) -> Double {
  precondition(p > 0 && p < 1 && nu > 0, "a probability in (0, 1) and positive degrees of freedom")
  if p < 0.5 { return -tQuantile(1 - p, degreesOfFreedom: nu) }
  var low = 0.0, high = 1.0
  while tCDF(high, degreesOfFreedom: nu) < p { high *= 2 }
  for _ in 0..<200 {
    let mid = (low + high) / 2
    if tCDF(mid, degreesOfFreedom: nu) < p { low = mid } else { high = mid }
    if high - low < 1e-13 * max(1, high) { break }
  }
  return (low + high) / 2
}

/// Student's t CDF through the regularised incomplete beta function:
/// for t ≥ 0, `F(t) = 1 − ½ I_{ν/(ν+t²)}(ν/2, ½)`.
package func tCDF(_ t: Double, degreesOfFreedom nu: Double) -> Double {
  let tail = 0.5 * regularizedIncompleteBeta(nu / (nu + t * t), a: nu / 2, b: 0.5)
  return t >= 0 ? 1 - tail : tail
}

/// `I_x(a, b)` by its continued fraction (modified Lentz), using the symmetry
/// `I_x(a, b) = 1 − I_{1−x}(b, a)` where the fraction converges faster.
package func regularizedIncompleteBeta(_ x: Double, a: Double, b: Double) -> Double {
  if x <= 0 { return 0 }
  if x >= 1 { return 1 }
  let logBeta: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
  let logFront: Double = logBeta + a * log(x) + b * log(1 - x)
  if x > (a + 1) / (a + b + 2) { return 1 - regularizedIncompleteBeta(1 - x, a: b, b: a) }
  let tiny = 1e-300
  var c = 1.0, d = 1 - (a + b) * x / (a + 1)
  if abs(d) < tiny { d = tiny }
  d = 1 / d
  var f = d
  for m in 1...500 {
    let m = Double(m)
    let even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
    d = 1 + even * d
    if abs(d) < tiny { d = tiny }
    c = 1 + even / c
    if abs(c) < tiny { c = tiny }
    d = 1 / d
    f *= d * c
    let odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
    d = 1 + odd * d
    if abs(d) < tiny { d = tiny }
    c = 1 + odd / c
    if abs(c) < tiny { c = tiny }
    d = 1 / d
    let step = d * c
    f *= step
    if abs(step - 1) < 1e-15 { break }
  }
  return exp(logFront) * f / a
}
