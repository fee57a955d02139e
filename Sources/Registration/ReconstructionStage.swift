/// The stages reported to a progress callback of ``reconstructHead(_:options:progress:)``.
public enum ReconstructionStage: String, Sendable {
  /// Pass 1, frame by frame: detecting and lifting markers.
  case detecting
  /// Chaining, optimising, resecting, keeping markers (reported as 0 of 1, then 1 of 1).
  case optimising
  /// Pass 2, frame by frame: fusing the registered frames' depth.
  case fusing
}
