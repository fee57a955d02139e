import Foundation
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

@testable import Reconstruction
@testable import ScanEvaluation

/// `RegistrationAccuracy`'s own arithmetic: reconstructions built here from a simulated scan's
/// truth, exact or off by known amounts, compared with that truth.
struct RegistrationAccuracyTests {
  /// A small simulated scan's truth (4 frames) and the path of the scan it sits beside.
  static func truth(in folder: URL) throws -> (SimulationTruth, String) {
    var o = SimulationOptions()
    o.frames = 4
    o.width = 320
    o.height = 240
    o.seed = 3
    o.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
    let path = folder.appendingPathComponent("scan.rgbdscan").path
    return (try simulateScan(o, to: path, format: .stream).truth, path)
  }

  /// What to build: the truth as the registration would give it in its world (the lowest
  /// marker's own frame), with `moved` applied to the whole estimate, `markerEdits` to single
  /// markers' corners (in the world) and `cameraOffsets` (world, metres) to the cameras;
  /// cameras in `rejected` get no pose.
  struct Plan {
    var moved = RigidTransform.identity
    var markerEdits: [Int: ([SIMD3<Double>]) -> [SIMD3<Double>]] = [:]
    var cameraOffsets: [Int: SIMD3<Double>] = [:]
    var rejected: Set<Int> = []
    /// How far the cloud lies outside the exact surface on the vault and below it, metres.
    var vaultOffset = 0.0
    var lowerOffset = 0.0
  }

  /// Clinical-frame heights of the cloud's points: well above and well below the vault's lower
  /// edge (``HeadShape/bumpCeiling``, 8 mm), so a few tenths of a millimetre of misalignment
  /// cannot move a point across it.
  static let vaultHeights = stride(from: 0.012, to: 0.09, by: 0.004).map { $0 }
  static let lowerHeights = stride(from: -0.04, to: 0.004, by: 0.004).map { $0 }
  static let azimuths = (0..<90).map { Double($0) / 90 * 2 * .pi }

  static func reconstruction(of truth: SimulationTruth, _ plan: Plan) throws -> HeadReconstruction {
    let worldID = try #require(truth.markers.map(\.id).min())
    let worldMarker = try #require(truth.markers.first { $0.id == worldID })
    let worldFromHead = plan.moved * worldMarker.headFromMarker.inverse
    let markers = truth.markers.map { m in
      let corners = m.corners.map(worldFromHead.apply)
      return RegisteredMarker(id: m.id, corners: plan.markerEdits[m.id].map { $0(corners) } ?? corners, observations: 7, rms: 0.0002)
    }
    var frames = truth.cameras.map { c in
      var f = FrameDiagnostics(index: c.frame, timestamp: c.timestamp, detectedIDs: c.visibleMarkers, liftedByDepth: 5, liftedByPnP: 1)
      if !plan.rejected.contains(c.frame) {
        var pose = worldFromHead * c.headFromCamera
        pose.translation += plan.cameraOffsets[c.frame] ?? .zero
        f.worldFromCamera = pose
        f.rms = 0.0003
      } else {
        f.rejection = .noMarkers
      }
      return f
    }
    // A frame the truth does not have (a longer scan): registered, but not compared.
    var extra = FrameDiagnostics(index: truth.cameras.count, timestamp: 9, detectedIDs: [], liftedByDepth: 3, liftedByPnP: 0)
    extra.worldFromCamera = .identity
    frames.append(extra)

    let head = HeadShape(solving: truth.parameters)
    let headFromModel = head.clinicalFrame.headFromWorld
    var cloud = PointSet()
    for z in vaultHeights + lowerHeights {
      for phi in azimuths {
        // Points of the model's surface whose clinical height is z (the frames differ by a small tilt).
        var q = head.surfacePoint(z: z, phi: phi)
        q = head.surfacePoint(z: z - (headFromModel.apply(q).z - z), phi: phi)
        let onVault = headFromModel.apply(q).z >= HeadShape.bumpCeiling
        let p = q + (onVault ? plan.vaultOffset : plan.lowerOffset) * head.normal(at: q)
        cloud.positions.append(SIMD3<Float>(worldFromHead.apply(headFromModel.apply(p))))
      }
    }
    return HeadReconstruction(
      frames: frames, markers: markers, worldMarkerID: worldID, cornerRMS: 0.0002, markersDetected: truth.markers.map(\.id),
      offCapDetections: 0, cloud: cloud)
  }

