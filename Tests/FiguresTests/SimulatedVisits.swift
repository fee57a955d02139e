import CVAI
import Foundation
import _HeadScanSupport
import PointCloud
import Reports

/// Heads with a known CVAI: ellipsoids (semi-axes 72 and 60 mm across, 40 mm up, equator 20 mm
/// above the ears' plane) whose cross-sections are turned by `turn` degrees toward the infant's
/// left, sampled at random up to 42 mm with Gaussian radial noise; the chords through the centre are known.
enum SimulatedVisits {
  static let a = 72.0, b = 60.0

  /// The chord through the centre of the turned ellipse at `angle` degrees from x, mm.
  static func chord(at angle: Double, turn: Double) -> Double {
    let t = (angle - turn) * .pi / 180
    return 2 * a * b / (b * b * cos(t) * cos(t) + a * a * sin(t) * sin(t)).squareRoot()
  }

  /// The true CVAI (by the longer diagonal), percent.
  static func trueCVAI(turn: Double) -> Double {
    let p = chord(at: 30, turn: turn), m = chord(at: -30, turn: turn)
    return abs(p - m) / max(p, m) * 100
  }

  /// Head-frame points in metres.
  static func points(turn: Double, noise: Double, count: Int, seed: UInt64) -> [SIMD3<Double>] {
    var random = SeededGenerator(seed: seed)
    let c = 40.0, zc = 20.0, phi = turn * .pi / 180
    return (0..<count).map { _ in
      let z = random.uniform() * 42  // up to 22 mm above the equator: the level's ±10 mm and a margin
      let s = (1 - ((z - zc) / c) * ((z - zc) / c)).squareRoot()
      let t = random.uniform() * 2 * .pi
      let e = SIMD2(a * s * cos(t), b * s * sin(t))
      let p = SIMD2(e.x * cos(phi) - e.y * sin(phi), e.x * sin(phi) + e.y * cos(phi))
      let grown = p + noise * random.gaussian() * p / (p * p).sum().squareRoot()
      return SIMD3(grown.x, grown.y, z) / 1000
    }
  }

  /// What a scan's intervals include besides the cloud's sampling, at sizes measured on
  /// realistic-preset scans (docs/method.md "Uncertainty"): landmarks lifted with 0.5 mm along
  /// their rays and 0.1 mm in every direction, the map's scale to 0.04 %, the surface to 0.07 mm.
  static let uncertainty = MeasurementUncertainty(
    landmarks: [
      .init(position: [0.072, 0, 0], isotropicSD: 0.0001, alongRaySD: 0.0005, ray: [-1, 0, 0]),
      .init(position: [0.085, 0, -0.02], isotropicSD: 0.0001, alongRaySD: 0.0005, ray: [-1, 0, 0]),
      .init(position: [0, 0.055, 0], isotropicSD: 0.0001, alongRaySD: 0.0005, ray: [0, -1, 0]),
      .init(position: [0, -0.055, 0], isotropicSD: 0.0001, alongRaySD: 0.0005, ray: [0, 1, 0]),
    ], scaleSD: 0.0004, surfaceSD: 0.07)

  /// A measured visit.
  typealias Visit = (report: MeasureReport, measurement: HeadMeasurement, points: [SIMD3<Double>])

  /// Patient 17's three visits, measured once for all tests: turns of 12°, 11.7° and 4° (true CVAI
  /// 6.70, 6.55, 2.36 %), recorded on 2 March, 15 April (in UTC+2) and 1 July 2026.
  static let patient17: Result<[Visit], any Error> = Result {
    try [
      visit(turn: 12, seed: 11, patient: "17", recordedAt: "2026-03-02T09:30:00Z"),
      visit(turn: 11.7, seed: 12, patient: "17", recordedAt: "2026-04-15T14:00:00+02:00"),
      visit(turn: 4, seed: 13, patient: "17", recordedAt: "2026-07-01T10:00:00Z"),
    ]
  }

  /// A measured visit: the report (with intervals, patient and date), its measurement and points.
  static func visit(turn: Double, seed: UInt64, patient: String, recordedAt: String) throws -> Visit {
    let points = points(turn: turn, noise: 0.5, count: 30_000, seed: seed)
    let measurement = try measureHead(points: points)
    let intervals = bootstrapIntervals(points: points, measurement: measurement, replicates: 40, seed: seed, uncertainty: uncertainty)
    var report = MeasureReport(
      measurement: measurement, denominator: .longer,
      registration: .init(frames: 120, framesRegistered: 117, markers: 40, markersRegistered: 38, cornerRMS: 0.41),
      headFrame: "landmarks", headFromWorld: .identity, symmetryRMS: nil, intervals: intervals, scan: "visit-\(seed).rgbdscan")
    (report.patientID, report.recordedAt) = (patient, recordedAt)
    return (report, measurement, points)
  }
}
