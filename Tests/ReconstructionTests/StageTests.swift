import ArucoBridge
import Foundation
import Fusion
import PointCloud
import Reconstruction
import Registration
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// The public stages: their composition is `reconstructHead`, and bad inputs give typed errors.
struct StageTests {
  static let colour = CameraIntrinsics(fx: 593, fy: 593, cx: 319.5, cy: 239.5, width: 640, height: 480)
  static let context = ScanContext(path: "synthetic", colour: colour, markerSideLength: 0.016)

  /// A marker `id` 30 cm in front of a camera moved by `shift` (metres), squarely seen, lifted by depth.
  static func lifted(_ id: Int, at centre: SIMD3<Double>, shift: SIMD3<Double>) -> LiftedMarker {
    let cameraFromMarker = RigidTransform(rotation: Rotation3(axis: [1, 0, 0], angle: .pi), translation: centre - shift)
    let corners = RigidTransform.squareModel(side: 0.016).map(cameraFromMarker.apply)
    let pixels = corners.compactMap { colour.project($0) }
    return LiftedMarker(
      id: id, pixelCorners: pixels, cameraCorners: corners, cameraFromMarker: cameraFromMarker, residual: 0, method: .depth,
      cornersWithoutDepth: 0, triangulationCorners: pixels)
  }

  static func observation(_ index: Int, _ markers: [LiftedMarker]) -> FrameObservation {
    FrameObservation(
      diagnostics: FrameDiagnostics(
        index: index, timestamp: Double(index) / 30, detectedIDs: markers.map(\.id), liftedByDepth: markers.count, liftedByPnP: 0),
      lifted: markers, offCapDetections: 0, hasDepth: true)
  }

  /// A default-preset scan of `frames` frames at 320×240 simulated into `folder`, opened.
  static func smallScan(frames: Int, seed: UInt64, in folder: URL) throws -> any ScanReader {
    var o = SimulationOptions()
    o.frames = frames
    o.width = 320
    o.height = 240
    o.seed = seed
    let path = folder.appendingPathComponent("scan.rgbdscan").path
    _ = try simulateScan(o, to: path, format: .stream)
    return try openScan(at: path)
  }

  @Test func stagesRunByHandGiveReconstructHeadsResult() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try Self.smallScan(frames: 20, seed: 4, in: folder)
      let whole = try reconstructHead(scan)

      let observed = try observeScan(scan)
      let chain = try chainFrames(observed)
      let optimised = try optimiseMap(chain)
      let resected = resectFrames(optimised)
      var registration = try keepMarkers(resected)
      let fused = try fuseFrames(scan, registration: registration)
      var cloud = try cleanCloud(fused)
      registration = try settleMarkers(registration, on: cloud)
      (registration, cloud) = defineWorld(registration, cloud: cloud)

