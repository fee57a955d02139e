import ArucoBridge
import ScanIO
import _HeadScanSupport

/// The observation stage's result for a whole scan: one ``FrameObservation`` per frame, in
/// frame order, with what they add up to.
public struct ScanObservations: Sendable {
  /// The scan's path, colour intrinsics and marker side.
  public var context: ScanContext
  /// One per frame, in frame order (position = frame index).
  public var frames: [FrameObservation]
  /// Distinct cap ids detected anywhere, ascending.
  public var markersDetected: [Int]
  /// Detections dropped because their id is not on the cap, over all frames.
  public var offCapDetections: Int
  /// Frames with at least one valid depth sample.
  public var framesWithDepth: Int
  /// Frames whose markers were searched for in the whole image; the others were searched only
  /// around the markers of the frames before them (``ObservationOptions/wholeImageSearchInterval``).
  public var wholeImageSearches: Int
  /// The adaptive-threshold window sized from the scan's markers that the frames were searched
  /// with besides the detector parameters' smallest, and how it was chosen
  /// (``ObservationOptions/thresholdWindows``); `nil` where every frame was searched with the
  /// detector parameters' own windows.
  public var thresholdWindow: ThresholdWindowChoice?

  /// Observations of a scan (for a caller that observed frames itself); the sums are worked out.
  public init(
    context: ScanContext, frames: [FrameObservation], wholeImageSearches: Int? = nil, thresholdWindow: ThresholdWindowChoice? = nil
  ) {
    self.context = context
    self.wholeImageSearches = wholeImageSearches ?? frames.count
    self.thresholdWindow = thresholdWindow
    self.frames = frames
    markersDetected = Set(frames.flatMap { $0.lifted.map(\.id) }).union(frames.flatMap(\.diagnostics.detectedIDs)).sorted()
    offCapDetections = frames.reduce(0) { $0 + $1.offCapDetections }
    framesWithDepth = frames.filter(\.hasDepth).count
  }

  /// Markers lifted by depth and by PnP, over all frames.
  public var lifted: (depth: Int, pnp: Int) {
    frames.reduce((0, 0)) { ($0.0 + $1.diagnostics.liftedByDepth, $0.1 + $1.diagnostics.liftedByPnP) }
  }
}

/// The observation stage for a whole scan: every frame read, its markers detected and lifted
/// (``observeFrame(_:detector:capMarkerCount:sideLength:options:)``), in parallel batches of runs
/// of consecutive frames; the result is in frame order and does not depend on thread timing.
///
/// Within a run of ``ObservationOptions/wholeImageSearchInterval`` frames, the first frame is
/// searched whole and each later one in one box round the markers seen earlier in the run, grown
/// by the stickers' spacing in the image and the movement seen between frames; it is searched
/// whole again when the box misses some of the previous frame's cap markers and the ones it
/// found moved more than half of what the box allowed (or none was found), and when fewer than
/// two markers give no spacing. A marker more than a spacing from every one seen is found at the
/// next run's start at the latest.
///
/// With ``ThresholdWindows/fromMarkerSize(cellsPerWindow:)`` (the default) a few evenly spaced
/// frames are searched first with the detector parameters' windows, and every frame is then
/// searched with their smallest window and the one their markers' size calls for
/// (``ThresholdWindowChoice``).
/// - Parameter progress: called on the calling thread with (frames done, frames) after each batch.
/// - Throws: ``ReconstructionError/noDepth(path:)`` or ``ReconstructionError/noMarkers(path:)``
///   when no frame has depth or markers; `ScanIOError` or `ArucoError` from reading and detecting.
public func observeScan(
  _ scan: any ScanReader, options: ObservationOptions = .default, progress: ((Int, Int) -> Void)? = nil
) throws -> ScanObservations {
  guard scan.frameCount > 0 else { throw ScanIOError.noFrames(path: scan.path) }
  let detector = try MarkerDetector(dictionary: scan.header.markers.dictionary, parameters: options.detector)
  let side = scan.header.markers.sideLength
  let capCount = scan.header.capMarkerCount
  let workers = workerCount(options.workers)
  let window = try chooseThresholdWindow(
    scan, detector: detector, capMarkerCount: capCount, windows: options.thresholdWindows, workers: workers)
  let primary = try window.map { try $0.detector(like: detector) } ?? detector
  let runLength = max(1, options.wholeImageSearchInterval)
  let runs = stride(from: 0, to: scan.frameCount, by: runLength).map { $0..<min(scan.frameCount, $0 + runLength) }
  var frames: [FrameObservation] = []
  frames.reserveCapacity(scan.frameCount)
  var wholeImageSearches = 0, searchedAgain = 0
  let spares = SparePool<FrameBuffers>(limit: threadsRunning(workers: workers))
  try forEachInParallelBatches(
    runs, workers: workers,
    work: { run in
      var buffers = spares.take() ?? FrameBuffers()
      defer { spares.put(buffers) }
      return try observeRun(
        run, of: scan, detector: primary, fallback: window == nil ? nil : detector, capMarkerCount: capCount, sideLength: side,
        options: options, buffers: &buffers)
    },
    consume: {
      frames.append(contentsOf: $0.frames)
      wholeImageSearches += $0.wholeImageSearches
      searchedAgain += $0.searchedAgain
    },
    progress: { done, _ in progress?(runs[done - 1].upperBound, scan.frameCount) })
  spares.drain()
  var chosen = window
  chosen?.framesSearchedAgain = searchedAgain
  let observations = ScanObservations(
    context: ScanContext(path: scan.path, colour: scan.header.colorIntrinsics, markerSideLength: side), frames: frames,
    wholeImageSearches: wholeImageSearches, thresholdWindow: chosen)
  guard observations.framesWithDepth > 0 else { throw ReconstructionError.noDepth(path: scan.path) }
  guard !observations.markersDetected.isEmpty else { throw ReconstructionError.noMarkers(path: scan.path) }
  return observations
}

