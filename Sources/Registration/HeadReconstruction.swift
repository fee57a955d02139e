import ArucoBridge
import Dispatch
import Foundation
import PointCloud
import ScanIO
import _HeadScanSupport

/// Settings of ``reconstructHead(_:options:progress:)``. Lengths in metres.
public struct ReconstructionOptions: Sendable, Hashable {
  /// Detector parameters (sub-pixel corners by default).
  public var detector = DetectorParameters.subpixel
  /// How corners are lifted to 3D.
  public var lifting = LiftingOptions()
  /// Frames with fewer usable markers are rejected.
  public var minimumMarkersPerFrame = 2
  /// Frames whose marker outlines are blurred more than this (``edgeBlur(of:grey:width:height:)``,
  /// σ in pixels) are rejected as motion-blurred: their corners are off by a good part of a
  /// pixel, along the motion. Sharp frames measure 0.7–1.1 px.
  public var maximumEdgeBlur = 1.6
  /// Frames with fewer depth-lifted markers than this (too close for depth: TrueDepth sees
  /// nothing nearer than ~20 cm; or two stickers close together, which leave the camera free to
  /// swing) are placed, after the optimisation, by resection: all their stickers' pixels against
  /// the optimised map at once. Those with fewer than two depth stickers whose pixels do not fit
  /// the map are rejected (``FrameRejection/tooLittleDepth(depthMarkers:)``). On simulated
  /// 240-frame scans this took the largest camera error (after the best alignment to the truth)
  /// from 3.1–4.1 mm to 0.6–1.8 mm.
  public var minimumDepthMarkersForDepthPose = 3
  /// Frames whose corner RMS after optimisation exceeds this are rejected, metres.
  public var maximumFrameRMS = 0.003
  /// Huber threshold of the robust loss, metres.
  public var huberThreshold = 0.0005
  /// Levenberg–Marquardt iterations at most.
  public var iterations = 40
  /// Whether to fuse the depth into a cloud (pass 2).
  public var fuse = true
  /// Frames fused need at least this many depth-lifted markers: a pose held by two stickers
  /// is the least certain, and its depth blurs the surface (on simulated 240-frame scans the
  /// vault's RMS error went from 0.17 to 0.11 mm). Where fewer than a quarter of the registered
  /// frames qualify, all registered frames are fused.
  public var minimumMarkersToFuse = 3
  /// Voxel size of the fused cloud, metres.
  public var voxelSize = 0.001
  /// Depth kept beyond the sphere through the markers, metres (the cap's head region).
  public var headMargin = 0.025
  /// Neighbours for outlier removal and the local-plane smoothing.
  public var neighbours = 20
  /// …and its four mapped corners must form the printed square: no edge more than this
  /// from the side and no diagonal more than this from side·√2, at 640 px width, metres.
  /// (A sticker bent over a 60 mm radius shortens its diagonal by under 0.05 mm; a corner
  /// the detector misplaced in many frames shows here and nowhere else.)
  public var maximumMarkerShapeError = 0.0004
  /// Whether each frame is aligned by ICP to the model fused so far before it is fused, where
  /// that lowers its distance to the model (off by default: marker poses are already finer
  /// than the depth noise, so it seldom helps, and it costs about a third of a second a frame).
  public var icpRefinement = false
  /// Whether, after fusion, the markers' corners are moved along the surface normal onto the
  /// fused surface (and the world re-defined from the world marker's settled corners).
  /// One frame's depth at a sticker's corners is noisy and, seen at a grazing angle, biased;
  /// the fused surface averages hundreds of frames, so the settled corners give the stickers'
  /// (and so the world's) orientation several times more accurately.
  public var settleMarkersOnSurface = true
  /// Cloud points in the plane each marker corner is settled on (about 5 mm around it at
  /// 1 mm voxels). Twenty left the stickers tilted by up to 0.3° by the fused surface's local
  /// waviness; a hundred average it over most of the sticker, and the plane's offset under
  /// a convex surface is nearly the same at the four corners, so it does not tilt them.
  public var settlingNeighbours = 100
  /// Whether detected corners are moved to where the markers' outer border edges, fitted
  /// along their whole length, meet (`DetectedMarker.refinedAlongEdges(in:cellsAcross:span:)`).
  /// `cornerSubPix` alone leaves each corner pulled by its marker's bits, the same in every
  /// view, by 0.1–0.25 px.
  public var refineCornersAlongEdges = true
  /// Whether, after the depth-based fit, every marker corner is placed again where its pixels
  /// in all registered frames point (triangulation with the frames' poses held). The lifted
  /// corners carry the depth map's error, which is not random where a sticker bends away.
  public var triangulateMarkers = true
  /// A marker is kept in the map (and may define the world) only with this many observations
  /// (or a quarter of the registered frames on short scans, at least 3)…
  public var minimumMarkerObservations = 10
  /// …and a corner RMS no larger than this at 640 px width (scaled with the image), metres.
  /// Markers that miss either still link frames; they are just not reported, nor the world.
  public var maximumMarkerRMS = 0.00025

