/// Which optimised markers are kept in the registered map (``keepMarkers(_:rule:)``) and so may
/// define the world. Markers that miss the rule still link frames; they are just not reported,
/// nor the world.
///
/// The rule holds no lengths: each marker's corner RMS and shape error are tested against the
/// other markers of the same scan (``PeerTest``), so a scan from a noisier sensor, a farther
/// camera or a softer cap keeps its markers as long as none stands out from the rest. A sticker
/// the detector misplaced in many frames, or one lifted off the cap, stands out; the sensor's
/// noise, shared by all, does not.
public struct MarkerKeepRule: Sendable, Hashable {
  /// A marker is kept only with this many observations (or a quarter of the registered frames
  /// on short scans, at least 3): a count, not a noise level…
  public var minimumObservations = 10
  /// …a corner RMS no more than this many robust standard deviations above the scan's median
  /// marker RMS (the marker's own sampling spread included)…
  public var rmsDeviations = 3.0
  /// …and four mapped corners that form the printed square as well as the scan's markers do:
  /// the largest deviation of an edge from the side or a diagonal from side·√2 no more than this
  /// many robust standard deviations above the scan's median, the corners' own uncertainty
  /// (the marker's RMS) included. The median carries what all markers share — the detector's
  /// corner bias, a decal's curvature; what stands out is one marker's misplaced corner.
  public var shapeDeviations = 3.0

  /// The defaults: the false-reject rate of either test is 0.13 % a marker when its value is
  /// normally distributed about the scan's median (``PeerTest``).
  public static let `default` = MarkerKeepRule()

  public init() {}
}
