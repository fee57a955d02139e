import Foundation
@testable import OperatorGuidance
import PointCloud
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// Live coverage replayed over simulated scans whose camera path and head are known.
struct LiveCoverageTests {
  /// Simulates a scan, replays the coverage and returns the states with the truth.
  static func replay(_ configure: (inout SimulationOptions) -> Void) throws -> ([CoverageState], SimulationTruth) {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      o.frames = 60
      configure(&o)
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let simulated = try simulateScan(o, to: path, format: .stream)
      return (try replayCoverage(in: try openScan(at: path)), simulated.truth)
    }
  }

  /// The errors of the fitted head against the truth: centre (mm), the measurement level's
  /// height above the fitted centre (mm), and the up and front directions (degrees).
  static func headErrors(_ state: CoverageState, first: Int, truth: SimulationTruth) throws -> (centre: Double, level: Double, up: Double, front: Double) {
    let head = try #require(state.head)
    let cameraFromHead = truth.cameras[first].headFromCamera.inverse
    let p = truth.parameters
    let vaultCentre = cameraFromHead.apply(SIMD3(p.vaultOffset, 0, p.measurementHeight))
    let up = cameraFromHead.rotation * SIMD3(0, 0, 1), front = cameraFromHead.rotation * SIMD3(1, 0, 0)
    func angle(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { acos(min(1, max(-1, a.dot(b)))) * 180 / .pi }
    // The front is judged in the horizontal plane (the tracker's front is horizontal).
    var horizontal = front - head.up * front.dot(head.up)
    horizontal = horizontal / horizontal.length
    return ((vaultCentre - head.centre).length * 1000, ((vaultCentre - head.centre).dot(head.up) - head.levelHeight) * 1000, angle(up, head.up), angle(horizontal, head.front))
  }

  @Test func aFullOrbitCoversTheBandAndFindsTheHead() throws {
    let (states, truth) = try Self.replay { $0.seed = 3 }
    let final = try #require(states.last)
    let first = try #require(states.first { $0.placed }).frame
    let e = try Self.headErrors(final, first: first, truth: truth)
    #expect(final.framesPlaced == final.framesSeen && final.markersMapped >= 25)
    #expect(final.missing.isEmpty && final.faceSeen && final.bandCoveragePercent >= 95, "missing \(final.missingNames)")
    #expect(e.up <= 8 && abs(e.level) <= 10 && e.front <= 30, "head \(e)")
  }

  @Test func aPartialSweepNamesTheSideNeverFilmed() throws {
    let (states, truth) = try Self.replay {
      $0.seed = 4
      $0.path.coverage = 0.3
    }
    let final = try #require(states.last)
    let timeline = CoverageTimeline(states: states)
    // What the camera never faced is named, and named while the recording goes on: through the
    // last quarter of the frames it is listed as missing and the advice sends the operator round
    // to a sector missing at that frame.
    let never = Self.sectorsFromTruth(truth).neverFaced
    let finalMissing = final.missing.map(\.description)
    #expect(!never.isEmpty && never.isSubset(of: Set(finalMissing)), "never faced \(never), missing \(finalMissing)")
    let lastQuarter = states.suffix(states.count / 4)
    #expect(lastQuarter.allSatisfy { s in never.isSubset(of: Set(s.missing.map(\.description))) })
    #expect(
      lastQuarter.allSatisfy { s in s.missing.contains { s.advice?.contains("to the \($0) of the head") == true } },
      "\(lastQuarter.map { $0.advice ?? "-" })")
    #expect(never.allSatisfy { (timeline.firstNamedMissing[$0] ?? .max) < states.count - 1 })
    // The sweep went from the front round the infant's left: the rest lies further that way.
    #expect(final.advice?.hasPrefix("move round to the infant's left") == true, "\(final.advice ?? "-")")
  }

  /// Sectors the camera never faced (no camera within 90° of the sector's centre, so at most
  /// grazing views) and those it faced squarely (a camera within 20°), from the truth.
  static func sectorsFromTruth(_ truth: SimulationTruth) -> (neverFaced: Set<String>, faced: Set<String>) {
    let p = truth.parameters
    let azimuths = truth.cameras.map { c -> Double in
      let d = c.headFromCamera.translation - SIMD3(p.vaultOffset, 0, p.measurementHeight)
      return atan2(d.y, d.x) * 180 / .pi
    }
    var never = Set<String>(), faced = Set<String>()
    for sector in LiveCoverage.Sector.allCases {
      let nearest = azimuths.map { a -> Double in
        let d = abs((a - sector.azimuthDegrees).truncatingRemainder(dividingBy: 360))
        return min(d, 360 - d)
      }.min() ?? 180
      if nearest > 90 { never.insert(sector.description) }
      if nearest < 20 { faced.insert(sector.description) }
    }
    return (never, faced)
  }

  /// Full and partial sweeps (0.3–1.1 turn), both presets, two seeds each: the head found from
  /// the cap and the sectors named against the camera path.
  @Test(arguments: [0.3, 0.5, 0.7, 1.1]) func sweepsOfEveryLength(coverage: Double) throws {
    for preset in [SimulationPreset.default, .realistic] {
      for seed in [UInt64(1), 2] {
        let (states, truth) = try Self.replay {
          $0 = SimulationOptions(preset: preset)
          $0.frames = 60
          $0.seed = seed
          $0.path.coverage = coverage
        }
        let final = try #require(states.last)
        let first = try #require(states.first { $0.placed }).frame
        let e = try Self.headErrors(final, first: first, truth: truth)
        let sectors = Self.sectorsFromTruth(truth)
        let missing = Set(final.missing.map(\.description))
        let line = String(
          format: "| %@ | %.1f | %d | %d/%d | %d | %.1f | %+.1f | %.1f | %.1f | %.0f | %.0f | %@ | %@ |", "\(preset)", coverage, seed,
          final.framesPlaced, final.framesSeen, final.markersMapped, e.centre, e.level, e.up, e.front, final.bandCoveragePercent,
          final.largestGapDegrees, final.missingNames.joined(separator: ", "), sectors.neverFaced.sorted().joined(separator: ", "))
        print(line)
        #expect(final.framesPlaced * 20 >= final.framesSeen * 19, "\(line)")
        #expect(e.up <= 8 && abs(e.level) <= 10 && e.front <= 30, "\(line)")
        #expect(sectors.neverFaced.isSubset(of: missing), "\(line)")
        #expect(sectors.faced.isDisjoint(with: missing), "\(line)")
      }
    }
  }

  @Test func aFullOrbitWithAnEarPassCoversEverything() throws {
    let (states, _) = try Self.replay {
      $0 = SimulationOptions(preset: .realistic)
      $0.frames = 60
      $0.seed = 3
    }
    let final = try #require(states.last)
    #expect(final.missingNames.isEmpty && final.advice == nil, "missing \(final.missingNames), advice \(final.advice ?? "-")")
    #expect(final.bandCoveragePercent >= 95 && final.largestGapDegrees <= 15)
  }

  @Test func theFittingHelpersRecoverKnownAnswers() {
    let centre = SIMD3(0.01, -0.02, 0.03), r = 0.07
    let points = (0..<20).map { i -> SIMD3<Double> in
      let a = Double(i) * 2.4, z = -0.1 + Double(i) * 0.05
      let rho = (1 - z * z).squareRoot()
      return centre + r * SIMD3(rho * cos(a), rho * sin(a), z)
    }
    let sphere = LiveCoverage.sphere(through: points)
    #expect(sphere.map { ($0.centre - centre).length < 1e-9 && abs($0.radius - r) < 1e-9 } == true)
    // diag(3, 1, 2) turned about z by 30°: smallest eigenvalue 1 along (−sin 30°, cos 30°, 0).
    let c = cos(Double.pi / 6), s = sin(Double.pi / 6)
    let m = [3 * c * c + s * s, (3 - 1) * c * s, 0, (3 - 1) * c * s, 3 * s * s + c * c, 0, 0, 0, 2]
    let (values, vector) = LiveCoverage.eigen(m)
    #expect(abs(values.0 - 1) < 1e-12 && abs(values.1 - 2) < 1e-12 && abs(abs(vector.dot(SIMD3(-s, c, 0))) - 1) < 1e-12)
    let fit = LiveCoverage.parabola([(-2, -13), (0, 1), (1, -1), (3, -23)])  // y = −3x² + x + 1
    #expect(fit.map { abs($0.0 + 3) < 1e-9 && abs($0.1 - 1) < 1e-9 && abs($0.2 - 1) < 1e-9 } == true)
  }
}
