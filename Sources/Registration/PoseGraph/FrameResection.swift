import ArucoBridge
import PointCloud
import ScanIO

/// The resection stage's result: frames with too little depth placed again from their stickers'
/// pixels against the optimised map, and the map's corners placed again from all their pixels.
public struct FrameResection: Sendable {
  /// The optimisation with the resected poses and the triangulated map; frames that could not be
  /// placed carry ``FrameRejection/tooLittleDepth(depthMarkers:)``.
  public var optimisation: MapOptimisation
  /// Frames placed by resection (positions, ascending).
  public var resectedFrames: [Int]
  /// Frames rejected for too little depth (positions, ascending).
  public var rejectedFrames: [Int]
  /// Whether the marker corners were triangulated from their pixels.
  public var markersTriangulated: Bool
}

/// The resection stage.
///
/// Frames with too little depth (fewer depth-lifted stickers than
/// ``ResectionOptions/minimumDepthMarkersForDepthPose``) were placed through PnP stickers, each a
/// 16 mm square whose pose is uncertain by degrees, or by two or so depth stickers close
/// together, which swing the camera 30 cm away by millimetres: they are placed again from all
/// their stickers' pixels against the optimised map at once, which spans far more of the image.
/// A frame without two depth stickers whose pixels do not fit the map is rejected rather than
/// kept uncertain. Then, with ``ResectionOptions/triangulateMarkers``, every marker corner is
/// placed where its pixels in all registered frames point (the frames' poses held).
public func resectFrames(_ optimisation: MapOptimisation, options: ResectionOptions = .default) -> FrameResection {
  var result = FrameResection(optimisation: optimisation, resectedFrames: [], rejectedFrames: [], markersTriangulated: false)
  var solution = optimisation.solution
  let colour = solution.context.colour
  for f in optimisation.optimisedFrames where solution.frames[f].rejection == nil && f != optimisation.fixedFrame {
    let mapped = solution.markers[f].filter { solution.map[$0.id] != nil }
    let depthLifted = mapped.filter { $0.method == .depth }.count
    guard depthLifted < options.minimumDepthMarkersForDepthPose, let pose = solution.mapFromCamera[f] else { continue }
    if mapped.count >= 2, let resected = resectCamera(mapped, map: solution.map, mapFromCamera: pose, colour: colour) {
      solution.mapFromCamera[f] = resected
      solution.frames[f].placedByResection = true
      result.resectedFrames.append(f)
    } else if depthLifted < 2 {
      solution.frames[f].rejection = .tooLittleDepth(depthMarkers: depthLifted)
      result.rejectedFrames.append(f)
    }
  }
  if options.triangulateMarkers {
    let placed = optimisation.optimisedFrames.filter { solution.frames[$0].rejection == nil }
    let views = placed.compactMap { f in solution.mapFromCamera[f].map { ($0, solution.markers[f]) } }
    solution.map = triangulateMarkers(solution.map, seenIn: views, colour: colour, workers: options.workers)
    result.markersTriangulated = true
  }
  result.optimisation.solution = solution
  return result
}

/// `mapFromCamera` from the pixels of `markers` against their mapped corners (camera
/// resection), refined from `mapFromCamera`. Where the pixels fit the map worse than 0.15 mm
/// at the stickers' distance (0.3 px at 30 cm and 640 px width), each marker in turn is left out
/// (a snapped corner or a poorly mapped sticker) and the best fit is kept. `nil` where no fit is
/// within that, or the pose would move implausibly far (over 2 cm or 5°: a wrong solution).
func resectCamera(
  _ markers: [LiftedMarker], map: MarkerMap, mapFromCamera: RigidTransform, colour: CameraIntrinsics
) -> RigidTransform? {
  let markers = markers.filter { map[$0.id] != nil }
  let guess = mapFromCamera.inverse
  func solve(_ subset: [LiftedMarker]) -> PnPPose? {
    try? PnPPose(
      objectPoints: subset.flatMap { map[$0.id] ?? [] }, imagePoints: subset.flatMap(\.pixelCorners), fx: colour.fx, fy: colour.fy,
      cx: colour.cx, cy: colour.cy, guess: (guess.rotation.rotationVector, guess.translation))
  }
  let depths = markers.flatMap { (map[$0.id] ?? []).map { guess.apply($0).z } }
  guard !depths.isEmpty else { return nil }
  let limit = 0.00015 * colour.fx / (depths.reduce(0, +) / Double(depths.count))
  var best = solve(markers)
  if (best?.reprojectionRMS ?? .infinity) > limit && markers.count >= 3 {
    best = markers.indices.compactMap { left in solve(markers.enumerated().filter { $0.offset != left }.map(\.element)) }
      .min { $0.reprojectionRMS < $1.reprojectionRMS }
  }
  guard let solution = best, solution.reprojectionRMS <= limit else { return nil }
  let resected = RigidTransform(rotation: Rotation3(rotationVector: solution.rotationVector), translation: solution.translation).inverse
  let (angle, distance) = resected.difference(to: mapFromCamera)
  return distance <= 0.02 && angle <= 5 * .pi / 180 ? resected : nil
}

/// Settings of the resection stage (``resectFrames(_:options:)``): placing cameras and marker
/// corners again from the detected pixels, against the optimised map.
public struct ResectionOptions: Sendable, Hashable {
  /// Frames with fewer depth-lifted markers than this (too close for depth: TrueDepth sees
  /// nothing nearer than ~20 cm; or two stickers close together, which leave the camera free to
  /// swing) are placed by resection: all their stickers' pixels against the optimised map at
  /// once. Those with fewer than two depth stickers whose pixels do not fit the map are rejected
  /// (``FrameRejection/tooLittleDepth(depthMarkers:)``). On simulated 240-frame scans this took
  /// the largest camera error (after the best alignment to the truth) from 3.1–4.1 mm to 0.6–1.8 mm.
  public var minimumDepthMarkersForDepthPose = 3
  /// Whether every marker corner is then placed again where its pixels in all registered frames
  /// point (triangulation with the frames' poses held). The lifted corners carry the depth
  /// map's error, which is not random where a sticker bends away.
  public var triangulateMarkers = true
  /// Worker threads the marker corners are triangulated on (`nil`: one a core this process may
  /// use). The result does not depend on it.
  public var workers: Int?

  /// The defaults.
  public static let `default` = ResectionOptions()

  public init() {}
}
