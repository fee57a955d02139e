import CVAI
import Foundation
import Testing

/// Shapes whose measures are worked out by hand; points in metres, measures in mm.
struct AnalyticShapeTests {
  /// Points of a vertical prism over the closed outline `boundary` (mm), heights 0…60 mm every 0.5 mm.
  static func prism(_ boundary: [SIMD2<Double>]) -> [SIMD3<Double>] {
    stride(from: 0.0, through: 60, by: 0.5).flatMap { z in boundary.map { SIMD3($0.x, $0.y, z) / 1000 } }
  }

  /// Ramanujan's second approximation of an ellipse's perimeter (relative error ~1e-9 here).
  static func ellipsePerimeter(_ a: Double, _ b: Double) -> Double {
    let h = (a - b) * (a - b) / ((a + b) * (a + b))
    return Double.pi * (a + b) * (1 + 3 * h / (10 + (4 - 3 * h).squareRoot()))
  }

  @Test func ellipticCylinder() throws {
    let a = 70.0, b = 56.0
    let outline = (0..<1440).map { k -> SIMD2<Double> in
      let t = Double(k) / 1440 * 2 * .pi
      return SIMD2(a * cos(t), b * sin(t))
    }
    let m = try measureHead(points: Self.prism(outline)).measures
    // Chord through the centre at ±30°: 2ab / √(b² cos² 30° + a² sin² 30°).
    let diagonal = 2 * a * b / (b * b * 0.75 + a * a * 0.25).squareRoot()
    #expect(abs(m.length - 2 * a) < 0.1)
    #expect(abs(m.width - 2 * b) < 0.1)
    #expect(abs(m.diagonalA - diagonal) < 0.1 && abs(m.diagonalB - diagonal) < 0.1)
    #expect(abs(m.ci - 80) < 0.05)
    #expect(abs(m.cvai) < 0.05)
    #expect(abs(m.circumference - Self.ellipsePerimeter(a, b)) < 0.1, "\(m.circumference) vs \(Self.ellipsePerimeter(a, b))")
    #expect(m.severity == 1)
  }

  /// The bins beside a gap keep to the outline: an elliptic cylinder (70 × 56 mm) with four
  /// 3° gaps where r(θ) is steepest (about 14 mm/rad). The measured bins' local smoothing is a
  /// line through the window's medians; a plain average of the lopsided windows at the gaps'
  /// edges put those bins 0.24 mm off the ellipse and the perimeter 0.26 mm long.
  @Test func binsBesideAGapKeepToTheOutline() throws {
    let a = 70.0, b = 56.0
    let gapStarts = [40.0, 130, 220, 310]
    let outline = (0..<1440).map { k -> SIMD2<Double> in
      let t = Double(k) / 1440 * 2 * .pi
      return SIMD2(a * cos(t), b * sin(t))
    }.filter { p in
      var degrees = atan2(p.y, p.x) * 180 / .pi
      if degrees < 0 { degrees += 360 }
      return !gapStarts.contains { degrees >= $0 && degrees < $0 + 3 }
    }
    let points = stride(from: 0.0, through: 60, by: 0.5).flatMap { z in outline.map { SIMD3($0.x, $0.y, z) } }
    let layer = try #require(estimateLayer(points: points, height: 30))
    #expect(abs(layer.measuredFraction - 348.0 / 360) < 1e-9)
    let worst = layer.contour.points.map { p in
      let theta = atan2(p.y, p.x)
      let onEllipse = a * b / ((b * cos(theta)) * (b * cos(theta)) + (a * sin(theta)) * (a * sin(theta))).squareRoot()
      return abs((p * p).sum().squareRoot() - onEllipse)
    }.max() ?? .infinity
    #expect(worst < 0.05, "largest radial error \(worst) mm")
    #expect(abs(layer.contour.perimeter - Self.ellipsePerimeter(a, b)) < 0.05, "\(layer.contour.perimeter) vs \(Self.ellipsePerimeter(a, b))")
  }