  /// The defaults.
  public static let `default` = ReconstructionOptions()

  public init() {}
}

/// Why a frame got no pose.
public enum FrameRejection: Sendable, Hashable, CustomStringConvertible {
  /// No cap marker detected.
  case noMarkers
  /// Fewer usable markers than ``ReconstructionOptions/minimumMarkersPerFrame``.
  case tooFewMarkers(Int)
  /// Its markers never connect to the others.
  case notLinked
  /// Its markers' outlines are smeared (the phone moved during exposure), σ in pixels.
  case motionBlur(pixels: Double)
  /// Its corners do not fit the marker map (a bad detection), RMS in mm.
  case largeResidual(millimetres: Double)
  /// Too close for depth (fewer than two stickers lifted by depth), and its stickers' pixels do
  /// not place it against the map either (no resection within 0.15 mm at the stickers'
  /// distance): its pose would be uncertain by millimetres.
  case tooLittleDepth(depthMarkers: Int)

  /// The kind of rejection without its value, for grouping in summaries.
  public var kind: String {
    switch self {
    case .noMarkers: return "no markers"
    case .tooFewMarkers: return "too few usable markers"
    case .notLinked: return "not linked to the other frames"
    case .motionBlur: return "motion blur"
    case .largeResidual: return "corner residual above the limit"
    case .tooLittleDepth: return "too little depth to place it"
    }
  }

  public var description: String {
    switch self {
    case .noMarkers: return "no markers"
    case .tooFewMarkers(let n): return "only \(n) usable marker\(n == 1 ? "" : "s")"
    case .notLinked: return "not linked to the other frames"
    case .motionBlur(let px): return String(format: "motion blur (edges σ %.1f px)", px)
    case .largeResidual(let mm): return String(format: "corner residual %.1f mm", mm)
    case .tooLittleDepth(let n):
      return "too little depth (\(n) sticker\(n == 1 ? "" : "s") lifted by depth) and its stickers' pixels do not fit the map"
    }
  }
}

/// What happened to one frame.
public struct FrameDiagnostics: Sendable, Hashable {
  public var index: Int
  public var timestamp: Double
  /// Ids detected (cap ids only).
  public var detectedIDs: [Int]
  /// Markers lifted to 3D: by depth and by PnP.
  public var liftedByDepth: Int
  public var liftedByPnP: Int
  /// Whether ICP against the fused model moved this frame (``ReconstructionOptions/icpRefinement``).
  public var refinedByICP = false
  /// Whether the frame was placed by resection from its stickers' pixels against the map
  /// (too little depth: ``ReconstructionOptions/minimumDepthMarkersForDepthPose``).
  public var placedByResection = false
  /// Ids detected in this frame whose lifted corners lie more than 1 cm from where the frame's
  /// other markers put them: a misread id (a sticker read as another one's) or a sticker lifted
  /// wrongly. Left out of the registration.
  public var outlierIDs: [Int] = []
  /// Blur across the markers' outlines, σ in pixels (``edgeBlur(of:grey:width:height:)``).
  public var edgeBlur: Double?
  /// `worldFromCamera`, metres; `nil` when rejected.
  public var worldFromCamera: RigidTransform?
  /// RMS corner residual after optimisation, metres.
  public var rms: Double?
  /// Why the frame got no pose; `nil` when registered.
  public var rejection: FrameRejection?
}

