/// Which focal length a reconstruction lifts the depth with.
public enum FocalLengthChoice: Sendable, Hashable {
  /// The scan's own intrinsics.
  case stated
  /// The focal length the scan's markers show (``checkIntrinsics(_:statedFocalLength:options:)``);
  /// the stated one where the scan shows too few markers for an estimate.
  case estimate
  /// This focal length, pixels of the colour image (`fx`; `fy` scaled by the same factor).
  case pixels(Double)
}
