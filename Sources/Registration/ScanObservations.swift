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

  /// Observations of a scan (for a caller that observed frames itself); the sums are worked out.
  public init(context: ScanContext, frames: [FrameObservation], wholeImageSearches: Int? = nil) {
    self.context = context
    self.wholeImageSearches = wholeImageSearches ?? frames.count
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
/// searched whole and each later one only around the markers seen earlier in the run (grown by
/// the movement seen between frames), again whole when that misses some of the previous frame's
/// cap markers and the ones it found moved more than half what their regions allowed (or none
/// was found). A marker that comes into view is found at the next run's start at the latest.
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
  let runLength = max(1, options.wholeImageSearchInterval)
  let runs = stride(from: 0, to: scan.frameCount, by: runLength).map { $0..<min(scan.frameCount, $0 + runLength) }
  var frames: [FrameObservation] = []
  frames.reserveCapacity(scan.frameCount)
  var wholeImageSearches = 0
  try forEachInParallelBatches(
    runs,
    work: { run in
      try observeRun(run, of: scan, detector: detector, capMarkerCount: capCount, sideLength: side, options: options)
    },
    consume: {
      frames.append(contentsOf: $0.frames)
      wholeImageSearches += $0.wholeImageSearches
    },
    progress: { done, _ in progress?(runs[done - 1].upperBound, scan.frameCount) })
  let observations = ScanObservations(
    context: ScanContext(path: scan.path, colour: scan.header.colorIntrinsics, markerSideLength: side), frames: frames,
    wholeImageSearches: wholeImageSearches)
  guard observations.framesWithDepth > 0 else { throw ReconstructionError.noDepth(path: scan.path) }
  guard !observations.markersDetected.isEmpty else { throw ReconstructionError.noMarkers(path: scan.path) }
  return observations
}

/// Observes consecutive frames one after another, tracking the cap markers from frame to frame
/// (see ``observeScan(_:options:progress:)``).
private func observeRun(
  _ run: Range<Int>, of scan: any ScanReader, detector: MarkerDetector, capMarkerCount: Int?, sideLength: Double,
  options: ObservationOptions
) throws -> (frames: [FrameObservation], wholeImageSearches: Int) {
  var tracker = MarkerTracker()
  var observations: [FrameObservation] = []
  var wholeImageSearches = 0
  for (position, index) in run.enumerated() {
    let frame = try scan.frame(at: index)
    let width = frame.color.width, height = frame.color.height
    let grey = frame.color.grey()
    let onCap = { (marker: DetectedMarker) in capMarkerCount.map { marker.id < $0 } ?? true }
    var found: [DetectedMarker]?
    if position > 0 && !tracker.isEmpty {
      let regions = tracker.regions(frame: position, contextMargin: detector.regionMargin, width: width, height: height)
      let tracked = try detector.detect(grey: grey, width: width, height: height, in: regions)
      // Markers of the previous frame not found again were lost to the view or to blur, unless
      // the camera sped up: searched whole when those found used more than half their
      // allowance, or when none was found.
      let onCapTracked = tracked.filter(onCap)
      if tracker.previousIDs.isSubset(of: onCapTracked.map(\.id)) {
        found = tracked
      } else if let moved = tracker.movement(of: onCapTracked), moved <= tracker.allowance / 2 {
        found = tracked
      }
    }
    if found == nil { wholeImageSearches += 1 }
    let detected = try found ?? detector.detect(grey: grey, width: width, height: height)
    tracker.record(detected.filter(onCap), frame: position)
    observations.append(
      observeFrame(
        frame, grey: grey, detected: detected, detector: detector, capMarkerCount: capMarkerCount, sideLength: sideLength,
        options: options))
  }
  return (observations, wholeImageSearches)
}