/// A marker of the registered map (world frame, metres).
public struct RegisteredMarker: Sendable, Hashable {
  public var id: Int
  /// Contract §5 pose from the four optimised corners.
  public var worldFromMarker: RigidTransform
  /// The optimised corners, OpenCV order.
  public var corners: [SIMD3<Double>]
  /// Kept observations.
  public var observations: Int
  /// RMS corner residual of its observations, metres.
  public var rms: Double
}

/// Wall-clock seconds spent in each stage of ``reconstructHead(_:options:progress:)``.
public struct ReconstructionTimings: Sendable, Hashable {
  /// Pass 1: reading every frame, detecting markers, lifting them to 3D.
  public var detection = 0.0
  /// Chaining frames through markers and the global optimisation.
  public var registration = 0.0
  /// Pass 2: reading the registered frames again, back-projecting and averaging per voxel (with ICP if asked).
  public var fusion = 0.0
  /// Statistical outlier removal and smoothing onto local planes (normals).
  public var cleaning = 0.0
  /// Settling the markers onto the surface and re-expressing the world.
  public var settling = 0.0

  public init() {}

  /// All stages.
  public var total: Double { detection + registration + fusion + cleaning + settling }

  /// Seconds since `start` on the monotonic clock.
  public static func since(_ start: ContinuousClock.Instant) -> Double {
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
  }
}

/// The result of registration and fusion.
public struct HeadReconstruction: Sendable {
  /// One entry per frame read.
  public var frames: [FrameDiagnostics]
  /// The marker map, sorted by id.
  public var markers: [RegisteredMarker]
  /// The marker whose frame is the world (contract §5: the lowest registered id).
  public var worldMarkerID: Int
  /// RMS over all kept observations of the 3D corner residual, metres.
  public var cornerRMS: Double
  /// Distinct cap ids detected anywhere.
  public var markersDetected: [Int]
  /// Detections dropped because their id is not on the cap (false positives).
  public var offCapDetections: Int
  /// The fused head: positions (world, metres), outward normals, colours.
  public var cloud: PointSet
  /// Where the time went.
  public var timings = ReconstructionTimings()

  /// Frames given a pose.
  public var framesRegistered: Int { frames.filter { $0.worldFromCamera != nil }.count }
}

/// Why a scan could not be registered.
public enum ReconstructionError: Error, Sendable, CustomStringConvertible {
  case noMarkers(path: String)
  case noDepth(path: String)
  case notEnoughFrames(path: String, registered: Int, reasons: String)
  case noWellSeenMarker(path: String, best: String)
  case numerical(path: String, detail: String)

  public var description: String {
    switch self {
    case .noMarkers(let path): return "\(path): no cap markers detected in any frame (wrong dictionary, or no cap?)"
    case .noDepth(let path): return "\(path): no frame has any valid depth (every depth sample is NaN or zero)"
    case .notEnoughFrames(let path, let registered, let reasons):
      return "\(path): only \(registered) frames could be registered (\(reasons))"
    case .numerical(let path, let detail): return "\(path): registration failed: \(detail)"
    case .noWellSeenMarker(let path, let best):
      return "\(path): no marker is seen often and consistently enough to define the world frame (best: \(best))"
    }
  }
}

/// The stages reported to a progress callback.
public enum ReconstructionStage: String, Sendable {
  case detecting, optimising, fusing
}

