import CVAI
import Foundation
import PointCloud
import Testing
import _HeadScanSupport

/// The bootstrap's contour-roughness term (``MeasurementUncertainty/contourRoughness``) on a
/// shape whose measures are known and whose surface noise is shared by neighbouring points, as a
/// fused surface's is.
struct ContourRoughnessTests {
  static let a = 72.0, b = 60.0

  /// The ellipsoid of `BootstrapTests` (semi-axes 72, 60, 40 mm, equator 20 mm up) from 0 to
  /// 40 mm, metres, whose radial noise is shared over patches of 3° by 2 mm (each patch one
  /// normal draw of `patchSD` mm; a fused surface's noise is correlated over about 3° at the
  /// level, docs/method.md) plus `pointSD` mm of each point's own.
  static func patchyEllipsoid(patchSD: Double, pointSD: Double, seed: UInt64) -> [SIMD3<Double>] {
    var random = SeededGenerator(seed: seed)
    let c = 40.0, zc = 20.0, sectors = 120, rows = 20
    let patches = (0..<(sectors * rows)).map { _ in patchSD * random.gaussian() }
    return (0..<40_000).map { _ in
      let z = 0.999 * random.uniform() * 40
      let s = (1 - ((z - zc) / c) * ((z - zc) / c)).squareRoot()
      let t = random.uniform() * 2 * .pi
      let p = SIMD2(a * s * cos(t), b * s * sin(t))
      let patch = patches[min(sectors - 1, Int(t / (2 * .pi) * Double(sectors))) * rows + min(rows - 1, Int(z / 2))]
      let grown = p + (patch + pointSD * random.gaussian()) * p / (p * p).sum().squareRoot()
      return SIMD3(grown.x, grown.y, z) / 1000
    }
  }

  /// Over 10 noise draws the spread of the measured length and width is the truth the intervals
  /// are judged by: with the roughness term their standard deviation (half-width / 1.96) is
  /// near that spread and they hold the exact length and width; redrawing the points alone sees
  /// only the points' own noise and gives far narrower intervals that miss.
  @Test func roughnessCoversNoiseSharedByNeighbouringPoints() throws {
    var errors: [Double] = [], withTerm: [Double] = [], without: [Double] = []
    var covered = 0, coveredWithout = 0
    for seed in 1...10 {
      let points = Self.patchyEllipsoid(patchSD: 0.12, pointSD: 0.03, seed: UInt64(seed))
      let measured = try measureHead(points: points)
      let rough = try #require(
        bootstrapIntervals(
          points: points, measurement: measured, replicates: 60, seed: 5, uncertainty: MeasurementUncertainty(contourRoughness: true)))
      let plain = try #require(bootstrapIntervals(points: points, measurement: measured, replicates: 60, seed: 5))
      #expect(rough.includes?.contains("contour roughness") == true)
      #expect(plain.includes?.contains("contour roughness") == false)
      for (value, truth, interval, old) in [
        (measured.measures.length, 2 * Self.a, rough.length, plain.length), (measured.measures.width, 2 * Self.b, rough.width, plain.width),
      ] {
        errors.append(value - truth)
        withTerm.append(interval.halfWidth / 1.96)
        without.append(old.halfWidth / 1.96)
        if interval.low <= truth && truth <= interval.high { covered += 1 }
        if old.low <= truth && truth <= old.high { coveredWithout += 1 }
      }
    }
    let spread = (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot()
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    #expect(median(withTerm) > 0.6 * spread && median(withTerm) < 1.6 * spread, "SD \(median(withTerm)) against RMS error \(spread)")
    #expect(median(without) < 0.5 * spread, "points alone: SD \(median(without)) against RMS error \(spread)")
    #expect(covered >= 16, "with roughness \(covered) of 20 covered")
    #expect(coveredWithout <= covered - 4, "without \(coveredWithout), with \(covered) of 20")
  }
}
