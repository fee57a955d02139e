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

  /// Observations of a scan (for a caller that observed frames itself); the sums are worked out.
  public init(context: ScanContext, frames: [FrameObservation]) {
    self.context = context
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
/// (``observeFrame(_:detector:capMarkerCount:sideLength:options:)``), in parallel batches; the
/// result is in frame order and does not depend on thread timing.
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
  var frames: [FrameObservation] = []
  frames.reserveCapacity(scan.frameCount)
  try forEachInParallelBatches(
    Array(0..<scan.frameCount),
    work: { index in
      try observeFrame(try scan.frame(at: index), detector: detector, capMarkerCount: capCount, sideLength: side, options: options)
    },
    consume: { frames.append($0) },
    progress: { done, total in progress?(done, total) })
  let observations = ScanObservations(
    context: ScanContext(path: scan.path, colour: scan.header.colorIntrinsics, markerSideLength: side), frames: frames)
  guard observations.framesWithDepth > 0 else { throw ReconstructionError.noDepth(path: scan.path) }
  guard !observations.markersDetected.isEmpty else { throw ReconstructionError.noMarkers(path: scan.path) }
  return observations
}