/// Registers a scan's frames through its cap markers and fuses them into one cloud.
///
/// Pass 1 reads frames in parallel batches, detects markers and lifts them to 3D;
/// frames are chained through shared markers and all poses and marker corners
/// are optimised together (robust Huber loss). Pass 2 reads the registered frames
/// again and fuses their depth inside the head region into a voxel grid, then
/// removes outliers and projects points onto local planes (with normals).
/// Memory grows with the number of markers and the kept cloud, not the scan.
/// - Throws: ``ReconstructionError``, ``ScanIOError`` or ``ArucoError``.
public func reconstructHead(
  _ scan: any ScanReader, options: ReconstructionOptions = .default,
  progress: ((ReconstructionStage, Int, Int) -> Void)? = nil
) throws -> HeadReconstruction {
  guard scan.frameCount > 0 else { throw ScanIOError.noFrames(path: scan.path) }
  let detector = try MarkerDetector(dictionary: scan.header.markers.dictionary, parameters: options.detector)
  let side = scan.header.markers.sideLength
  let capCount = scan.header.capMarkerCount

  // Pass 1: detect and lift.
  var timings = ReconstructionTimings()
  var started = ContinuousClock.now
  var lifted: [[LiftedMarker]] = []
  var diagnostics: [FrameDiagnostics] = []
  var offCap = 0, framesWithDepth = 0
  try forEachInParallelBatches(
    Array(0..<scan.frameCount),
    work: { index in
      try observeFrame(try scan.frame(at: index), detector: detector, capMarkerCount: capCount, sideLength: side, options: options)
    },
    consume: { observation in
      diagnostics.append(observation.diagnostics)
      lifted.append(observation.lifted)
      offCap += observation.offCapDetections
      if observation.hasDepth { framesWithDepth += 1 }
    },
    progress: { done, total in progress?(.detecting, done, total) })
  let detectedIDs = Set(lifted.flatMap { $0.map(\.id) }).union(diagnostics.flatMap(\.detectedIDs)).sorted()
  guard framesWithDepth > 0 else { throw ReconstructionError.noDepth(path: scan.path) }
  guard !detectedIDs.isEmpty else { throw ReconstructionError.noMarkers(path: scan.path) }

  timings.detection = ReconstructionTimings.since(started)

  // Chain and optimise.
  started = ContinuousClock.now
  progress?(.optimising, 0, 1)
  var solution = try registerFrames(
    lifted, diagnostics: &diagnostics, options: options, path: scan.path, colour: scan.header.colorIntrinsics, sideLength: side)
  progress?(.optimising, 1, 1)
  timings.registration = ReconstructionTimings.since(started)

  // Pass 2: fuse.
  var cloud = PointSet()
  if options.fuse {
    let fusion = try fuseDepth(scan, solution: solution, diagnostics: diagnostics, options: options, timings: &timings) { done, total in
      progress?(.fusing, done, total)
    }
    cloud = fusion.cloud
    for (index, pose) in fusion.refined {
      diagnostics[index].worldFromCamera = pose
      diagnostics[index].refinedByICP = true
    }
  }
  started = ContinuousClock.now
  if options.settleMarkersOnSurface && cloud.count > options.settlingNeighbours {
    try settleMarkers(on: cloud, solution: &solution, diagnostics: &diagnostics, neighbours: options.settlingNeighbours, path: scan.path)
    cloud = solution.cloud
  } else {
    solution.cloud = cloud
  }
  timings.settling = ReconstructionTimings.since(started)
  return HeadReconstruction(
    frames: diagnostics, markers: solution.markers, worldMarkerID: solution.worldMarkerID, cornerRMS: solution.cornerRMS,
    markersDetected: detectedIDs, offCapDetections: offCap, cloud: cloud, timings: timings)
}

/// Moves every marker's corners onto the fused surface along its local normal, then re-expresses
/// poses, markers and cloud in the contract §5 frame of the world marker's settled corners.
func settleMarkers(
  on cloud: PointSet, solution: inout RegistrationSolution, diagnostics: inout [FrameDiagnostics], neighbours: Int, path: String
) throws {
  let corners = solution.markers.flatMap(\.corners).map { SIMD3<Float>($0) }
  let settled: [SIMD3<Float>]
  do {
    settled = try NativeGeometry.projectToLocalPlanes(cloud.positions, queries: corners, neighbours: neighbours).0
  } catch {
    throw ReconstructionError.numerical(path: path, detail: error.description)
  }
  var markers = solution.markers
  for i in markers.indices {
    markers[i].corners = (0..<4).map { SIMD3<Double>(settled[4 * i + $0]) }
  }
  guard let world = markers.first(where: { $0.id == solution.worldMarkerID }) else { return }
  let newFromOld = RigidTransform(squareCorners: world.corners).inverse
  for i in markers.indices {
    markers[i].corners = markers[i].corners.map(newFromOld.apply)
    markers[i].worldFromMarker = RigidTransform(squareCorners: markers[i].corners)
  }
  for f in diagnostics.indices {
    diagnostics[f].worldFromCamera = diagnostics[f].worldFromCamera.map { newFromOld * $0 }
  }
  solution.markers = markers
  solution.cloud = cloud.transformed(by: newFromOld)
}

