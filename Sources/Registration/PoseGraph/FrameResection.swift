import ArucoBridge
import PointCloud
import ScanIO
import _HeadScanSupport

/// The resection stage's result: frames with too little depth placed again from their stickers'
/// pixels against the optimised map, every placed frame's pose judged by how well it is
/// determined, and the map's corners placed again from all their pixels.
public struct FrameResection: Sendable {
  /// The optimisation with the resected poses and the triangulated map; frames whose pose is
  /// not determined carry ``FrameRejection/poseNotDetermined(millimetres:limit:)``, every other
  /// placed frame its ``FrameDiagnostics/poseUncertainty``.
  public var optimisation: MapOptimisation
  /// Frames placed by resection (positions, ascending).
  public var resectedFrames: [Int]
  /// Frames rejected because their pose is not determined, or rests on PnP stickers whose
  /// pixels do not fit the map (positions, ascending).
  public var rejectedFrames: [Int]
  /// Whether the marker corners were triangulated from their pixels.
  public var markersTriangulated: Bool
}

/// The resection stage.
///
/// Frames with too little depth (fewer depth-lifted stickers than
/// ``ResectionOptions/minimumDepthMarkersForDepthPose``) were placed through PnP stickers, each a
/// 16 mm square whose pose is uncertain by degrees, or by a few depth stickers close together,
/// which swing the camera 30 cm away by millimetres: they are placed again from all their
/// stickers' pixels against the optimised map at once, which spans far more of the image, and
/// the resected pose replaces the depth pose where it is the better determined of the two.
///
/// A frame none of whose mapped stickers was lifted by depth is held only by PnP squares, whose
/// tilt can flip and place it centimetres astray with small residuals: it keeps a pose only by
/// its pixels' resection, and is rejected as ``FrameRejection/pixelsDoNotFit`` where they do not
/// fit the map.
///
/// Every placed frame then gets its ``FrameDiagnostics/poseUncertainty``: the standard
/// deviation of where its pose puts the centre of the marker map, from the fit that placed it
/// (its corners' residuals by depth, weighted as the optimisation weights them, or its pixels'
/// by resection; the noise the frame's own residual per degree of freedom, never less than the
/// scan's median frame's). No count of stickers decides: a frame is kept when the 95 % sphere of
/// that point, 2.80 standard deviations, is within the scan's outlier distance
/// (``ScanNoise/outlierDistance``, at most a printed side: how far a detection may misfit before
/// it is taken as wrong), and rejected as ``FrameRejection/poseNotDetermined(millimetres:limit:)``
/// when not. The frame the optimisation held fixed is judged like the rest: it only fixed the map's
/// coordinates, which its rejection leaves as they are. Then, with
/// ``ResectionOptions/triangulateMarkers``, every marker corner is placed where its pixels in
/// all registered frames point (the frames' poses held).
public func resectFrames(_ optimisation: MapOptimisation, options: ResectionOptions = .default) -> FrameResection {
  var result = FrameResection(optimisation: optimisation, resectedFrames: [], rejectedFrames: [], markersTriangulated: false)
  var solution = optimisation.solution
  let colour = solution.context.colour
  let frames = optimisation.optimisedFrames.filter { solution.frames[$0].rejection == nil && solution.mapFromCamera[$0] != nil }
  let mappedCorners = solution.map.ids.flatMap { solution.map[$0] ?? [] }
  let centre = mappedCorners.reduce(SIMD3<Double>.zero, +) / Double(max(1, mappedCorners.count))
  // How well depth determines each frame's pose.
  var depthFits: [Int: PoseUncertainty] = [:]
  for f in frames {
    guard let pose = solution.mapFromCamera[f] else { continue }
    var fit = PoseUncertainty()
    for (m, weight) in poseHolders(solution.markers[f], isMapped: { solution.map[$0] != nil }) {
      guard let mapped = solution.map[m.id] else { continue }
      for (corner, target) in zip(m.cameraCorners, mapped) {
        let placed = pose.apply(corner)
        fit.addCorner(at: placed, residual: placed - target, weight: weight, centre: centre)
      }
    }
    depthFits[f] = fit
  }
  // Frames with too little depth placed from their stickers' pixels.
  var pixelFits: [Int: (pose: RigidTransform, fit: PoseUncertainty)] = [:]
  for f in frames {
    let mapped = solution.markers[f].filter { solution.map[$0.id] != nil }
    let depthLifted = mapped.filter { $0.method == .depth }.count
    guard depthLifted < options.minimumDepthMarkersForDepthPose, let pose = solution.mapFromCamera[f],
      let resection = resectCamera(mapped, map: solution.map, mapFromCamera: pose, colour: colour)
    else { continue }
    let cameraFromMap = resection.pose.inverse
    let inCamera = cameraFromMap.apply(centre)
    var fit = PoseUncertainty()
    for m in resection.markers {
      guard let mapped = solution.map[m.id] else { continue }
      for (corner, pixel) in zip(mapped, m.pixelCorners) {
        let p = cameraFromMap.apply(corner)
        guard let projected = colour.project(p) else { continue }
        fit.addPixel(cameraPoint: p, pixelError: projected - pixel, fx: colour.fx, fy: colour.fy, centre: inCamera)
      }
    }
    pixelFits[f] = (resection.pose, fit)
  }
  let depthFloor = median(depthFits.values.compactMap(\.varianceEstimate))
  let pixelFloor = median(pixelFits.values.compactMap(\.fit.varianceEstimate))
  let limit = min(solution.noise.outlierDistance, solution.context.markerSideLength)
  for f in frames {
    // A frame none of whose mapped stickers was lifted by depth holds a pose only through PnP
    // squares (whose tilt can flip, placing it centimetres astray with small residuals): its
    // pixels must place it.
    let byDepth = solution.markers[f].contains { $0.method == .depth && solution.map[$0.id] != nil }
    if !byDepth && pixelFits[f] == nil {
      solution.frames[f].rejection = .pixelsDoNotFit
      result.rejectedFrames.append(f)
      continue
    }
    var sd = byDepth ? depthFits[f].flatMap { fit in fit.centreSD(variance: max(fit.varianceEstimate ?? depthFloor, depthFloor)) } : nil
    if let pixel = pixelFits[f],
      let pixelSD = pixel.fit.centreSD(variance: max(pixel.fit.varianceEstimate ?? pixelFloor, pixelFloor)), pixelSD <= sd ?? .infinity
    {
      solution.mapFromCamera[f] = pixel.pose
      solution.frames[f].placedByResection = true
      result.resectedFrames.append(f)
      sd = pixelSD
    }
    solution.frames[f].poseUncertainty = sd
    let radius = sd.map { sphere95Radius * $0 } ?? .infinity
    if !(radius <= limit) {
      solution.frames[f].rejection = .poseNotDetermined(millimetres: radius * 1000, limit: limit * 1000)
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

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
private func median(_ values: [Double]) -> Double {
  values.isEmpty ? 0 : (lowerMedian(values) + upperMedian(values)) / 2
}

/// `mapFromCamera` from the pixels of `markers` against their mapped corners (camera
/// resection), refined from `mapFromCamera`. Where the pixels fit the map worse than 0.15 mm
/// at the stickers' distance (0.3 px at 30 cm and 640 px width), each marker in turn is left out
/// (a snapped corner or a poorly mapped sticker) and the best fit is kept. `nil` where no fit is
/// within that, or the pose would move implausibly far (over 2 cm or 5°: a wrong solution).
/// - Returns: the pose and the markers it was fitted to.
func resectCamera(
  _ markers: [LiftedMarker], map: MarkerMap, mapFromCamera: RigidTransform, colour: CameraIntrinsics
) -> (pose: RigidTransform, markers: [LiftedMarker])? {
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
  var best = solve(markers).map { ($0, markers) }
  if (best?.0.reprojectionRMS ?? .infinity) > limit && markers.count >= 3 {
    best = markers.indices.compactMap { left -> (PnPPose, [LiftedMarker])? in
      let subset = markers.enumerated().filter { $0.offset != left }.map(\.element)
      return solve(subset).map { ($0, subset) }
    }
    .min { $0.0.reprojectionRMS < $1.0.reprojectionRMS }
  }
  guard let found = best, found.0.reprojectionRMS <= limit else { return nil }
  let (solution, used) = found
  let resected = RigidTransform(rotation: Rotation3(rotationVector: solution.rotationVector), translation: solution.translation).inverse
  let (angle, distance) = resected.difference(to: mapFromCamera)
  return distance <= 0.02 && angle <= 5 * .pi / 180 ? (resected, used) : nil
}

/// Settings of the resection stage (``resectFrames(_:options:)``): placing cameras and marker
/// corners again from the detected pixels, against the optimised map.
public struct ResectionOptions: Sendable, Hashable {
  /// Frames with fewer depth-lifted markers than this (too close for depth: TrueDepth sees
  /// nothing nearer than ~20 cm; or two stickers close together, which leave the camera free to
  /// swing) are placed by resection: all their stickers' pixels against the optimised map at
  /// once, and the better determined of the two poses kept (``FrameDiagnostics/poseUncertainty``).
  /// On simulated 240-frame scans this took
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
