import Reconstruction
import Registration

/// What ``measureScan(at:landmarks:options:progress:)`` reports while it works.
public enum MeasureProgress: Sendable {
  /// Something the user should know that does not stop the measurement: a cut-off last
  /// frame, an experimental head frame. One line, naming the file.
  case warning(String)
  /// Reconstruction progress: the stage, and items done out of total.
  case reconstructing(ReconstructionStage, done: Int, total: Int)
  /// The head frame is being found and the head measured.
  case measuring
  /// The bootstrap intervals are being computed.
  case bootstrapping
}
