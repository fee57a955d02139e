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
  /// Live coverage after this frame (`LiveCoverage` replayed in recording order): the share of
  /// the band round the measurement level seen so far, percent (`nil` before the head is found
  /// or when the replay failed).
  public var bandCoveragePercent: Double?
  /// What was still missing after this frame: sectors of the band by name, "face", "left ear",
  /// "right ear" (`nil` when the replay failed).
  public var missing: [String]?
}

extension FrameStatus {
  /// The strip of a reconstruction: frame diagnostics replayed through an `OverlapTracker`.
  /// - Parameters:
  ///   - coverage: frame index → valid-depth fraction, where known.
  ///   - live: live coverage states of the frames, in recording order (empty when not replayed).
  static func strip(of reconstruction: HeadReconstruction, coverage: [Int: Double], live: [CoverageState] = []) -> [FrameStatus] {
    var tracker = OverlapTracker()
    let liveByFrame = Dictionary(live.map { ($0.frame, $0) }, uniquingKeysWith: { first, _ in first })
    return reconstruction.frames.map { diagnostics in
      let ids = diagnostics.detectedIDs.sorted()
      let states = tracker.update(ids: ids)
      let state = liveByFrame[diagnostics.index]
      return FrameStatus(
        frame: diagnostics.index, timestamp: diagnostics.timestamp, registered: diagnostics.worldFromCamera != nil,
        rejection: diagnostics.rejection?.description, depthCoverage: coverage[diagnostics.index], markers: ids,
        firstSeen: ids.filter { states[$0] == .red }, linked: ids.filter { states[$0] == .green },
        bandCoveragePercent: state.flatMap { $0.headFound ? $0.bandCoveragePercent : nil }, missing: state?.missingNames)
    }
  }
}