/// Largest deviation of a mapped sticker from the printed square: edges against `side`,
/// diagonals against `side`·√2 (same unit).
func squareShapeError(_ corners: [SIMD3<Double>], side: Double) -> Double {
  func length(_ a: Int, _ b: Int) -> Double { ((corners[a] - corners[b]) * (corners[a] - corners[b])).sum().squareRoot() }
  let edges = (0..<4).map { abs(length($0, ($0 + 1) % 4) - side) }
  let diagonals = [abs(length(0, 2) - side * 2.squareRoot()), abs(length(1, 3) - side * 2.squareRoot())]
  return (edges + diagonals).max()!
}

/// `worldFromCamera` from the pixels of `markers` against their mapped world corners (camera
/// resection), refined from `worldFromCamera`. Where the pixels fit the map worse than 0.15 mm
/// at the stickers' distance (0.3 px at 30 cm and 640 px width), each marker in turn is left out
/// (a snapped corner or a poorly mapped sticker) and the best fit is kept. `nil` where no fit is
/// within that, or the pose would move implausibly far (over 2 cm or 5°: a wrong solution).
func resectCamera(
  _ markers: [LiftedMarker], map: [Int: [SIMD3<Double>]], worldFromCamera: RigidTransform, colour: CameraIntrinsics
) -> RigidTransform? {
  let guess = worldFromCamera.inverse
  func solve(_ subset: [LiftedMarker]) -> PnPPose? {
    try? PnPPose(
      objectPoints: subset.flatMap { map[$0.id]! }, imagePoints: subset.flatMap(\.pixelCorners), fx: colour.fx, fy: colour.fy,
      cx: colour.cx, cy: colour.cy, guess: (guess.rotation.rotationVector, guess.translation))
  }
  let depths = markers.flatMap { map[$0.id]!.map { guess.apply($0).z } }
  let limit = 0.00015 * colour.fx / (depths.reduce(0, +) / Double(depths.count))
  var best = solve(markers)
  if (best?.reprojectionRMS ?? .infinity) > limit && markers.count >= 3 {
    best = markers.indices.compactMap { left in solve(markers.enumerated().filter { $0.offset != left }.map(\.element)) }
      .min { $0.reprojectionRMS < $1.reprojectionRMS }
  }
  guard let solution = best, solution.reprojectionRMS <= limit else { return nil }
  let resected = RigidTransform(rotation: Rotation3(rotationVector: solution.rotationVector), translation: solution.translation).inverse
  let (angle, distance) = resected.difference(to: worldFromCamera)
  return distance <= 0.02 && angle <= 5 * .pi / 180 ? resected : nil
}

/// The registration part of the result.
struct RegistrationSolution {
  var markers: [RegisteredMarker]
  var worldMarkerID: Int
  var cornerRMS: Double
  /// Centres of every mapped marker, kept or not (world, metres): where the head is.
  var mappedCentres: [SIMD3<Double>] = []
  var cloud = PointSet()
}