  @Test func anExactReconstructionHasNoErrorInEitherFrame() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (truth, _) = try Self.truth(in: folder)
      let a = RegistrationAccuracy(result: try Self.reconstruction(of: truth, Plan()), truth: truth)
      for errors in [a.world, a.aligned] {
        #expect(errors.markerTranslation < 1e-9 && errors.markerRotation < 1e-5, "\(errors)")
        #expect(errors.cameraTranslation < 1e-9 && errors.medianCameraTranslation < 1e-9, "\(errors)")
        // Every vault point scored, none below it, all on the surface (to float precision).
        #expect(errors.cloudPointsScored == Self.vaultHeights.count * Self.azimuths.count)
        #expect(errors.cloudRMS < 0.001, "\(errors)")
      }
      #expect(a.keptFraction == 1)
      #expect(a.markers.map(\.id) == truth.markers.map(\.id).sorted())
      #expect(a.markers.allSatisfy { $0.millimetres < 1e-9 && $0.observations == 7 && abs($0.rms - 0.2) < 1e-12 })
      #expect(a.markers.allSatisfy { $0.cornerErrors.count == 4 && $0.cornerErrors.allSatisfy { $0.length < 1e-9 } })
      #expect(a.cameras.map(\.frame) == [0, 1, 2, 3], "the extra frame has no truth to compare with")
      #expect(a.cameras.allSatisfy { $0.millimetres < 1e-9 && $0.markers == 5 && abs($0.rms - 0.3) < 1e-12 })
    }
  }

  /// A world off by a known rigid motion: every marker turned by its angle and moved by where
  /// the motion takes its centre, every camera moved likewise; after the alignment, nothing.
  @Test func aWorldOffByARigidMotionCountsInTheWorldOnly() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (truth, _) = try Self.truth(in: folder)
      let angle = 0.3 * Double.pi / 180
      let moved = RigidTransform(rotation: Rotation3(axis: [0.2, -0.4, 1], angle: angle), translation: [0.0003, 0, 0.0004])
      var plan = Plan()
      plan.moved = moved
      let result = try Self.reconstruction(of: truth, plan)
      let a = RegistrationAccuracy(result: result, truth: truth)
      // Where the motion takes each marker's centre, from the exact world (mm).
      let exact = try Self.reconstruction(of: truth, Plan())
      let shifts = exact.markers.map { (moved.apply($0.worldFromMarker.translation) - $0.worldFromMarker.translation).length * 1000 }
      #expect(abs(a.world.markerTranslation - (shifts.max() ?? 0)) < 1e-9, "\(a.world) against \(shifts.max() ?? 0)")
      #expect(abs(a.world.markerRotation - 0.3) < 1e-6, "\(a.world)")
      let cameraShifts = exact.frames.prefix(4).compactMap(\.worldFromCamera).map { (moved.apply($0.translation) - $0.translation).length * 1000 }
      #expect(abs(a.world.cameraTranslation - (cameraShifts.max() ?? 0)) < 1e-9, "\(a.world)")
      #expect(abs(a.world.medianCameraTranslation - cameraShifts.sorted()[2]) < 1e-9, "\(a.world)")
      #expect(a.world.cloudRMS > 0.1, "the cloud moved off the surface: \(a.world)")
      #expect(a.aligned.markerTranslation < 1e-6 && a.aligned.markerRotation < 1e-5 && a.aligned.cameraTranslation < 1e-6, "\(a.aligned)")
      #expect(a.aligned.cloudRMS < 0.001, "\(a.aligned)")
    }
  }

  /// Single markers off by known amounts: one moved 0.4 mm out along its normal, one turned 1°
  /// in its plane, one tilted 1° about its own x axis; cameras off by 1.5 and 0.5 mm, one
  /// rejected; the cloud 0.2 mm outside the vault (and far outside below it, where nothing is scored).
  @Test func singleMarkersCamerasAndTheCloudOffByKnownAmounts() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (truth, _) = try Self.truth(in: folder)
      let ids = truth.markers.map(\.id).sorted()
      let (lifted, turned, tilted) = (ids[5], ids[10], ids[15])
      func about(_ axis: @escaping (RigidTransform) -> SIMD3<Double>, by degrees: Double) -> ([SIMD3<Double>]) -> [SIMD3<Double>] {
        { corners in
          let pose = RigidTransform(squareCorners: corners)
          let turn = Rotation3(axis: axis(pose), angle: degrees * .pi / 180)
          return corners.map { pose.translation + turn * ($0 - pose.translation) }
        }
      }
      var plan = Plan()
      plan.markerEdits = [
        lifted: { corners in
          let normal = RigidTransform(squareCorners: corners).rotation.columns.2
          return corners.map { $0 + 0.0004 * normal }
        },
        turned: about({ $0.rotation.columns.2 }, by: 1),
        tilted: about({ $0.rotation.columns.0 }, by: 1),
      ]
      plan.cameraOffsets = [1: [0.0015, 0, 0], 3: [0, 0, -0.0005]]
      plan.rejected = [2]
      plan.vaultOffset = 0.0002
      plan.lowerOffset = 0.003
      let a = RegistrationAccuracy(result: try Self.reconstruction(of: truth, plan), truth: truth)

      // In the world (exact but for the edits): the edits themselves.
      #expect(abs(a.world.markerTranslation - 0.4) < 1e-9, "\(a.world)")
      #expect(abs(a.world.markerRotation - 1) < 1e-6, "\(a.world)")
      #expect(abs(a.world.cameraTranslation - 1.5) < 1e-9 && abs(a.world.medianCameraTranslation - 0.5) < 1e-9, "\(a.world)")
      #expect(abs(a.world.cloudRMS - 0.2) < 0.002, "\(a.world)")
      #expect(a.world.cloudPointsScored == Self.vaultHeights.count * Self.azimuths.count)
      #expect(abs(a.keptFraction - 4.0 / 5) < 1e-12, "4 of 5 frames registered")

      // After the alignment, which the one lifted marker pulls by about 1/N of its 0.4 mm (and
      // turns by about a hundredth of a degree: 0.06 mm at the cameras).
      let byID = Dictionary(uniqueKeysWithValues: a.markers.map { ($0.id, $0) })
      let l = try #require(byID[lifted]), t = try #require(byID[turned]), s = try #require(byID[tilted])
      #expect(l.millimetres > 0.35 && l.millimetres <= 0.4 && l.degrees < 0.03, "lifted: \(l)")
      // Its corners' errors in its own axes: all along its normal.
      #expect(l.cornerErrors.allSatisfy { $0.z > 0.35 && $0.z <= 0.4 && abs($0.x) < 0.03 && abs($0.y) < 0.03 }, "\(l.cornerErrors)")
      #expect(abs(t.degrees - 1) < 0.01 && abs(t.inPlaneDegrees - 1) < 0.01 && t.tiltDegrees < 0.01 && t.millimetres < 0.03, "turned: \(t)")
      // Turned in its plane: the corners move sideways by up to the half-diagonal × 1°, not out.
      let halfDiagonal = 0.016 / 2 * 2.0.squareRoot() * 1000
      #expect(t.cornerErrors.allSatisfy { abs(($0.x * $0.x + $0.y * $0.y).squareRoot() - halfDiagonal * .pi / 180) < 0.03 && abs($0.z) < 0.03 })
      #expect(abs(s.degrees - 1) < 0.01 && abs(s.tiltDegrees - 1) < 0.01 && s.inPlaneDegrees < 0.01, "tilted: \(s)")
      let others = a.markers.filter { ![lifted, turned, tilted].contains($0.id) }
      #expect(others.allSatisfy { $0.millimetres < 0.05 && $0.degrees < 0.05 }, "\(others.map(\.millimetres).max() ?? -1)")
      #expect(abs(a.aligned.markerTranslation - (a.markers.map(\.millimetres).max() ?? -1)) < 1e-12)
      #expect(abs(a.aligned.markerRotation - (a.markers.map(\.degrees).max() ?? -1)) < 1e-12)
      #expect(a.cameras.map(\.frame) == [0, 1, 3])
      let cameras = Dictionary(uniqueKeysWithValues: a.cameras.map { ($0.frame, $0.millimetres) })
      #expect(abs((cameras[1] ?? 0) - 1.5) < 0.15 && abs((cameras[3] ?? 0) - 0.5) < 0.15 && (cameras[0] ?? 1) < 0.15, "\(cameras)")
      #expect(abs(a.aligned.cloudRMS - 0.2) < 0.02 && a.aligned.cloudPointsScored == a.world.cloudPointsScored, "\(a.aligned)")
      #expect(a.description.hasPrefix("world: markers ≤ 0.40 mm / 1.00°, cameras ≤ 1.50 mm (median 0.50), vault cloud RMS 0.20 mm; aligned: "), "\(a)")
      #expect(a.description.hasSuffix("; 80 % of frames kept"), "\(a)")
    }
  }

  @Test func withoutACloudOrAKnownWorldMarkerThereIsLessToCompare() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (truth, _) = try Self.truth(in: folder)
      var result = try Self.reconstruction(of: truth, Plan())
      result.cloud = PointSet()
      let a = RegistrationAccuracy(result: result, truth: truth)
      #expect(a.world.cloudPointsScored == 0 && a.world.cloudRMS == 0)
      #expect(a.world.description.hasSuffix(", no cloud"), "\(a.world)")
      // A world marker the truth does not know: nothing can be compared.
      result.worldMarkerID = 999
      let unknown = RegistrationAccuracy(result: result, truth: truth)
      #expect(unknown.world == .init() && unknown.aligned == .init() && unknown.markers.isEmpty && unknown.cameras.isEmpty)
    }
  }

  @Test func theTruthIsReadFromBesideTheScan() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (truth, path) = try Self.truth(in: folder)
      let read = try RegistrationAccuracy.truth(beside: path)
      #expect(read.seed == truth.seed && read.markers.count == truth.markers.count && read.measures == truth.measures)
      #expect(read.cameras.map(\.headFromCamera) == truth.cameras.map(\.headFromCamera))
      let other = folder.appendingPathComponent("other.rgbdscan").path
      #expect(throws: ScanIOError.missingFile(path: folder.appendingPathComponent("other.truth.json").path)) {
        try RegistrationAccuracy.truth(beside: other)
      }
      try Data("{\"seed\": 1}".utf8).write(to: folder.appendingPathComponent("other.truth.json"))
      #expect {
        try RegistrationAccuracy.truth(beside: other)
      } throws: { error in
        guard case .invalidJSON(let at, _)? = error as? ScanIOError else { return false }
        return at == folder.appendingPathComponent("other.truth.json").path
      }
      // One marker listed twice: refused by name, not a crash on the lookup by id.
      let truthPath = folder.appendingPathComponent("scan.truth.json")
      var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: truthPath)) as? [String: Any])
      let markers = try #require(object["markers"] as? [Any])
      object["markers"] = markers + [markers[0]]
      try JSONSerialization.data(withJSONObject: object).write(to: truthPath)
      #expect {
        try RegistrationAccuracy.truth(beside: path)
      } throws: { error in
        guard case .invalidValue(let at, "markers", let detail)? = error as? ScanIOError else { return false }
        return at == truthPath.path && detail.contains("appears more than once")
      }
    }
  }
}
