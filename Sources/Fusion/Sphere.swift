import Registration
import _HeadScanSupport

/// A sphere through points (algebraic least squares), metres.
struct Sphere {
  var centre: SIMD3<Double>
  var radius: Double

  /// Fits |p|² = 2 c·p + (r² − |c|²); `nil` for fewer than 4 points or a degenerate set.
  init?(fitting points: [SIMD3<Double>]) {
    guard points.count >= 4 else { return nil }
    let solution = leastSquares(points, unknowns: 4) { p, a in
      (a[0], a[1], a[2], a[3]) = (2 * p.x, 2 * p.y, 2 * p.z, 1)
      return p.dot(p)
    }
    guard let x = solution else {
      return nil
    }
    centre = SIMD3(x[0], x[1], x[2])
    let squared = x[3] + centre.dot(centre)
    guard squared > 0, squared.isFinite, centre.x.isFinite, centre.y.isFinite, centre.z.isFinite else { return nil }
    radius = squared.squareRoot()
  }
}
