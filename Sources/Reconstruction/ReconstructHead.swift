import Fusion
import Registration
import PointCloud
import ScanIO
import _HeadScanSupport

/// Registers a scan's frames through its cap markers and fuses them into one cloud: the
/// composition of the stages, each a function of values you can also call on its own.
///
/// ```swift
/// let observed = try observeScan(scan)                      // pass 1: detect and lift
/// let chain = try chainFrames(observed)                     // place frames through shared markers
/// let optimised = try optimiseMap(chain)                    // poses and corners together, misfits out
/// let resected = resectFrames(optimised)                    // low-depth frames and corners from pixels
/// var registration = try keepMarkers(resected)              // markers whose position is determined; the world
/// let fused = try fuseFrames(scan, registration: registration)  // pass 2: depth per voxel
/// var cloud = try cleanCloud(fused)                         // outliers out, local planes, normals
/// registration = try settleMarkers(registration, on: cloud) // corners onto the surface
/// (registration, cloud) = defineWorld(registration, cloud: cloud)
/// ```
///
/// Between the registration and the fusion, the map's length scale is set against the printed
/// stickers (``HeadReconstruction/scale``): where ``ReconstructionOptions/scale`` applies it
/// (`ScaleSource/markers` always, `auto` where the markers tell it), the registration is
/// scaled and the fusion reads every depth divided by the factor (a `DepthScaledScan`).
///
/// The first pass also checks the scan's stated focal length against its markers
/// (``HeadReconstruction/intrinsicsCheck``). With ``ReconstructionOptions/focalLength`` set to
/// `FocalLengthChoice/estimate`, the scan is then observed again with the estimated focal
/// length (a `RefocusedScan`), which costs a second detection pass. With the stated focal
/// length and ``ReconstructionOptions/scale`` `auto` (the defaults), the same happens, after a
/// first registration, when the check used edge-fitted corners and calls the stated focal
/// length inconsistent (a wrong factory value: a depth scale is not that far off).
///
/// Memory grows with the number of markers and the kept cloud, not the scan.
/// - Parameter progress: called on the calling thread with (stage, done, total).
/// - Throws: `ReconstructionError`, `ScanIOError` or `ArucoError`; ``FocalLengthMismatch``
///   (wrapping the `ReconstructionError`) when registration fails with a focal length the
///   markers contradict.
public func reconstructHead(
  _ scan: any ScanReader, options: ReconstructionOptions = .default,
  progress: ((ReconstructionStage, Int, Int) -> Void)? = nil
) throws -> HeadReconstruction {
  var log = StageLog()
  let stated = scan.header.colorIntrinsics.fx
  var scan = scan
  if case .pixels(let focalLength) = options.focalLength { scan = try RefocusedScan(scan, focalLength: focalLength) }
  let observation = options.observation
  func observe() throws -> ScanObservations {
    try log.run("observe") { try observeScan(scan, options: observation) { progress?(.detecting, $0, $1) } }
  }
  var observed = try observe()
  // The check needs only the observations: unless its estimate is to be used, it runs on the
  // other core beside the serial registration stages.
  let observedOnce = observed, checkOptions = options.intrinsicsCheck
  let pendingCheck = BackgroundValue { checkIntrinsics(observedOnce, statedFocalLength: stated, options: checkOptions) }
  defer { _ = pendingCheck.wait() }  // never left running, whatever is thrown
  if case .estimate = options.focalLength, let estimate = pendingCheck.wait()?.focalLengthEstimate {
    scan = try RefocusedScan(scan, focalLength: estimate)
    observed = try observe()
  }
  progress?(.optimising, 0, 1)
  func register(_ observed: ScanObservations) throws -> Result<MarkerRegistration, ReconstructionError> {
    do {
      let chain = try log.run("chain") { try chainFrames(observed, options: options.chain) }
      let optimised = try log.run("optimise") { try optimiseMap(chain, options: options.optimisation) }
      let resected = log.run("resect") { resectFrames(optimised, options: options.resection) }
      return .success(try log.run("keep markers") { try keepMarkers(resected, rule: options.markerKeep) })
    } catch let error as ReconstructionError {
      return .failure(error)
    }
  }
  var outcome = try register(observed)
  // With the stated focal length and `--scale auto`, a focal length the edge-fitted markers
  // contradict beyond the check's limit is a wrong factory value (a depth scale is not that far
  // off): the scan is observed and registered again with the markers' focal length.
  if options.scale == .auto, case .stated = options.focalLength, let check = pendingCheck.wait(), !check.consistent,
    check.edgeFittedCorners
  {
    scan = try RefocusedScan(scan, focalLength: check.focalLengthEstimate)
    observed = try observe()
    outcome = try register(observed)
  }
  var registration: MarkerRegistration
  switch outcome {
  case .success(let registered):
    registration = registered
  case .failure(let error):
    // Lifted with a focal length the markers contradict: the failure says so.
    let used = scan.header.colorIntrinsics.fx
    if let check = pendingCheck.wait(), abs(used / check.focalLengthEstimate - 1) > check.limit { throw FocalLengthMismatch(underlying: error, check: check) }
    throw error
  }
  let check = pendingCheck.wait()
  let focalLengthUsed = scan is RefocusedScan ? scan.header.colorIntrinsics.fx : nil
  let scale = MetricScale(check: check, focalLengthUsed: scan.header.colorIntrinsics.fx, source: options.scale)
  if let scale, scale.applied {
    // The registration of the scan with every depth divided by the factor; fusion reads it so.
    registration = registration.scaled(by: 1 / scale.depthScaleFactor)
    scan = DepthScaledScan(scan, factor: 1 / scale.depthScaleFactor)
  }
  NativeGeometry.releaseFreedMemory()  // before the fusion allocates its own
  progress?(.optimising, 1, 1)
  var cloud = PointSet()
  var framesFused = 0
  if options.fuse {
    let fused = try log.run("fuse") {
      try fuseFrames(scan, registration: registration, options: options.fusion) { progress?(.fusing, $0, $1) }
    }
    for (index, pose) in fused.refinedPoses {
      registration.frames[index].worldFromCamera = pose
      registration.frames[index].refinedByICP = true
    }
    framesFused = fused.framesFused
    cloud = try log.run("clean") { try cleanCloud(fused, options: options.cleaning) }
  }
  if options.settleMarkersOnSurface && cloud.count > options.settling.neighbours {
    (registration, cloud) = try log.run("settle", counts: { [.init("markers settled", $0.registration.markers.count)] }) {
      defineWorld(try settleMarkers(registration, on: cloud, options: options.settling), cloud: cloud)
    }
  }
  return HeadReconstruction(
    frames: registration.frames, markers: registration.markers, markerFits: registration.markerFits, noise: registration.noise,
    worldMarkerID: registration.worldMarkerID,
    cornerRMS: registration.cornerRMS, markersDetected: observed.markersDetected, offCapDetections: observed.offCapDetections,
    cloud: cloud, timings: log.timings, stages: log.reports, intrinsicsCheck: check,
    focalLengthUsed: focalLengthUsed, scale: scale, framesFused: framesFused)
}

/// The stages reported to a progress callback of ``reconstructHead(_:options:progress:)``.
public enum ReconstructionStage: String, Sendable {
  /// Pass 1, frame by frame: detecting and lifting markers.
  case detecting
  /// Chaining, optimising, resecting, keeping markers (reported as 0 of 1, then 1 of 1).
  case optimising
  /// Pass 2, frame by frame: fusing the registered frames' depth.
  case fusing
}
