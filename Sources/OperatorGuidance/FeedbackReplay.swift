import ArucoBridge
import Foundation
import ScanIO
import _HeadScanSupport

/// Replays the guidance over a whole scan (markers detected with OpenCV's defaults).
/// - Parameters:
///   - milestones: when progress is announced (default every 25 %).
///   - workers: worker threads (`nil`: one a core this process may use).
///   - progress: called with (frames done, total) while the frames are detected.
/// - Throws: `ScanIOError` or `ArucoError`.
public func replayFeedback(
  in scan: any ScanReader, milestones: ProgressMilestones = .everyQuarter, workers: Int? = nil, progress: ((Int, Int) -> Void)? = nil
) throws -> [FrameFeedback] {
  let detector = try MarkerDetector(dictionary: scan.header.markers.dictionary)
  let sightings = try sightingsOfMarkers(in: scan, detector: detector, workers: workers, progress: progress)
  var tracker = FeedbackTracker(
    capMarkerCount: scan.header.capMarkerCount, imageWidth: scan.header.colorWidth, imageHeight: scan.header.colorHeight,
    milestones: milestones)
  return sightings.enumerated().map { tracker.update(frame: $0.offset, markers: $0.element) }
}

/// Markers of every frame with whether a corner pixel lacks depth.
func sightingsOfMarkers(in scan: any ScanReader, detector: MarkerDetector, workers: Int? = nil, progress: ((Int, Int) -> Void)?) throws -> [[FeedbackTracker.Sighting]] {
  let cap = scan.header.capMarkerCount
  var out: [[FeedbackTracker.Sighting]] = []
  try forEachInParallelBatches(
    Array(0..<scan.frameCount), workers: workers,
    work: { index in
      let frame = try scan.frame(at: index)
      let found = try detector.detect(bgra: frame.color.bgra, width: frame.color.width, height: frame.color.height)
      let sx = Double(frame.depth.width) / Double(frame.color.width), sy = Double(frame.depth.height) / Double(frame.color.height)
      return found.filter { marker in cap.map { marker.id < $0 } ?? true }.map { m in
        let missing = m.corners.contains { c in
          let x = min(frame.depth.width - 1, max(0, Int(((c.x + 0.5) * sx - 0.5).rounded())))
          let y = min(frame.depth.height - 1, max(0, Int(((c.y + 0.5) * sy - 0.5).rounded())))
          return !frame.depth[x, y].isFinite
        }
        return FeedbackTracker.Sighting(id: m.id, corners: m.corners, missingDepth: missing)
      }
    },
    consume: { out.append($0) }, progress: { progress?($0, $1) })
  return out
}
