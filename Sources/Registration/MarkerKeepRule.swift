/// Which optimised markers are kept in the registered map (``keepMarkers(_:rule:)``) and so may
/// define the world. Markers that miss the rule still link frames; they are just not reported,
/// nor the world. Lengths in metres at 640 px image width (scaled up for smaller images).
public struct MarkerKeepRule: Sendable, Hashable {
  /// A marker is kept only with this many observations (or a quarter of the registered frames
  /// on short scans, at least 3)…
  public var minimumObservations = 10
  /// …a corner RMS no larger than this…
  public var maximumRMS = 0.00025
  /// …and its four mapped corners must form the printed square: no edge more than this from
  /// the side and no diagonal more than this from side·√2. (A sticker bent over a 60 mm radius
  /// shortens its diagonal by under 0.05 mm; a corner the detector misplaced in many frames
  /// shows here and nowhere else.)
  public var maximumShapeError = 0.0004

  /// The defaults.
  public static let `default` = MarkerKeepRule()

  public init() {}
}