/// A worker's frame and grey image, read into again for its next frame.
private struct FrameBuffers: Sendable {
  var frame: ScanFrame?
  var grey: [UInt8] = []
}

/// Observes consecutive frames one after another, tracking the cap markers from frame to frame
/// (see ``observeScan(_:options:progress:)``), each frame read into `buffers`. A frame where
/// `detector` finds fewer cap markers than ``ObservationOptions/searchAgainBelowMarkers``, in
/// its box or in the whole image, is searched again whole with `fallback`.
private func observeRun(
  _ run: Range<Int>, of scan: any ScanReader, detector: MarkerDetector, fallback: MarkerDetector?, capMarkerCount: Int?,
  sideLength: Double, options: ObservationOptions, buffers: inout FrameBuffers
) throws -> (frames: [FrameObservation], wholeImageSearches: Int, searchedAgain: Int) {
  var tracker = MarkerTracker()
  var observations: [FrameObservation] = []
  var wholeImageSearches = 0, searchedAgain = 0
  for (position, index) in run.enumerated() {
    let frame = try scan.frame(at: index, reusing: &buffers.frame)
    let width = frame.color.width, height = frame.color.height
    frame.color.grey(into: &buffers.grey)
    let grey = buffers.grey
    var found: [DetectedMarker]?
    if position > 0, let region = tracker.region(frame: position, contextMargin: detector.regionMargin, width: width, height: height) {
      let tracked = try detector.detect(grey: grey, width: width, height: height, in: [region])
      // Markers of the previous frame not found again were lost to the view or to blur, unless
      // the camera sped up: searched whole when those found used more than half the box's
      // reach, or when none was found.
      let onCapTracked = tracked.filter { $0.isOnCap(capMarkerCount) }
      if tracker.previousIDs.isSubset(of: onCapTracked.map(\.id)) {
        found = tracked
      } else if let moved = tracker.movement(of: onCapTracked), moved <= tracker.reach / 2 {
        found = tracked
      }
    }
    var searchedWhole = found == nil
    var detected = try found ?? detector.detect(grey: grey, width: width, height: height)
    var onCap = detected.filter { $0.isOnCap(capMarkerCount) }
    if let fallback, onCap.count < options.searchAgainBelowMarkers {
      searchedAgain += 1
      searchedWhole = true
      detected = try fallback.detect(grey: grey, width: width, height: height)
      onCap = detected.filter { $0.isOnCap(capMarkerCount) }
    }
    if searchedWhole { wholeImageSearches += 1 }
    tracker.record(onCap, frame: position)
    observations.append(
      observeFrame(
        frame, grey: grey, detected: detected, detector: detector, capMarkerCount: capMarkerCount, sideLength: sideLength,
        options: options))
  }
  return (observations, wholeImageSearches, searchedAgain)
}

