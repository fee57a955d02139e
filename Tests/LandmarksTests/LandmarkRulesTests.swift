import Foundation
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

@testable import Landmarks
@testable import Reconstruction

/// The lifting rules of docs/landmarks.md on a reconstruction built from a simulated scan's
/// truth (exact poses, the exact surface as the fused cloud), and the head frame the
/// landmarks give: a fused surface on the ray is used, a fused surface too far from the
/// frame's depth or none falls back to that depth, world landmarks stay as given, and frames
/// without a pose or outside the scan are refused by name.
struct LandmarkRulesTests {
  /// The world of the reconstruction built here: the truth's head frame moved by this.
  static let worldFromHead = RigidTransform(rotation: Rotation3(axis: [0.3, -0.2, 1], angle: 0.9), translation: [0.02, -0.01, 0.3])

  struct Fixture {
    var scan: any ScanReader
    var truth: SimulationTruth
    var pixels: LandmarkFile
    var landmarksPath: String
    /// Built with the exact surface `offset` metres outside the head as its cloud.
    var reconstruction: (_ offset: Double) -> HeadReconstruction
  }

  static func fixture(in folder: URL) throws -> Fixture {
    var o = SimulationOptions()
    o.frames = 24
    o.width = 320
    o.height = 240
    o.seed = 8
    o.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
    let path = folder.appendingPathComponent("scan.rgbdscan").path
    let simulated = try simulateScan(o, to: path, format: .stream)
    let truth = simulated.truth
    let head = HeadShape(solving: truth.parameters)
    let worldFromModel = worldFromHead * head.clinicalFrame.headFromWorld
    // The exact surface every 0.7 mm in height and 0.7° in azimuth, with outward normals.
    var surface: [(SIMD3<Double>, SIMD3<Double>)] = []
    for step in 0..<Int((head.vertexHeight - HeadShape.bottom - 0.002) / 0.0007) {
      let z = HeadShape.bottom + 0.001 + Double(step) * 0.0007
      for k in 0..<514 {
        let p = head.surfacePoint(z: z, phi: Double(k) * 2 * .pi / 514)
        surface.append((p, head.normal(at: p)))
      }
    }
    let frames = truth.cameras.map { c in
      var f = FrameDiagnostics(index: c.frame, timestamp: c.timestamp, detectedIDs: c.visibleMarkers, liftedByDepth: 5, liftedByPnP: 0)
      f.worldFromCamera = worldFromHead * c.headFromCamera
      return f
    }
    let markers = truth.markers.map { RegisteredMarker(id: $0.id, corners: $0.corners.map(worldFromHead.apply), observations: 5, rms: 0) }
    return Fixture(
      scan: try openScan(at: path), truth: truth, pixels: try LandmarkFile(path: simulated.landmarksPath), landmarksPath: simulated.landmarksPath,
      reconstruction: { offset in
        let cloud = PointSet(
          positions: surface.map { SIMD3<Float>(worldFromModel.apply($0.0 + offset * $0.1)) },
          normals: surface.map { SIMD3<Float>(worldFromModel.rotation * $0.1) })
        return HeadReconstruction(
          frames: frames, markers: markers, worldMarkerID: markers.map(\.id).min() ?? 0, cornerRMS: 0, markersDetected: markers.map(\.id),
          offCapDetections: 0, cloud: cloud)
      })
  }

  /// The names of the landmarks the simulator gave as pixels.
  static func pixelNames(_ file: LandmarkFile) -> [String] {
    LandmarkFile.names.filter { if case .pixel? = file.positions[$0] { return true } else { return false } }
  }

