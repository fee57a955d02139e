import Foundation
import PointCloud
@testable import Registration
import Testing
import _HeadScanSupport

/// The keep and reject rules test values against the scan's own spread: they reject what stands
/// out, at their documented false-reject rates, and hold no length of their own.
struct NoiseDerivedLimitTests {
  /// Normal samples by Box–Muller from a seeded generator.
  static func normals(_ count: Int, mean: Double, sigma: Double, seed: UInt64) -> [Double] {
    var rng = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      let u = Double.random(in: Double.ulpOfOne..<1, using: &rng), v = Double.random(in: 0..<1, using: &rng)
      return mean + sigma * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
  }

  @Test func peerTestRejectsWhatStandsOutAtItsRateWhateverTheScale() {
    let inliers = Self.normals(4000, mean: 0.0004, sigma: 0.00005, seed: 3)
    let outliers = [0.0009, 0.0012, 0.0020]
    for scale in [1.0, 10.0, 0.1] {
      let values = (inliers + outliers).map { $0 * scale }
      let test = PeerTest(peers: values, deviations: 3, logarithmic: false, resolution: 0)
      #expect(abs(test.median - 0.0004 * scale) < 0.00001 * scale)
      #expect(abs(test.spread - 0.00005 * scale) < 0.000005 * scale)
      #expect(outliers.allSatisfy { !test.accepts($0 * scale) })
      // One-sided normal tail beyond 3σ: 0.13 %.
      let rejected = Double(inliers.filter { !test.accepts($0 * scale) }.count) / Double(inliers.count)
      #expect(rejected < 0.004)
    }
  }

  @Test func belowTheResolutionNothingIsAnOutlier() {
    // Rounding-error-sized values of exact synthetic data, one 100 times the others.
    let test = PeerTest(peers: [1e-15, 2e-15, 1e-15, 3e-15, 2e-13], deviations: 3, logarithmic: true)
    #expect(test.accepts(2e-13))
    #expect(!PeerTest(peers: [0.001, 0.0011, 0.0009, 0.001, 0.0012], deviations: 3, logarithmic: true).accepts(0.005))
  }

  @Test func normalQuantilesAreRight() {
    #expect(abs(FrameResidualTest.upperNormalQuantile(0.001) - 3.090232) < 1e-5)
    #expect(abs(FrameResidualTest.upperNormalQuantile(0.05) - 1.644854) < 1e-5)
    #expect(abs(FrameResidualTest.upperNormalQuantile(0.5)) < 1e-9)
  }

  /// Frames that fit their markers' spread pass at the false-reject rate; a frame three times as
  /// noisy is rejected.
  @Test func frameResidualTestHasItsFalseRejectRate() {
    var rng = SeededGenerator(seed: 9)
    func gaussian() -> Double {
      let u = Double.random(in: Double.ulpOfOne..<1, using: &rng), v = Double.random(in: 0..<1, using: &rng)
      return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    // Markers with their own noise, 0.1–0.6 mm per coordinate; six markers a frame.
    let sigmas = (0..<30).map { 0.0001 + 0.0005 * Double($0) / 29 }
    var residuals: [MapOptimisation.Residual] = []
    let frames = 3000, noisyFrame = 0
    for f in 0..<frames {
      for k in 0..<6 {
        let marker = (f * 7 + k * 5) % sigmas.count
        let sigma = sigmas[marker] * (f == noisyFrame ? 3 : 1)
        let squares = (0..<4).map { _ in (0..<3).reduce(0.0) { s, _ in let e = sigma * gaussian(); return s + e * e } }
        residuals.append(.init(frame: f, markerID: marker, squaredErrors: squares))
      }
    }
    let test = FrameResidualTest(residuals, falseRejectRate: 0.001, deviations: 3.5)
    #expect(!test.accepts(frame: noisyFrame))
    let rejected = (1..<frames).filter { !test.accepts(frame: $0) }.count
    #expect(rejected <= 12, "\(rejected) of \(frames - 1) frames rejected at a 0.1 % rate")
  }
}