  @Test func ellipsoidIsMeasuredAtItsEquator() throws {
    // Semi-axes 72 (x), 60 (y), 40 (z) mm, centred 20 mm above the ears' plane.
    let a = 72.0, b = 60.0, c = 40.0, zc = 20.0
    var points: [SIMD3<Double>] = []
    for z in stride(from: 0.0, through: zc + c - 1, by: 0.25) {
      let s = (1 - ((z - zc) / c) * ((z - zc) / c)).squareRoot()
      for k in 0..<720 {
        let t = Double(k) / 720 * 2 * .pi
        points.append(SIMD3(a * s * cos(t), b * s * sin(t), z) / 1000)
      }
    }
    let result = try measureHead(points: points)
    // Perimeters are symmetric about the equator, so the parabola's vertex is exactly there.
    #expect(abs(result.level.height - zc) < 0.05, "ML \(result.level.height)")
    #expect(abs(result.measures.length - 2 * a) < 0.1)
    #expect(abs(result.measures.width - 2 * b) < 0.1)
    #expect(abs(result.measures.ci - 100 * b / a) < 0.05)
    #expect(abs(result.measures.circumference - Self.ellipsePerimeter(a, b)) < 0.1)
  }

  /// A flat cut into a circle meets it in a crease. Binned medians keep it sharp; the fitted
  /// contour (at most 16 harmonics, a period of 22.5°) rounds it, and the length's back end,
  /// 6.9° from the crease, is 0.26 mm off (the diagonals and CVAI stay within
  /// 0.1 mm and 0.05 points). A head's flattening curves into the vault rather than creasing.
  @Test(arguments: ContourMethod.allCases)
  func circleWithAPlanarRightPosteriorFlattening(contour: ContourMethod) throws {
    // Circle of radius R cut by the plane p·n = d, n pointing back-right (−150°).
    let r = 65.0, d = 52.0  // the flat spans ±36.9° around −150°: the x axis ends on it, the y axis and the −30° diagonal do not
    let n = SIMD2(cos(-150 * Double.pi / 180), sin(-150 * Double.pi / 180))
    var outline: [SIMD2<Double>] = []
    let half = acos(d / r)  // half-angle of the removed arc
    for k in 0..<2880 {
      let t = -Double.pi + Double(k) / 2880 * 2 * .pi
      let p = SIMD2(r * cos(t), r * sin(t))
      if (p * n).sum() <= d { outline.append(p) }
    }
    let chordHalf = (r * r - d * d).squareRoot(), tangent = SIMD2(-n.y, n.x)
    for k in 0...400 { outline.append(d * n + tangent * (-chordHalf + 2 * chordHalf * Double(k) / 400)) }
    // By hand: the segment's area and centroid, so the remaining area's centroid c = −δ n.
    let segmentArea = r * r * (half - sin(2 * half) / 2)
    let segmentCentroid = 4 * r * pow(sin(half), 3) / (3 * (2 * half - sin(2 * half)))
    let delta = segmentArea * segmentCentroid / (Double.pi * r * r - segmentArea)
    let c = -delta * n
    // +30° diagonal runs along n: from the plane (d + δ) to the circle (R − δ).
    let plus30 = d + r
    // −30° diagonal: both ends on the circle, line at distance |c × u| from the centre.
    let u = SIMD2(cos(-Double.pi / 6), sin(-Double.pi / 6))
    let offset = abs(c.x * u.y - c.y * u.x)
    let minus30 = 2 * (r * r - offset * offset).squareRoot()
    // Length along x: front on the circle, back on the plane.
    let front = -c.x + (r * r - c.y * c.y).squareRoot()
    let back = (d + (c * n).sum() * -1) / -n.x  // distance from c to the plane along −x
    let length = front + back
    let width = 2 * (r * r - c.x * c.x).squareRoot()

    let sorted = outline.sorted { atan2($0.y, $0.x) < atan2($1.y, $1.x) }
    var options = SlicingOptions.default
    options.contour = contour
    let m = try measureHead(points: Self.prism(sorted), options: options).measures
    let expectedCVAI = (minus30 - plus30) / minus30 * 100
    #expect(abs(m.diagonalPlus30 - plus30) < 0.1, "\(m.diagonalPlus30) vs \(plus30)")
    #expect(abs(m.diagonalMinus30 - minus30) < 0.1, "\(m.diagonalMinus30) vs \(minus30)")
    #expect(abs(m.length - length) < (contour == .fourierFit ? 0.3 : 0.1), "\(m.length) vs \(length)")
    #expect(abs(m.width - width) < 0.1, "\(m.width) vs \(width)")
    #expect(abs(m.cvai - expectedCVAI) < 0.05, "\(m.cvai) vs \(expectedCVAI)")
    #expect(m.flattenedSide == .rightPosterior)
  }

  @Test(arguments: [(3.49, 1), (3.5, 2), (6.24, 2), (6.25, 3), (8.75, 4), (11.0, 4), (11.01, 5)])
  func choaLevels(cvai: Double, level: Int) {
    #expect(choaSeverity(cvai: cvai) == level)
  }
}
