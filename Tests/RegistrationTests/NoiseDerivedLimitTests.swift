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

  @Test func weightedPeerTestCountsEachValueByItsWeight() {
    let values = [0.1, 0.4, 0.2, 0.3, 0.5, 0.25]
    let plain = PeerTest(peers: values, deviations: 3, logarithmic: false, resolution: 0)
    let equal = PeerTest(peers: values, weights: values.map { _ in 2.5 }, deviations: 3, logarithmic: false, resolution: 0)
    #expect(plain == equal)
    #expect(plain.median == 0.25 && abs(plain.spread - 1.4826 * 0.05) < 1e-12)
    // 0.5 weighing more than the rest together is the median; a weight of 0 leaves a value out.
    let heavy = PeerTest(peers: values, weights: [1, 1, 1, 1, 6, 1], deviations: 3, logarithmic: false, resolution: 0)
    #expect(heavy.median == 0.5 && heavy.peers == 6)
    let without = PeerTest(peers: values + [9], weights: [1, 1, 1, 1, 1, 1, 0], deviations: 3, logarithmic: false, resolution: 0)
    #expect(without == plain)
  }

  /// One marker's residuals as the optimisation leaves them: `views` views of its four corners
  /// with independent errors of `sigma` a coordinate (metres), less their mean over the views;
  /// with `rms`, scaled to that corner RMS.
  static func residuals(
    _ id: Int, views: Int, sigma: Double, rms: Double? = nil, using rng: inout SeededGenerator
  ) -> [MapOptimisation.Residual] {
    func gaussian() -> Double {
      let u = Double.random(in: Double.ulpOfOne..<1, using: &rng), v = Double.random(in: 0..<1, using: &rng)
      return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    let errors = (0..<views).map { _ in (0..<12).map { _ in sigma * gaussian() } }
    let mean = (0..<12).map { k in errors.map { $0[k] }.reduce(0, +) / Double(views) }
    let deviations = errors.map { e in (0..<12).map { e[$0] - mean[$0] } }
    let drawn = (deviations.joined().map { $0 * $0 }.reduce(0, +) / Double(4 * views)).squareRoot()
    let factor = rms.map { $0 / drawn } ?? 1
    return deviations.enumerated().map { f, e in
      let d = e.map { $0 * factor }
      return .init(frame: f, markerID: id, squaredErrors: (0..<4).map { c in (0..<3).reduce(0.0) { $0 + d[3 * c + $1] * d[3 * c + $1] } })
    }
  }

  /// How often the keep rule keeps a marker that has nothing wrong with it, by its number of
  /// views: 400 simulated scans of 25 markers seen 20 times and one marker each of 2–10 views, all
  /// with the same noise. From six views on, the rule is the RMS test and keeps nearly all; with
  /// fewer it keeps a marker only when its few views agree well enough to place it. Prints the
  /// rates of docs/registration.md's keep-rule section.
  @Test func aSoundMarkersChanceOfBeingKeptGrowsWithItsViews() {
    var rng = SeededGenerator(seed: 5)
    let sigma = 0.0001, side = 0.016, counts = [2, 3, 4, 5, 6, 8, 10], scans = 400
    let square = [SIMD3<Double>(0, 0, 0), SIMD3(side, 0, 0), SIMD3(side, side, 0), SIMD3(0, side, 0)]
    var kept = [Int: Int](), peersRejected = 0
    for _ in 0..<scans {
      var residuals: [MapOptimisation.Residual] = []
      for id in 0..<25 { residuals += Self.residuals(id, views: 20, sigma: sigma, using: &rng) }
      for n in counts { residuals += Self.residuals(100 + n, views: n, sigma: sigma, using: &rng) }
      let ids = Array(0..<25) + counts.map { 100 + $0 }
      let map = MarkerMap(corners: Dictionary(uniqueKeysWithValues: ids.map { ($0, square) }))
      for fit in markerFits(residuals, markers: ids, map: map, sideLength: side, rule: .default) {
        if fit.id >= 100 { kept[fit.id - 100, default: 0] += fit.kept ? 1 : 0 } else if !fit.kept { peersRejected += 1 }
      }
    }
    let rates = counts.map { Double(kept[$0, default: 0]) / Double(scans) }
    print("sound markers kept by views: " + zip(counts, rates).map { String(format: "%d: %.1f %%", $0, 100 * $1) }.joined(separator: ", ")
      + String(format: "; well-seen markers rejected: %.2f %%", 100 * Double(peersRejected) / Double(25 * scans)))
    #expect(zip(rates, rates.dropFirst()).allSatisfy { $0 <= $1 + 0.03 }, "kept more often with more views: \(rates)")
    #expect(rates[0] < 0.5 && rates[4] > 0.97 && rates[6] > 0.97, "\(rates)")
    #expect(Double(peersRejected) / Double(25 * scans) < 0.01)
  }

  /// A marker is kept when its position is determined: its corner RMS within the scan's limit and
  /// t₀.₉₇₅(12(n − 1)) times the RMS error of its corners' mean, rms/√(n − 1), too. Residuals
  /// are drawn as the optimisation leaves them: each view's corner errors less their mean over
  /// the marker's views.
  @Test func markersAreKeptWhenTheirPositionIsDetermined() {
    var rng = SeededGenerator(seed: 21)
    let sigma = 0.0001, side = 0.016
    var residuals: [MapOptimisation.Residual] = []
    func observe(_ id: Int, views: Int, sigma: Double, rms: Double? = nil) {
      residuals += Self.residuals(id, views: views, sigma: sigma, rms: rms, using: &rng)
    }
    let peers = Array(0..<25)
    for id in peers { observe(id, views: 20, sigma: sigma) }
    // The well-seen markers' corner RMS is about √3 · σ · √(19/20) = 0.17 mm.
    observe(100, views: 2, sigma: sigma, rms: 0.00017)  // inside the RMS limit, not the position's
    observe(101, views: 2, sigma: sigma, rms: 0.00005)  // two clean views are enough
    observe(102, views: 1, sigma: sigma)  // one view tells nothing of its position's spread
    observe(103, views: 6, sigma: sigma, rms: 0.00017)  // from six views on, the RMS test alone
    observe(104, views: 20, sigma: 3 * sigma)  // noisy however often seen
    let ids = peers + [100, 101, 102, 103, 104]
    let square = [SIMD3<Double>(0, 0, 0), SIMD3(side, 0, 0), SIMD3(side, side, 0), SIMD3(0, side, 0)]
    let map = MarkerMap(corners: Dictionary(uniqueKeysWithValues: ids.map { ($0, square) }))
    let fits = Dictionary(uniqueKeysWithValues: markerFits(residuals, markers: ids, map: map, sideLength: side, rule: .default).map { ($0.id, $0) })
    #expect(peers.filter { fits[$0]?.kept != true }.count <= 1)
    let two = fits[100]!, clean = fits[101]!, once = fits[102]!, six = fits[103]!, noisy = fits[104]!
    let limitOfTheWellSeen = fits[0]!.rmsLimit
    #expect(two.rms < limitOfTheWellSeen && !two.kept && two.rejection?.hasPrefix("corner RMS") == true, "\(two)")
    // Both two-view markers have the same limit: the scan's for two views (above the well-seen
    // markers', for the RMS's own sampling spread), divided by t₀.₉₇₅(12) = 2.18.
    #expect(two.rmsLimit == clean.rmsLimit && two.rmsLimit * tQuantile(0.975, degreesOfFreedom: 12) > limitOfTheWellSeen)
    #expect(clean.kept, "\(clean)")
    #expect(!once.kept && once.rejection?.contains("one frame") == true)
    #expect(six.kept && abs(six.rmsLimit - limitOfTheWellSeen) < 0.2 * limitOfTheWellSeen, "\(six)")
    #expect(!noisy.kept && noisy.rms > noisy.rmsLimit)
  }
}
