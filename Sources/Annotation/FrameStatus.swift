import HeadScan

/// One frame as the page's strip shows it: pose, depth coverage, and the markers seen, coloured
/// as the recorder app colours overlap (`OverlapState`: red first seen here, green seen before).
public struct FrameStatus: Sendable, Hashable, Codable {
  /// Frame index in the scan.
  public var frame: Int
  /// Capture time, seconds.
  public var timestamp: Double
  /// Whether the registration gave the frame a pose (only such frames can carry a landmark).
  public var registered: Bool
  /// Why it has no pose, when it has none.
  public var rejection: String?
  /// Fraction of the depth map's pixels that carry a depth, 0…1 (`nil` if the frame was never read).
  public var depthCoverage: Double?
  /// Cap markers detected in the frame, ascending.
  public var markers: [Int]
  /// Of those, the ones first seen in this frame (red in the recorder app).
  public var firstSeen: [Int]
  /// Of those, the ones also seen in an earlier frame (green: they link this frame to the earlier ones).
  public var linked: [Int]
}

extension FrameStatus {
  /// The strip of a reconstruction: frame diagnostics replayed through an `OverlapTracker`.
  /// - Parameter coverage: frame index → valid-depth fraction, where known.
  static func strip(of reconstruction: HeadReconstruction, coverage: [Int: Double]) -> [FrameStatus] {
    var tracker = OverlapTracker()
    return reconstruction.frames.map { diagnostics in
      let ids = diagnostics.detectedIDs.sorted()
      let states = tracker.update(ids: ids)
      return FrameStatus(
        frame: diagnostics.index, timestamp: diagnostics.timestamp, registered: diagnostics.worldFromCamera != nil,
        rejection: diagnostics.rejection?.description, depthCoverage: coverage[diagnostics.index], markers: ids,
        firstSeen: ids.filter { states[$0] == .red }, linked: ids.filter { states[$0] == .green })
    }
  }
}
