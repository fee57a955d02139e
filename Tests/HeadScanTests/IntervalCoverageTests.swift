import Foundation
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// The 95 % intervals of `measureScan` against the simulator's exact measures on small scans
/// across the depth-noise range.
struct IntervalCoverageTests {
  /// Small realistic-preset scans (320×240, 40 frames), one head each, depth noise σ₂₀ from
  /// 0.3 to 1.0 mm.
  static let scans: [(noise: Double, cvai: Double, ci: Double, side: HeadShape.FlattenedQuarter, seed: UInt64)] = [
    (0.3, 0, 80, .right, 31), (0.55, 8, 85, .right, 32), (0.8, 4, 82, .left, 33), (1.0, 2, 92, .left, 34),
  ]

  @Test func intervalsCoverTheTruthAcrossTheNoiseRange() throws {
    try TestFiles.withTemporaryFolder { folder in
      var covered: [String: Int] = [:]
      for scan in Self.scans {
        var o = SimulationOptions()
        SimulationPreset.realistic.apply(to: &o)
        o.frames = 40
        o.width = 320
        o.height = 240
        o.sensor.depthNoise = scan.noise / 1000
        o.head = .init(cranialIndex: scan.ci, cvai: scan.cvai, flattenedSide: scan.side)
        o.seed = scan.seed
        let path = folder.appendingPathComponent("scan-\(scan.seed).rgbdscan").path
        let truth = try simulateScan(o, to: path, format: .stream).truth.measures
        let measured = try measureScan(at: path)
        let m = measured.measurement.measures
        let intervals = try #require(measured.intervals)
        #expect(intervals.includes == ["cloud sampling", "measurement level", "head frame", "scale", "surface"])
        let keys: [(String, Double, Double, Interval95)] = [
          ("cvai", m.cvai, truth.cvai, intervals.cvai), ("ci", m.ci, truth.ci, intervals.ci),
          ("circumference", m.circumference, truth.circumference, intervals.circumference),
          ("diagonalA", m.diagonalA, truth.diagonalA, intervals.diagonalA), ("diagonalB", m.diagonalB, truth.diagonalB, intervals.diagonalB),
          ("length", m.length, truth.length, intervals.length), ("width", m.width, truth.width, intervals.width),
        ]
        for (key, value, exact, interval) in keys {
          let inside = interval.low <= exact && exact <= interval.high
          covered[key, default: 0] += inside ? 1 : 0
          print(String(format: "σ₂₀ %.2f mm %@: %+.2f [%+.2f, %+.2f]%@", scan.noise, key, value - exact, interval.low - exact, interval.high - exact, inside ? "" : " MISS"))
        }
      }
      // At 95 % each key misses on two or more of four scans with probability 1.4 %.
      for key in ["cvai", "ci", "circumference"] { #expect(covered[key, default: 0] >= 3, "\(key): \(covered[key, default: 0]) of 4") }
      // 28 intervals: at 95 % six or more misses have probability 0.2 %.
      #expect(covered.values.reduce(0, +) >= 23, "\(covered)")
    }
  }
}
