/// Parameters of the corner lifting.
public struct LiftingOptions: Sendable, Hashable {
  /// Half-size of the depth window around a corner, pixels at 640 px width (scaled with the map).
  public var windowRadius = 4
  /// Fewest valid depth samples for a corner fit.
  public var minimumSamples = 10
  /// A quad whose sides differ from the printed side by more than this fraction is not trusted.
  public var sideTolerance = 0.15
  /// A PnP pose whose reprojection RMS exceeds this (pixels) is rejected.
  public var maximumReprojection = 2.0
  /// Markers seen more obliquely than this (cosine between normal and line of sight) are not used:
  /// their corners and depth are the least reliable.
  public var minimumFacing = 0.4

  public init() {}
}
