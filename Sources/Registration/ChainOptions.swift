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
  /// While frames are placed, a marker joins the map only when two placed frames put it within
  /// this many printed sides of each other, and a detection farther than that from where its
  /// frame's other markers put it is taken as misread. A misread id lies where another sticker
  /// is — a side or more away (DICT_4X4_50 reads a sticker seen at a grazing angle as another id
  /// now and then): a fact of the cap's geometry, not of the sensor's noise.
  public var misreadSides = 1.0
  /// Once placed, a detection is an outlier (``FrameDiagnostics/outlierIDs``) when its corners
  /// lie farther from where its frame's other markers put them than this many robust standard
  /// deviations above the median over all placed detections (logarithmic scale, ``PeerTest``),
  /// or farther than ``misreadSides`` printed sides where that is nearer: a sticker lifted
  /// wrongly, or a misread that got past placing.
  public var outlierDeviations = 3.5
  /// A frame is placed only when its markers' rigid fit to the map leaves at most this corner
  /// RMS: a gross gate against a wrong placement (over half a 16 mm sticker), not a noise level;
  /// the optimisation judges the frames against each other afterwards.
  public var maximumPlacementRMS = 3 * 0.003

  /// The defaults.
  public static let `default` = ChainOptions()

  public init() {}
}