      #expect(registration.frames == whole.frames)
      #expect(registration.markers == whole.markers)
      #expect(registration.worldMarkerID == whole.worldMarkerID && registration.cornerRMS == whole.cornerRMS)
      #expect(cloud == whole.cloud)
      #expect(observed.markersDetected == whole.markersDetected)
      // The world is the world marker's own frame: its pose is the identity.
      let world = try #require(registration.markers.first { $0.id == registration.worldMarkerID })
      let (angle, distance) = world.worldFromMarker.difference(to: .identity)
      #expect(angle < 1e-9 && distance < 1e-12)
      // Each stage reported, in order, with its counts.
      #expect(whole.stages.map(\.stage) == ["observe", "chain", "optimise", "resect", "keep markers", "fuse", "clean", "settle"])
      #expect(whole.stages.first?.counts.first == StageReport.Count("frames read", 20))
      #expect(whole.stages.contains { $0.counts.contains(StageReport.Count("frames registered", whole.framesRegistered)) })
      // Processor time: the observation of 20 frames costs some, no stage a negative amount.
      #expect(whole.stages.allSatisfy { ($0.processorSeconds ?? -1) >= 0 })
      #expect((whole.stages.first?.processorSeconds ?? 0) > 0)
    }
  }

  /// Every stage that runs on several threads (observation, the reduced normal equations, the
  /// marker triangulation, fusion, the outlier search and the local planes) gives one thread's
  /// result exactly: the same registration and the same cloud at any worker count.
  @Test func oneWorkerAndSeveralGiveTheSameHead() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try Self.smallScan(frames: 24, seed: 6, in: folder)
      var options = ReconstructionOptions.default
      options.workers = 1
      let one = try reconstructHead(scan, options: options)
      #expect(one.markers.count >= 4 && one.cloud.count > 1000)
      for workers in [2, 5] {
        options.workers = workers
        let several = try reconstructHead(scan, options: options)
        #expect(several.frames == one.frames, "\(workers) workers")
        #expect(several.markers == one.markers, "\(workers) workers")
        #expect(several.cloud == one.cloud, "\(workers) workers")
      }
    }
  }

  /// A cap with one marker: no count of markers decides, so every frame is placed through that
  /// one sticker's four lifted corners, and the cameras come out where they moved.
  @Test func oneMarkerPerFramePlacesEveryFrameThroughIt() throws {
    let shifts = (0..<8).map { f in SIMD3<Double>(0.002 * Double(f), -0.001 * Double(f), 0) }
    let frames = shifts.enumerated().map { f, shift in Self.observation(f, [Self.lifted(0, at: [0, 0, 0.3], shift: shift)]) }
    let chain = try chainFrames(ScanObservations(context: Self.context, frames: frames))
    #expect(chain.framesPlaced == 8)
    let registration = try keepMarkers(resectFrames(try optimiseMap(chain)))
    #expect(registration.framesRegistered == 8)
    let poses = registration.frames.compactMap(\.worldFromCamera)
    for (pose, shift) in zip(poses, shifts) {
      // Camera f lies as far from camera 0 as it moved.
      #expect(abs((pose.translation - poses[0].translation).length - (shift - shifts[0]).length) < 1e-9)
    }
    // Exact corners: every pose determined to well under a micrometre.
    #expect(registration.frames.allSatisfy { ($0.poseUncertainty ?? 1) < 1e-6 })
  }

  /// No count of stickers places a frame, its pose's determination does: frames that see one
  /// sticker lifted by depth are placed, with a wider stated uncertainty than frames that see
  /// four; a frame held only by a PnP sticker lifted 5 cm astray (a flipped tilt), whose pixels
  /// do not fit the map, is rejected.
  @Test func framesArePlacedWhereTheirPoseIsDetermined() throws {
    let centres: [Int: SIMD3<Double>] = [1: [-0.03, 0, 0.3], 2: [0.03, 0, 0.3], 3: [0, 0.03, 0.3], 4: [0, -0.03, 0.31]]
    // Corners lifted with a deterministic noise of about 0.2 mm.
    func noisy(_ m: LiftedMarker, _ f: Int) -> LiftedMarker {
      var m = m
      m.cameraCorners = m.cameraCorners.enumerated().map { k, c in
        c + 0.0002 * SIMD3(sin(Double(7 * f + k) * 1.3), sin(Double(5 * f + 3 * k) * 2.1), sin(Double(3 * f + 5 * k) * 0.7))
      }
      return m
    }
    func shift(_ f: Int) -> SIMD3<Double> { [0.004 * Double(f % 5), 0.003 * Double(f / 5), 0] }
    var frames = (0..<10).map { f in Self.observation(f, [1, 2, 3, 4].map { noisy(Self.lifted($0, at: centres[$0]!, shift: shift(f)), f) }) }
    for f in 10..<12 { frames.append(Self.observation(f, [noisy(Self.lifted(1, at: centres[1]!, shift: shift(f)), f)])) }
    var flipped = Self.lifted(2, at: centres[2]!, shift: shift(12))
    flipped.method = .pnp
    flipped.cameraCorners = flipped.cameraCorners.map { $0 + SIMD3(0, 0, 0.05) }
    frames.append(Self.observation(12, [flipped]))
    let registration = try keepMarkers(resectFrames(try optimiseMap(try chainFrames(ScanObservations(context: Self.context, frames: frames)))))
    let four = registration.frames[0..<10].compactMap(\.poseUncertainty)
    #expect(four.count == 10 && four.allSatisfy { $0 > 0 && $0 < 0.0005 })
    for f in 10..<12 {
      let frame = registration.frames[f]
      #expect(frame.worldFromCamera != nil, "frame \(f): \(String(describing: frame.rejection))")
      #expect((frame.poseUncertainty ?? 0) > 1.5 * (four.max() ?? 1), "frame \(f)")
    }
    #expect(registration.frames[12].rejection == .pixelsDoNotFit)
  }

  /// Frames that see only a marker no other frame shares it with are not linked; the chain
  /// starts in the largest group of markers seen together (markers 1, 2, 3), though marker 9,
  /// alone in its frames, is seen in more frames than any of them.
  @Test func theSeedIsInTheLargestGroupOfMarkersSeenTogether() throws {
    let centres: [Int: SIMD3<Double>] = [1: [-0.03, 0, 0.3], 2: [0.03, 0, 0.3], 3: [0, 0.03, 0.31], 9: [0, -0.03, 0.3]]
    var frames: [FrameObservation] = []
    for f in 0..<6 {  // markers 1, 2, 3 together
      let shift = SIMD3<Double>(0.003 * Double(f), -0.001 * Double(f), 0)
      frames.append(Self.observation(f, [1, 2, 3].map { Self.lifted($0, at: centres[$0]!, shift: shift) }))
    }
    for f in 6..<14 {  // marker 9 alone: seen in 8 frames, never with the others
      frames.append(Self.observation(f, [Self.lifted(9, at: centres[9]!, shift: [0.001 * Double(f), 0, 0])]))
    }
    let chain = try chainFrames(ScanObservations(context: Self.context, frames: frames))
    #expect(chain.seedMarkerID == 1)
    #expect(chain.framesPlaced == 6)
    #expect(chain.solution.map.ids == [1, 2, 3])
    // Optimised, resected and kept: the six frames are registered, the rest not linked.
    let registration = try keepMarkers(resectFrames(try optimiseMap(chain)))
    #expect(registration.framesRegistered == 6)
    #expect(registration.worldMarkerID == 1)
    #expect(registration.frames[6...].allSatisfy { $0.rejection == .notLinked })
  }

  /// The fusion grid spans at most 2047 voxels: a wider head region is a typed error naming the
  /// scan, the size and the limit; a non-positive voxel is refused.
  @Test func aHeadRegionWiderThanTheGridIsATypedError() throws {
    // Marker centres on a sphere of 0.3 m radius: 0.65 m across with the 25 mm margin.
    let centres = (0..<12).map { k -> SIMD3<Double> in
      let a = Double(k) * 2.4, e = 0.2 + 0.1 * Double(k % 4)
      return 0.3 * SIMD3(cos(e) * cos(a), cos(e) * sin(a), sin(e))
    }
    var options = FusionOptions.default
    options.voxelSize = 0.0002
    #expect {
      try FrameFusion(aroundMarkerCentres: centres, options: options, path: "wide.rgbdscan")
    } throws: { error in
      guard case ReconstructionError.voxelGridTooLarge(let path, let across, let voxel, let limit) = error else { return false }
      return path == "wide.rgbdscan" && abs(across - 0.65) < 1e-6 && voxel == 0.0002 && abs(limit - 0.4094) < 1e-9
        && String(describing: error).hasPrefix("wide.rgbdscan: the head region is 650 mm across, too wide for the fusion grid at 0.2 mm voxels (at most 409 mm)")
    }
    options.voxelSize = 0.001
    let fusion = try FrameFusion(aroundMarkerCentres: centres, options: options, path: "wide.rgbdscan")
    #expect(fusion.voxelCount == 0)
    #expect(abs(fusion.headCentre.x) < 1e-9 && abs(fusion.headCentre.z) < 1e-9)
    options.voxelSize = 0
    #expect(throws: ReconstructionError.self) { try FrameFusion(aroundMarkerCentres: centres, options: options, path: "x") }
  }

  /// Corners far outside the depth map have no depth (PnP alone may place them); corners too far
  /// to be pixels of any image lift to nothing. Neither traps on a window outside the map.
  @Test func liftingCornersOutsideTheImageDoesNotTrap() {
    let depth = DepthMap(width: 64, height: 48, metres: [Float](repeating: 0.3, count: 64 * 48), intrinsics: Self.colour.scaled(toWidth: 64, height: 48))
    let far = DetectedMarker(id: 0, corners: [[-500, -500], [-480, -500], [-480, -480], [-500, -480]])
    #expect(LiftedMarker(marker: far, depth: depth, colour: Self.colour, sideLength: 0.016)?.method != .depth)
    let huge = DetectedMarker(id: 0, corners: [[1e300, 0], [1e300, 10], [0, 10], [0, 0]])
    #expect(LiftedMarker(marker: huge, depth: depth, colour: Self.colour, sideLength: 0.016) == nil)
    #expect(edgeBlur(of: [huge], grey: [UInt8](repeating: 0, count: 640 * 480), width: 640, height: 480) == nil)
  }

  /// A PLY whose vertex count overflows the body size is no PLY (it used to trap on the multiplication).
  @Test func plyWithAnOverflowingVertexCountIsRejected() {
    let header = "ply\nformat binary_little_endian 1.0\nelement vertex 4611686018427387904\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
    #expect(PLYFormat.decode(Data(header.utf8) + Data(count: 12)) == nil)
    let negative = header.replacingOccurrences(of: "4611686018427387904", with: "-1")
    #expect(PLYFormat.decode(Data(negative.utf8)) == nil)
    let one = PointSet(positions: [SIMD3(1, 2, 3)])
    #expect(PLYFormat.decode(PLYFormat.encode(one)) == one)
  }
}
