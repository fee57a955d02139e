/// Settings of the cleaning stage (``cleanCloud(_:options:)``).
public struct CleaningOptions: Sendable, Hashable {
  /// Neighbours for the statistical outlier removal and the local-plane smoothing.
  public var neighbours = 20
  /// Points whose mean neighbour distance lies more than this many standard deviations above
  /// the cloud's mean are removed.
  public var outlierDeviations = 2.0

  /// The defaults.
  public static let `default` = CleaningOptions()

  public init() {}
}