/// Chains frames through shared markers, optimises, rejects misfits and re-expresses in the contract world.
func registerFrames(
  _ lifted: [[LiftedMarker]], diagnostics: inout [FrameDiagnostics], options: ReconstructionOptions, path: String,
  colour: CameraIntrinsics, sideLength: Double
) throws -> RegistrationSolution {
  // Markers seen in at least two frames can be checked; the rest are dropped.
  var seen: [Int: Int] = [:]
  for frame in lifted { for m in frame { seen[m.id, default: 0] += 1 } }
  var usable = lifted.map { $0.filter { seen[$0.id, default: 0] >= 2 } }
  for f in usable.indices {
    if diagnostics[f].detectedIDs.isEmpty {
      diagnostics[f].rejection = .noMarkers
    } else if let blur = diagnostics[f].edgeBlur, blur > options.maximumEdgeBlur {
      diagnostics[f].rejection = .motionBlur(pixels: blur)
      usable[f] = []
    } else if usable[f].count < options.minimumMarkersPerFrame {
      diagnostics[f].rejection = .tooFewMarkers(usable[f].count)
      usable[f] = []
    }
  }
  guard let seed = seen.filter({ $0.value >= 2 }).max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) })?.key else {
    throw ReconstructionError.notEnoughFrames(path: path, registered: 0, reasons: "no marker is seen in two frames")
  }

  // Initialise: the seed marker's corners from its best depth observation, in its own frame.
  var world: [Int: [SIMD3<Double>]] = [:]
  let best = usable.flatMap { $0 }.filter { $0.id == seed }.min { ($0.method == .depth ? 0 : 1, $0.residual) < ($1.method == .depth ? 0 : 1, $1.residual) }!
  world[seed] = best.cameraCorners.map(best.cameraFromMarker.inverse.apply)
  // Chain: place frames through markers already mapped, strongest links first. A marker joins
  // the map only when two placed frames agree on where it is (within 1 cm RMS at 640 px width):
  // one frame's view can be a misread id (DICT_4X4_50 reads a sticker seen at a grazing angle
  // as another id now and then; it then lies where another sticker is, 3 cm or more away), and
  // a misplaced marker would misplace every frame chained through it. A mapped marker that lies
  // farther than that from where a frame's other markers put it is a misread in that frame,
  // and that observation is dropped.
  let consistency = 0.01 * max(1, 640 / Double(max(1, colour.width)))
  var poses: [Int: RigidTransform] = [:]
  var pending: [Int: [[SIMD3<Double>]]] = [:]
  func rms(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> Double {
    (zip(a, b).map { ($0 - $1).dot($0 - $1) }.reduce(0, +) / Double(a.count)).squareRoot()
  }
  var progressed = true
  while progressed {
    progressed = false
    let candidates = usable.indices.filter { poses[$0] == nil && !usable[$0].isEmpty }
      .map { f in (f, usable[f].filter { world[$0.id] != nil }.count) }
      .filter { $0.1 > 0 }
      .sorted { ($0.1, -$0.0) > ($1.1, -$1.0) }
    for (f, _) in candidates {
      var known = usable[f].filter { world[$0.id] != nil }
      var placed: (RigidTransform, Double)?
      while !known.isEmpty {
        guard let fit = try? NativeGeometry.rigidFit(from: known.flatMap(\.cameraCorners), to: known.flatMap { world[$0.id]! })
        else { break }
        let misfits = known.map { rms($0.cameraCorners.map(fit.0.apply), world[$0.id]!) }
        let worst = misfits.indices.max { misfits[$0] < misfits[$1] }!
        if misfits[worst] <= consistency {
          placed = fit
          break
        }
        // Which marker is wrong can only be told with three or more.
        guard known.count >= 3 else { break }
        let misread = known.remove(at: worst)
        usable[f].removeAll { $0.id == misread.id }
        diagnostics[f].outlierIDs.append(misread.id)
      }
      guard let (pose, fitRMS) = placed, fitRMS <= 3 * options.maximumFrameRMS else { continue }
      poses[f] = pose
      for m in usable[f] where world[m.id] == nil {
        let corners = m.cameraCorners.map(pose.apply)
        if let agreeing = pending[m.id, default: []].first(where: { rms($0, corners) <= consistency }) {
          world[m.id] = zip(agreeing, corners).map { ($0 + $1) / 2 }
        } else {
          pending[m.id, default: []].append(corners)
        }
      }
      progressed = true
    }
  }
  // Observations that disagree with the map by more than that in a placed frame are dropped
  // too (misread, or lifted wrongly).
  for (f, pose) in poses {
    func isOutlier(_ m: LiftedMarker) -> Bool { world[m.id].map { rms(m.cameraCorners.map(pose.apply), $0) > consistency } ?? false }
    diagnostics[f].outlierIDs += usable[f].filter(isOutlier).map(\.id)
    usable[f].removeAll(where: isOutlier)
  }

  // Optimise, reject frames that do not fit, and optimise again.
  var rejectedByResidual: [Int: Double] = [:]
  var graph = PoseGraph(frames: [], markerCorners: [], observations: [], fixedFrame: 0)
  var frameOf: [Int] = [], markerOf: [Int] = []
  for _ in 0..<3 {
    frameOf = poses.keys.filter { rejectedByResidual[$0] == nil }.sorted()
    var counts: [Int: Int] = [:]
    for f in frameOf { for m in usable[f] where world[m.id] != nil { counts[m.id, default: 0] += 1 } }
    markerOf = counts.filter { $0.value >= 1 }.keys.sorted()
    let frameIndex = Dictionary(uniqueKeysWithValues: frameOf.enumerated().map { ($1, $0) })
    let markerIndex = Dictionary(uniqueKeysWithValues: markerOf.enumerated().map { ($1, $0) })
    var observations: [PoseGraph.Observation] = []
    for f in frameOf {
      // PnP places a sticker's depth only to a few per cent (and a curved sticker is not the
      // flat square PnP assumes): where depth lifted two or more stickers, they alone place
      // the frame; PnP stickers place only frames that have too little depth.
      let depthLifted = usable[f].filter { $0.method == .depth && markerIndex[$0.id] != nil }.count
      for m in usable[f] where markerIndex[m.id] != nil && (m.method == .depth || depthLifted < 2) {
        // Squarely seen, square-looking observations count most: a snapped corner shows as a poor square fit.
        let shape = 1 / (1 + (m.residual / 0.0002) * (m.residual / 0.0002))
        observations.append(.init(frame: frameIndex[f]!, marker: markerIndex[m.id]!, corners: m.cameraCorners, weight: (m.method == .depth ? 1 : 0.05) * m.facing * m.facing * shape))
      }
    }
    let fixed = frameIndex[frameOf.first { f in usable[f].contains { $0.id == seed } } ?? frameOf[0]]!
    graph = PoseGraph(
      frames: frameOf.map { poses[$0]! }, markerCorners: markerOf.map { world[$0]! }, observations: observations, fixedFrame: fixed)
    do {
      try graph.optimise(iterations: options.iterations, delta: options.huberThreshold)
    } catch {
      throw ReconstructionError.numerical(path: path, detail: String(describing: error))
    }
    for (i, f) in frameOf.enumerated() { poses[f] = graph.frames[i] }
    for (i, id) in markerOf.enumerated() { world[id] = graph.markerCorners[i] }
    // Frame RMS over its observations.
    let residuals = graph.residuals()
    var newlyRejected = false
    for (i, f) in frameOf.enumerated() {
      let errors = zip(graph.observations, residuals).filter { $0.0.frame == i }.flatMap { $0.1.map { ($0 * $0).sum() } }
      let rms = (errors.reduce(0, +) / Double(max(1, errors.count))).squareRoot()
      diagnostics[f].rms = rms
      if rms > options.maximumFrameRMS && i != graph.fixedFrame {
        rejectedByResidual[f] = rms
        newlyRejected = true
      }
    }
    if !newlyRejected { break }
  }

  // Frames with too little depth were placed through PnP stickers, each a 16 mm square whose
  // pose is uncertain by degrees, or by two or so depth stickers close together, which swing the
  // camera 30 cm away by millimetres: place them again from all their stickers' pixels against the
  // optimised map at once (resection), which spans far more of the image. A frame without two
  // depth stickers whose pixels do not fit the map is rejected rather than kept uncertain.
  var rejectedForDepth: [Int: Int] = [:]
  for f in frameOf where rejectedByResidual[f] == nil && f != frameOf[graph.fixedFrame] {
    let mapped = usable[f].filter { world[$0.id] != nil }
    let depthLifted = mapped.filter { $0.method == .depth }.count
    guard depthLifted < options.minimumDepthMarkersForDepthPose else { continue }
    if mapped.count >= 2, let resected = resectCamera(mapped, map: world, worldFromCamera: poses[f]!, colour: colour) {
      poses[f] = resected
      diagnostics[f].placedByResection = true
    } else if depthLifted < 2 {
      rejectedForDepth[f] = depthLifted
    }
  }

  if options.triangulateMarkers {
    let placed = frameOf.filter { rejectedByResidual[$0] == nil && rejectedForDepth[$0] == nil }
    world = triangulateMarkers(world, seenIn: placed.map { (poses[$0]!, usable[$0]) }, colour: colour)
  }

  // Verdicts.
  for f in diagnostics.indices where diagnostics[f].rejection == nil {
    if let rms = rejectedByResidual[f] {
      diagnostics[f].rejection = .largeResidual(millimetres: rms * 1000)
    } else if let depthLifted = rejectedForDepth[f] {
      diagnostics[f].rejection = .tooLittleDepth(depthMarkers: depthLifted)
    } else if poses[f] == nil || !frameOf.contains(f) {
      diagnostics[f].rejection = usable[f].isEmpty ? .tooFewMarkers(usable[f].count) : .notLinked
    }
  }
  guard frameOf.count >= 2 else {
    let reasons = Dictionary(grouping: diagnostics.compactMap(\.rejection?.description), by: { $0 })
      .map { "\($0.value.count) × \($0.key)" }.sorted().joined(separator: ", ")
    throw ReconstructionError.notEnoughFrames(path: path, registered: frameOf.count, reasons: reasons)
  }

  // Keep well-determined markers; the contract §5 world is the lowest kept id's own frame.
  let residuals = graph.residuals()
  var perMarker: [Int: [Double]] = [:]
  for (o, r) in zip(graph.observations, residuals) { perMarker[o.marker, default: []] += r.map { ($0 * $0).sum() } }
  let widthScale = 640 / Double(max(1, colour.width))
  let rmsLimit = options.maximumMarkerRMS * max(1, widthScale)
  let keptFrames = frameOf.filter { rejectedByResidual[$0] == nil && rejectedForDepth[$0] == nil }
  let registeredFrames = keptFrames.count
  let observationLimit = min(options.minimumMarkerObservations, max(3, registeredFrames / 4))
  let shapeLimit = options.maximumMarkerShapeError * max(1, widthScale)
  let stats = markerOf.enumerated().compactMap { i, id -> (index: Int, id: Int, observations: Int, rms: Double, shape: Double)? in
    guard let squares = perMarker[i] else { return nil }
    return (i, id, squares.count / 4, (squares.reduce(0, +) / Double(squares.count)).squareRoot(),
            squareShapeError(world[id]!, side: sideLength))
  }
  let kept = stats.filter { $0.observations >= observationLimit && $0.rms <= rmsLimit && $0.shape <= shapeLimit }
    .map { ($0.index, $0.id) }
  guard let worldID = kept.map(\.1).min() else {
    let best = stats.max { $0.observations < $1.observations }.map {
      String(
        format: "marker %d, %d observations, RMS %.2f mm, shape error %.2f mm; needs %d, %.2f mm and %.2f mm",
        $0.id, $0.observations, $0.rms * 1000, $0.shape * 1000, observationLimit, rmsLimit * 1000, shapeLimit * 1000)
    } ?? "none"
    throw ReconstructionError.noWellSeenMarker(path: path, best: best)
  }
  let worldFromOld = RigidTransform(squareCorners: world[worldID]!).inverse
  for f in keptFrames { diagnostics[f].worldFromCamera = worldFromOld * poses[f]! }
  let markers = kept.map { (i, id) -> RegisteredMarker in
    let squares = perMarker[i]!
    let corners = world[id]!.map(worldFromOld.apply)
    return RegisteredMarker(
      id: id, worldFromMarker: RigidTransform(squareCorners: corners), corners: corners, observations: squares.count / 4,
      rms: (squares.reduce(0, +) / Double(squares.count)).squareRoot())
  }
  // Contract §6: RMS over the kept observations (those of kept markers in kept frames).
  let keptIndices = Set(kept.map(\.0))
  let all = zip(graph.observations, residuals).filter { keptIndices.contains($0.0.marker) }.flatMap { $0.1.map { ($0 * $0).sum() } }
  return RegistrationSolution(
    markers: markers, worldMarkerID: worldID, cornerRMS: (all.reduce(0, +) / Double(all.count)).squareRoot(),
    mappedCentres: markerOf.map { id in worldFromOld.apply(world[id]!.reduce(.zero, +) / 4) })
}
