/// Settings of the chaining stage (``chainFrames(_:options:)``): which frames take part and how
/// far a marker may lie from where a frame's other markers put it. Lengths in metres.
public struct ChainOptions: Sendable, Hashable {
  /// Frames with fewer usable markers (each seen in at least two frames) are rejected
  /// (``FrameRejection/tooFewMarkers(_:)``).
  public var minimumMarkersPerFrame = 2
  /// Frames whose marker outlines are blurred more than this (``edgeBlur(of:grey:width:height:)``,
  /// σ in pixels) are rejected as motion-blurred: their corners are off by a good part of a
  /// pixel, along the motion. Sharp frames measure 0.7–1.1 px.
  public var maximumEdgeBlur = 1.6
  /// A marker joins the map only when two placed frames put it within this RMS of each other,
  /// and a detection farther than this from where its frame's other markers put it is an
  /// outlier (a misread id or a sticker lifted wrongly), at 640 px width (scaled up for
  /// smaller images). DICT_4X4_50 reads a sticker seen at a grazing angle as another id now
  /// and then; it then lies where another sticker is, 3 cm or more away.
  public var consistencyDistance = 0.01
  /// A frame is placed only when its markers' rigid fit to the map leaves at most this corner
  /// RMS (three times ``OptimisationOptions/maximumFrameRMS``).
  public var maximumPlacementRMS = 3 * 0.003

  /// The defaults.
  public static let `default` = ChainOptions()

  public init() {}
}
