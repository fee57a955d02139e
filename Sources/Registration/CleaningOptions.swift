/// Settings of the cleaning stage (``cleanCloud(_:options:)``).
public struct CleaningOptions: Sendable, Hashable {
  /// Neighbours for the statistical outlier removal and the local-plane smoothing.
  public var neighbours = 20
  /// Points whose mean neighbour distance lies more than this many standard deviations above
  /// the cloud's mean are removed.
  public var outlierDeviations = 2.0
  /// Nearest points of the wider patch whose least-squares quadratic gives the surface's
  /// curvature for the smoothing: a point projected onto its neighbours' plane is moved by the
  /// plane's offset from that curved surface (about E[s²]/(2R) inside a convex surface of
  /// radius R, s the neighbours' spread). The plane's few points fix where the surface is,
  /// the wider patch only how it bends, so the correction adds no noise of note. 0 (or no more
  /// than ``neighbours``): the plane's projection as it is.
  public var curvatureNeighbours = 100

  /// The defaults.
  public static let `default` = CleaningOptions()

  public init() {}
}
