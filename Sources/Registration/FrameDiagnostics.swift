import PointCloud

/// What happened to one frame.
public struct FrameDiagnostics: Sendable, Hashable {
  /// Index of the frame in its scan.
  public var index: Int
  /// Capture time, seconds.
  public var timestamp: Double
  /// Ids detected (cap ids only).
  public var detectedIDs: [Int]
  /// Markers lifted to 3D: by depth and by PnP.
  public var liftedByDepth: Int
  /// Markers lifted by PnP from their pixels (no depth).
  public var liftedByPnP: Int
  /// Whether ICP against the fused model moved this frame (``FusionOptions/icpRefinement``).
  public var refinedByICP = false
  /// Whether the frame was placed by resection from its stickers' pixels against the map
  /// (too little depth: ``ResectionOptions/minimumDepthMarkersForDepthPose``).
  public var placedByResection = false
  /// Ids detected in this frame whose lifted corners lie farther than ``ScanNoise/outlierDistance`` (or a printed side, while placing) from where the frame's
  /// other markers put them: a misread id (a sticker read as another one's) or a sticker lifted
  /// wrongly. Left out of the registration.
  public var outlierIDs: [Int] = []
  /// Blur across the markers' outlines, σ in pixels (``edgeBlur(of:grey:width:height:)``).
  public var edgeBlur: Double?
  /// `worldFromCamera`, metres; `nil` when rejected. (During the registration stages, before the
  /// world is chosen, see ``MapSolution/mapFromCamera``.)
  public var worldFromCamera: RigidTransform?
  /// RMS corner residual after optimisation, metres.
  public var rms: Double?
  /// Why the frame got no pose; `nil` when registered.
  public var rejection: FrameRejection?

  /// A frame before registration: what it observed, no pose, no verdict.
  public init(
    index: Int, timestamp: Double, detectedIDs: [Int], liftedByDepth: Int, liftedByPnP: Int, edgeBlur: Double? = nil
  ) {
    self.index = index
    self.timestamp = timestamp
    self.detectedIDs = detectedIDs
    self.liftedByDepth = liftedByDepth
    self.liftedByPnP = liftedByPnP
    self.edgeBlur = edgeBlur
  }
}
