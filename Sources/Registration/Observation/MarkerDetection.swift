import ArucoBridge
import ScanIO
import _HeadScanSupport

/// The markers found in one frame, with a little about its depth.
public struct FrameDetections: Sendable, Hashable {
  /// Index of the frame in its scan.
  public var frameIndex: Int
  /// Capture time, seconds.
  public var timestamp: Double
  /// Markers found, sorted by id; corners in colour-image pixels.
  public var markers: [DetectedMarker]
  /// Fraction of depth pixels that carry a depth, 0…1.
  public var validDepthFraction: Double
}

/// Detects markers in frames of a scan, several frames at a time.
///
/// Frames are read and detected in parallel batches bounded by the cores; the
/// result is in frame order and does not depend on thread timing.
/// - Parameters:
///   - scan: an open scan.
///   - detector: the detector (shared between threads; it is immutable).
///   - frames: which frame indices to look at; default all.
///   - workers: worker threads (`nil`: one a core this process may use).
///   - progress: called from the calling thread with (done, total) after each batch.
/// - Throws: the first `ScanIOError` or `ArucoError` in frame order.
public func detectMarkers(
  in scan: any ScanReader, detector: MarkerDetector, frames: [Int]? = nil, workers: Int? = nil,
  progress: ((Int, Int) -> Void)? = nil
) throws -> [FrameDetections] {
  let indices = frames ?? Array(0..<scan.frameCount)
  var results: [FrameDetections] = []
  results.reserveCapacity(indices.count)
  try forEachInParallelBatches(
    indices, workers: workers,
    work: { index in
      let frame = try scan.frame(at: index)
      let markers = try detector.detect(bgra: frame.color.bgra, width: frame.color.width, height: frame.color.height)
      return FrameDetections(
        frameIndex: frame.index, timestamp: frame.timestamp, markers: markers,
        validDepthFraction: Double(frame.depth.validCount) / Double(frame.depth.metres.count))
    },
    consume: { results.append($0) }, progress: { progress?($0, $1) })
  return results
}
