/// Where the phone is relative to where it should be.
public enum PositionState: String, Sendable, Hashable, Codable {
  /// Markers linked to the older frames (or, in the first frame with markers, at least two).
  case ideal
  /// The overlap is insufficient and more than 30 % of this frame's markers have no depth at a
  /// corner (TrueDepth's near limit): moving back restores both.
  case tooClose
  /// No marker in this frame links it to the older frames.
  case off
}

/// Which side of the image the markers sit on (5 % dead band around the centre).
public enum FeedbackDirection: String, Sendable, Hashable, Codable {
  case left, right, up, down, upLeft, upRight, downLeft, downRight
}

/// What the operator was shown for one frame.
public struct FrameFeedback: Sendable, Hashable, Codable {
  /// The frame's index in its scan.
  public var frame: Int
  /// Distinct marker ids seen so far / `cap.markerCount`, 0…1; `nil` without a cap size.
  public var progress: Double?
  /// Milestones first reached in this frame.
  public var events: [ProgressEvent]
  /// The debounced position state.
  public var position: PositionState
  /// The debounced direction; `nil` when the markers are centred (or absent).
  public var direction: FeedbackDirection?
  /// Overlap state of every marker seen so far.
  public var overlap: [Int: OverlapState]
}
