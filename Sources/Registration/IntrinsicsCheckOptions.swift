/// Settings of ``checkIntrinsics(_:statedFocalLength:options:)``.
public struct IntrinsicsCheckOptions: Sendable, Hashable {
  /// The relative difference between stated and estimated focal length that is still
  /// consistent (contract §8 and the summary's warning: 2 %); widened to twice the estimate's
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

  /// The defaults.
  public static let `default` = IntrinsicsCheckOptions()

  public init() {}
}
