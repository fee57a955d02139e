import Fusion
import Registration

/// A reconstruction that failed on a scan whose stated focal length its markers contradict:
/// the failure with the likely cause and the remedy, on one line.
///
/// A focal length several percent off distorts every lifted sticker (sides a few percent
/// long or short across the line of sight, not along it), which can leave no marker consistent
/// enough to keep; ``reconstructHead(_:options:progress:)`` then throws this instead of the
/// bare `ReconstructionError`, so the check is not lost with the reconstruction.
public struct FocalLengthMismatch: Error, Sendable, CustomStringConvertible {
  /// Why the reconstruction failed.
  public var underlying: ReconstructionError
  /// The check that found the stated focal length inconsistent.
  public var check: IntrinsicsCheck

  public init(underlying: ReconstructionError, check: IntrinsicsCheck) {
    self.underlying = underlying
    self.check = check
  }

  public var description: String {
    "\(underlying.description); \(check.warning ?? "the stated focal length is not consistent with the markers")"
  }
}