/// Settings of the observation stage (``observeFrame(_:detector:capMarkerCount:sideLength:options:)``,
/// ``observeScan(_:options:progress:)``): how markers are found in a frame and lifted to 3D.
public struct ObservationOptions: Sendable, Hashable {
  /// Detector parameters (sub-pixel corners by default).
  public var detector = DetectorParameters.subpixel
  /// How corners are lifted to 3D.
  public var lifting = LiftingOptions()
  /// Whether detected corners are moved to where the markers' outer border edges, fitted
  /// along their whole length, meet (`DetectedMarker.refinedAlongEdges(in:cellsAcross:span:)`).
  /// `cornerSubPix` alone leaves each corner pulled by its marker's bits, the same in every
  /// view, by 0.1–0.25 px.
  public var refineCornersAlongEdges = true
  /// The smallest cell, pixels, of a marker whose corners are also fitted to its border edges
  /// for the focal-length check alone (``LiftedMarker/focalCorners``) where its cells are under
  /// the 3.5 px the lifting's corners need; `nil`: none. 2.5 px: on the focal study's 10 mm
  /// stickers 32–45 cm away (cells 2.2–3.1 px) the estimate reads 0.17–0.54 % short with it,
  /// 2.5–3.7 % short with OpenCV's corners (docs/registration.md, "Focal-length check").
  public var focalCheckSmallestCell: Double? = 2.5
  /// Frames in a run whose first frame is searched for markers in the whole image and the rest
  /// in one box round the markers seen earlier in the run, reaching a sticker spacing beyond
  /// them (``observeScan(_:options:progress:)`` says when a frame is searched whole again).
  /// 1 searches every frame whole. A marker more than a spacing from every marker seen in the
  /// run is missed for up to this many − 1 frames; each run is observed on one thread, runs in
  /// parallel. With 8 (the default) the realistic scans of docs/performance.md ("Choices that
  /// set the speed") give the same detections and corners as with 1 at about three quarters of
  /// the observation's processor time.
  public var wholeImageSearchInterval = 8
  /// How the adaptive-threshold windows each frame is searched with are chosen: the detector
  /// parameters' smallest and one sized from the scan's markers (the default), or the detector
  /// parameters' own.
  public var thresholdWindows = ThresholdWindows.fromMarkerSize()
  /// A frame whose search with the window sized from the markers finds fewer cap markers than
  /// this is searched again with the detector parameters' own windows, so that a window choice
  /// does not leave a frame held by one sticker (or none) where more could be found: one
  /// sticker places a frame only as well as its 16 mm square determines a pose.
  public var searchAgainBelowMarkers = 2

  /// Worker threads (`nil`: one a core this process may use). The result does not depend on it.
  public var workers: Int?

  /// The defaults.
  public static let `default` = ObservationOptions()

  public init() {}
}

/// What every registration stage needs to know about the scan besides its frames.
public struct ScanContext: Sendable, Hashable {
  /// The scan's path, named by every error.
  public var path: String
  /// Intrinsics of the colour image the marker corners were found in.
  public var colour: CameraIntrinsics
  /// The printed markers' side, metres.
  public var markerSideLength: Double

  /// A context.
  public init(path: String, colour: CameraIntrinsics, markerSideLength: Double) {
    self.path = path
    self.colour = colour
    self.markerSideLength = markerSideLength
  }

  /// How much larger lengths in pixels are at 640 px width than in this image (at least 1):
  /// limits given at 640 px width are multiplied by it for smaller images. "Width" is the
  /// longer side, so a portrait 480×640 frame (Record3D) counts as full resolution.
  var widthScale: Double { max(1, 640 / Double(max(1, colour.width, colour.height))) }
}
