import CVAI
import Foundation
import PointCloud
import Testing
import _HeadScanSupport

/// Bootstrap intervals on shapes whose measures are known.
struct BootstrapTests {
  /// An ellipsoid (semi-axes 72, 60, 40 mm; equator 20 mm up) sampled at random points with
  /// Gaussian radial noise of `noise` mm, metres.
  static func noisyEllipsoid(noise: Double, seed: UInt64) -> [SIMD3<Double>] {
    var random = SeededGenerator(seed: seed)
    let a = 72.0, b = 60.0, c = 40.0, zc = 20.0
    return (0..<150_000).map { _ in
      let z = zc - c + 0.999 * random.uniform() * 2 * c
      let s = (1 - ((z - zc) / c) * ((z - zc) / c)).squareRoot()
      let t = random.uniform() * 2 * .pi
      let p = SIMD2(a * s * cos(t), b * s * sin(t))
      let grown = p + noise * random.gaussian() * p / (p * p).sum().squareRoot()
      return SIMD3(grown.x, grown.y, z) / 1000
    }.filter { $0.z >= 0 }
  }

  @Test func intervalsCoverTheTruthAndShrinkWithLessNoise() throws {
    let a = 72.0, b = 60.0
    let truthPerimeter = AnalyticShapeTests.ellipsePerimeter(a, b)
    var widths: [Double] = []
    for noise in [0.6, 0.15] {
      let points = Self.noisyEllipsoid(noise: noise, seed: 3)
      let measured = try measureHead(points: points)
      let intervals = try #require(bootstrapIntervals(points: points, measurement: measured, replicates: 120, seed: 9))
      #expect(intervals.replicates >= 110)
      // The point estimate lies inside its interval, and the interval holds the truth.
      for (value, interval) in [(measured.measures.length, intervals.length), (measured.measures.width, intervals.width), (measured.measures.cvai, intervals.cvai), (measured.measures.circumference, intervals.circumference)] {
        #expect(interval.low <= value && value <= interval.high, "\(value) outside \(interval)")
      }
      #expect(intervals.length.low <= 2 * a + 0.1 && 2 * a - 0.1 <= intervals.length.high, "length \(intervals.length)")
      #expect(intervals.width.low <= 2 * b + 0.1 && 2 * b - 0.1 <= intervals.width.high, "width \(intervals.width)")
      #expect(intervals.cvai.low <= 0.05 && -0.05 <= intervals.cvai.high, "CVAI \(intervals.cvai)")
      #expect(
        intervals.circumference.low - 0.5 <= truthPerimeter && truthPerimeter <= intervals.circumference.high + 0.5,
        "noise \(noise) mm: circumference \(measured.measures.circumference) in \(intervals.circumference), truth \(truthPerimeter)")
      #expect(intervals.measurementLevel.low <= 20.5 && 19.5 <= intervals.measurementLevel.high, "ML \(intervals.measurementLevel)")
      widths.append(intervals.width.halfWidth)
    }
    // Four times less noise: a clearly narrower interval.
    #expect(widths[1] < widths[0] / 2, "half-widths \(widths)")
  }

  @Test func theSameSeedGivesTheSameIntervals() throws {
    let points = Self.noisyEllipsoid(noise: 0.3, seed: 4)
    let measured = try measureHead(points: points)
    let first = bootstrapIntervals(points: points, measurement: measured, replicates: 40, seed: 2)
    let second = bootstrapIntervals(points: points, measurement: measured, replicates: 40, seed: 2)
    #expect(first != nil && first == second)
    let other = bootstrapIntervals(points: points, measurement: measured, replicates: 40, seed: 3)
    #expect(other != nil && other != first, "another seed draws other replicates")
  }

  /// Layers and replicates run on worker threads; one worker or three give the same values.
  @Test func theWorkerCountDoesNotChangeTheResult() throws {
    let points = Self.noisyEllipsoid(noise: 0.3, seed: 5)
    let one = try measureHead(points: points, workers: 1), three = try measureHead(points: points, workers: 3)
    #expect(one.layers == three.layers && one.measures == three.measures)
    let serial = bootstrapIntervals(points: points, measurement: one, replicates: 30, seed: 7, workers: 1)
    let parallel = bootstrapIntervals(points: points, measurement: one, replicates: 30, seed: 7, workers: 3)
    #expect(serial != nil && serial == parallel)
  }
}