  @Test func pixelsLiftOntoTheFusedSurfaceOrTheFramesDepth() throws {
    try TestFiles.withTemporaryFolder { folder in
      let f = try Self.fixture(in: folder)
      let names = Self.pixelNames(f.pixels)
      #expect(names.count >= 3, "the simulator gave \(names) as pixels")
      let exact = f.reconstruction(0), outside = f.reconstruction(0.005)
      var noCloud = exact
      noCloud.cloud = PointSet()
      let truth = Dictionary(uniqueKeysWithValues: f.truth.landmarks.named.map { ($0.0, Self.worldFromHead.apply($0.1)) })
      for name in names {
        let target = try #require(truth[name])
        // No cloud on the ray: the frame's own depth, within its noise and the ±2 pixel window's slope.
        let fromDepth = try liftLandmark(name, of: f.pixels, path: f.landmarksPath, scan: f.scan, reconstruction: noCloud)
        #expect(fromDepth.source == .frameDepth, "\(name)")
        #expect((fromDepth.point - target).length < 0.003, "\(name): \((fromDepth.point - target).length * 1000) mm from the truth")
        // The exact surface on the ray: the true point, to the cloud's sampling.
        let onSurface = try liftLandmark(name, of: f.pixels, path: f.landmarksPath, scan: f.scan, reconstruction: exact)
        #expect(onSurface.source == .fusedSurface, "\(name)")
        #expect((onSurface.point - target).length < 0.0003, "\(name): \((onSurface.point - target).length * 1000) mm from the truth")
        // A cloud 5 mm outside, beyond the 2 mm a surface may lie from the frame's depth without
        // a noise estimate: exactly the frame's depth instead.
        let away = try liftLandmark(name, of: f.pixels, path: f.landmarksPath, scan: f.scan, reconstruction: outside)
        #expect(away.source == .frameDepth && away.point == fromDepth.point, "\(name)")
        // 1 mm outside: the surface where it is within 2 mm of the frame's depth, else that depth.
        let near = try liftLandmark(name, of: f.pixels, path: f.landmarksPath, scan: f.scan, reconstruction: f.reconstruction(0.001))
        if near.source == .fusedSurface {
          #expect((near.point - onSurface.point).length > 0.0008 && (near.point - fromDepth.point).length < 0.0025, "\(name)")
        } else {
          #expect(near.source == .frameDepth && near.point == fromDepth.point, "\(name)")
        }
      }
      // All four together, and their head frame: the truth's, moved into the world.
      var file = f.pixels
      for name in LandmarkFile.names where !names.contains(name) { file.positions[name] = .world(try #require(truth[name])) }
      let estimate = try HeadFrameEstimate.fromLandmarks(file, path: f.landmarksPath, scan: f.scan, reconstruction: exact)
      let expected = Self.worldFromHead.inverse
      #expect(estimate.source == .landmarks && estimate.slicing == .default && estimate.symmetryRMS == nil)
      let (angle, distance) = estimate.headFromWorld.difference(to: expected)
      #expect(angle * 180 / .pi < 0.5 && distance < 0.001, "\(angle * 180 / .pi)°, \(distance * 1000) mm from the truth's frame")
    }
  }

  @Test func worldLandmarksStayAndBadFramesAreRefusedByName() throws {
    try TestFiles.withTemporaryFolder { folder in
      let f = try Self.fixture(in: folder)
      var reconstruction = f.reconstruction(0)
      let given = SIMD3<Double>(0.01, 0.02, 0.33)
      var world = LandmarkFile(positions: Dictionary(uniqueKeysWithValues: LandmarkFile.names.map { ($0, .world(given)) }))
      world.positions["noseTip"] = nil
      let lifted = try liftLandmark("nasion", of: world, path: "w.json", scan: f.scan, reconstruction: reconstruction)
      #expect(lifted.point == given && lifted.source == .world)
      #expect(throws: ScanIOError.invalidLandmarks(path: "w.json", detail: "landmark 'noseTip' is missing")) {
        try liftLandmark("noseTip", of: world, path: "w.json", scan: f.scan, reconstruction: reconstruction)
      }
      // A frame without a pose is refused with its rejection; one past the frames by their count.
      reconstruction.frames[3].worldFromCamera = nil
      reconstruction.frames[3].rejection = .motionBlur(pixels: 2.5)
      var inThree = f.pixels
      inThree.positions["nasion"] = .pixel(frame: 3, u: 100, v: 100)
      inThree.positions["noseTip"] = .pixel(frame: 99, u: 1, v: 1)
      #expect(
        throws: LandmarkError.frameNotRegistered(
          path: "p.json", name: "nasion", frame: 3, reason: FrameRejection.motionBlur(pixels: 2.5).description)
      ) {
        try liftLandmark("nasion", of: inThree, path: "p.json", scan: f.scan, reconstruction: reconstruction)
      }
      #expect(throws: LandmarkError.frameOutOfRange(path: "p.json", name: "noseTip", frame: 99, frameCount: 24)) {
        try liftLandmark("noseTip", of: inThree, path: "p.json", scan: f.scan, reconstruction: reconstruction)
      }
      // Landmarks that make no frame: named by the file.
      let together = LandmarkFile(positions: Dictionary(uniqueKeysWithValues: LandmarkFile.names.map { ($0, .world(given)) }))
      #expect {
        try HeadFrameEstimate.fromLandmarks(together, path: "same.json", scan: f.scan, reconstruction: reconstruction)
      } throws: { error in
        guard case .noHeadFrame(let path, _)? = error as? LandmarkError else { return false }
        return path == "same.json"
      }
    }
  }

  @Test func theFileIsCheckedAgainstTheScanBeforeAnyRegistration() throws {
    let scan = try openScan(at: TestFiles.fixture("scans/tiny.rgbdscan").path)
    let width = Double(scan.header.colorWidth), height = Double(scan.header.colorHeight), last = scan.frameCount - 1
    func check(_ position: LandmarkFile.Position) throws {
      var file = LandmarkFile(positions: Dictionary(uniqueKeysWithValues: LandmarkFile.names.map { ($0, .world([0, 0, 0.3])) }))
      file.positions["leftEar"] = position
      try checkLandmarks(file, path: "l.json", scan: scan)
    }
    // Pixel centres run from 0 to size − 1; the image's edges lie half a pixel beyond.
    for inside in [(-0.5, -0.5), (width - 0.51, height - 0.51), (width / 2, 0)] {
      #expect(throws: Never.self) { try check(.pixel(frame: last, u: inside.0, v: inside.1)) }
    }
    for outside in [(-0.51, 0.0), (0, -0.51), (width - 0.5, 0), (0, height - 0.5)] {
      #expect(throws: LandmarkError.pixelOutsideImage(path: "l.json", name: "leftEar", frame: 0)) { try check(.pixel(frame: 0, u: outside.0, v: outside.1)) }
    }
    for frame in [-1, last + 1] {
      #expect(throws: LandmarkError.frameOutOfRange(path: "l.json", name: "leftEar", frame: frame, frameCount: scan.frameCount)) {
        try check(.pixel(frame: frame, u: 0, v: 0))
      }
    }
    // World landmarks need no frame.
    #expect(throws: Never.self) { try check(.world([9, 9, 9])) }
  }

  @Test func anAutomaticFrameIsSlicedFromTheLowestLayerAndMeasuresItsOwnPoints() throws {
    let head = HeadShape(solving: .init(cranialIndex: 84, cvai: 6, flattenedSide: .left))
    let frame = AutomaticHeadFrame(headFromWorld: head.clinicalFrame.headFromWorld, symmetryRMS: 0.0012, upCorrection: 0)
    let estimate = HeadFrameEstimate(automatic: frame)
    #expect(estimate.source == .automatic && estimate.slicing == .fromLowestPoint && estimate.symmetryRMS == 0.0012)
    #expect(estimate.landmarks == nil && estimate.automaticLandmarks == nil)
    var cloud = PointSet()
    for z in stride(from: -0.02, to: 0.09, by: 0.001) {
      for k in 0..<360 { cloud.positions.append(SIMD3<Float>(head.surfacePoint(z: z, phi: Double(k) * .pi / 180))) }
    }
    #expect(estimate.headPoints(of: cloud).count == cloud.count)
    #expect(estimate.headPoints(of: cloud)[10] == head.clinicalFrame.headFromWorld.apply(SIMD3<Double>(cloud.positions[10])))
    let measured = try estimate.measure(cloud), direct = try measureHead(points: estimate.headPoints(of: cloud), options: .fromLowestPoint)
    #expect(measured.measures == direct.measures)
    // The landmarks' frame of the same head measures the exact head's CVAI.
    let landmarks = try HeadFrameEstimate(landmarks: head.landmarks)
    #expect(landmarks.landmarks == head.landmarks && landmarks.slicing == .default)
    let byLandmarks = try landmarks.measure(cloud).measures
    #expect(abs(byLandmarks.cvai - head.truth().cvai) < 0.3, "CVAI \(byLandmarks.cvai), exact \(head.truth().cvai)")
  }
}
