import Foundation

/// The colour camera's focal length stated by the scan, set against the one its markers show.
///
/// TrueDepth factory intrinsics are wrong on some devices (the iPad Pro 12.9" 5th generation's
/// front camera states a focal length 6.2 % too long). A marker of known printed side seen
/// with metric depth tells the focal length: its corners' pixel offsets times their depths,
/// divided by the printed side's extent across the line of sight
/// (``checkIntrinsics(_:statedFocalLength:options:)``).
///
/// Focal lengths are pixels of the colour image (`fx` at the colour image's width and height,
/// the scan's stated intrinsics scaled about pixel edges); the estimate is one factor on
/// both `fx` and `fy` (the pixels' aspect is trusted).
public struct IntrinsicsCheck: Sendable, Hashable, Codable {
  /// The scan's stated `fx`, colour-image pixels.
  public var statedFocalLength: Double
  /// The focal length the markers show, colour-image pixels.
  public var focalLengthEstimate: Double
  /// One standard uncertainty of the estimate, pixels: the standard error from resampling
  /// frames, with what the model leaves open in quadrature (half the correction for the
  /// stickers' bend, and the change from all views to their larger half). Its 95 % interval
  /// (±1.96) held the true focal length on 28 of 30 simulated scans (docs/registration.md).
  public var focalLengthUncertainty: Double
  /// How far inside the printed square the corners of all depth-lifted views sit, pixels,
  /// measured against the estimate: the median of `ℓ·(1 − f/estimate)/2` (`ℓ` a view's
  /// apparent side, `f` its focal length). About 0.3 px for OpenCV's corners on small markers,
  /// near 0 for corners on fitted border edges.
  public var cornerBias: Double
  /// Depth-lifted marker views the estimate used.
  public var markersUsed: Int
  /// Frames they were seen in.
  public var framesUsed: Int
  /// The smallest apparent side of the views used, pixels: smaller views showed a trend
  /// with size (a corner bias) and were left out.
  public var smallestSide: Double
  /// The largest relative difference between estimate and statement still called consistent:
  /// the check's tolerance, or twice the estimate's relative uncertainty where that is larger,
  /// or, without edge-refined corners and with a trend in size left, the shortfall that trend
  /// puts on the views' median size.
  public var limit: Double
  /// Whether the estimate used corners on fitted border edges (enough views had them); without
  /// them a corner bias that grows as markers shrink may be left in the estimate.
  public var edgeFittedCorners: Bool

  /// A check from its values.
  public init(
    statedFocalLength: Double, focalLengthEstimate: Double, focalLengthUncertainty: Double, cornerBias: Double,
    markersUsed: Int, framesUsed: Int, smallestSide: Double, limit: Double, edgeFittedCorners: Bool = true
  ) {
    self.edgeFittedCorners = edgeFittedCorners
    self.statedFocalLength = statedFocalLength
    self.focalLengthEstimate = focalLengthEstimate
    self.focalLengthUncertainty = focalLengthUncertainty
    self.cornerBias = cornerBias
    self.markersUsed = markersUsed
    self.framesUsed = framesUsed
    self.smallestSide = smallestSide
    self.limit = limit
  }

  /// `(statedFocalLength − focalLengthEstimate) / focalLengthEstimate`: +0.06 when the scan
  /// states a focal length 6 % too long.
  public var relativeDifference: Double { (statedFocalLength - focalLengthEstimate) / focalLengthEstimate }

  /// Whether the stated focal length agrees with the estimate within ``limit``.
  public var consistent: Bool { abs(relativeDifference) <= limit }

  /// A one-line warning when the two disagree, `nil` when they are consistent.
  public var warning: String? {
    guard !consistent else { return nil }
    return String(
      format: "the stated focal length %.1f px differs from the %.1f ± %.1f px the markers show by %+.1f %%: the factory intrinsics may be wrong (--focal-length estimate uses the estimate)",
      statedFocalLength, focalLengthEstimate, focalLengthUncertainty, 100 * relativeDifference)
  }
}

/// Settings of ``checkIntrinsics(_:statedFocalLength:options:)``.
public struct IntrinsicsCheckOptions: Sendable, Hashable {
  /// The relative difference between stated and estimated focal length that is still
  /// consistent (the report's `intrinsicsCheck.consistent` and the summary's warning: 2 %); widened to twice the estimate's
  /// relative uncertainty when the scan shows too few markers to tell 2 %.
  public var tolerance = 0.02
  /// Fewest depth-lifted marker views for an estimate; fewer give no check.
  public var minimumMarkers = 12
  /// Markers seen more obliquely than this (cosine between normal and line of sight) are not
  /// used: their extent along the line of sight comes from the depth, and depth errors there
  /// weigh more.
  public var minimumFacing = 0.6
  /// Bootstrap resamples (over frames) for the estimate's uncertainty.
  public var resamples = 200
  /// Seed of the bootstrap's generator: the same scan gives the same check.
  public var seed: UInt64 = 16

  /// Worker threads (`nil`: one a core this process may use). The result does not depend on it.
  public var workers: Int?

  /// The defaults.
  public static let `default` = IntrinsicsCheckOptions()

  public init() {}
}
