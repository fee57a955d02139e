/// What `headscan reconstruct --json` writes: a reconstruction's counts, marker map, per-marker
/// fits, rejected frames, the scan's noise and the focal-length check.
///
/// Lengths in millimetres, except the marker map's corners, which are in **metres** in the
/// world frame (the lowest kept marker's own frame), as the registered cloud is. Build one from
/// a reconstruction with `ReconstructionReport(_:fusion:)` (HeadScan module).
public struct ReconstructionReport: Codable, Sendable, Hashable {
  /// A frame without a pose and why.
  public struct Rejected: Codable, Sendable, Hashable {
    public var frame: Int
    public var reason: String
    public init(frame: Int, reason: String) { (self.frame, self.reason) = (frame, reason) }
  }

  /// A detection left out of the map: its frame and marker id.
  public struct Outlier: Codable, Sendable, Hashable {
    public var frame: Int
    public var id: Int
    public init(frame: Int, id: Int) { (self.frame, self.id) = (frame, id) }
  }

  /// One kept marker of the map: world frame, metres, corners in detection order.
  public struct MappedMarker: Codable, Sendable, Hashable {
    public var id: Int
    /// The four corners, `[x, y, z]` metres, world frame.
    public var corners: [[Double]]
    /// Detections of it that the optimisation kept.
    public var observations: Int
    public init(id: Int, corners: [[Double]], observations: Int) { (self.id, self.corners, self.observations) = (id, corners, observations) }
  }

  /// One optimised marker's fit and the keep rule's limits for it, millimetres.
  public struct Fit: Codable, Sendable, Hashable {
    public var id: Int
    public var observations: Int
    /// RMS of its corners' residuals over its observations, mm.
    public var rms: Double
    /// How far its corners are from a square of the printed side, mm.
    public var shapeError: Double
    public var rmsLimit: Double
    public var shapeLimit: Double
    /// Whether the keep rule kept it in the map.
    public var kept: Bool
    public init(id: Int, observations: Int, rms: Double, shapeError: Double, rmsLimit: Double, shapeLimit: Double, kept: Bool) {
      (self.id, self.observations, self.rms, self.shapeError) = (id, observations, rms, shapeError)
      (self.rmsLimit, self.shapeLimit, self.kept) = (rmsLimit, shapeLimit, kept)
    }
  }

  /// The scan's noise as estimated from it, and the limits derived from it, millimetres.
  public struct Noise: Codable, Sendable, Hashable {
    /// Depth noise σ at 20 cm, mm.
    public var depthNoiseAt20cm: Double?
    /// Sticker views the noise was estimated from.
    public var depthSamples: Int
    /// The typical misfit of a detection against its frame's other markers, mm.
    public var typicalMisfit: Double?
    /// Detections farther than this from where their frame's other markers put them are
    /// outliers, mm.
    public var outlierDistance: Double?
    /// The far end of the depths the stickers were seen at (90th percentile), mm.
    public var farDepth: Double?
    /// Signed-distance fusion: the band's half-width, from the noise at ``farDepth``, mm.
    public var signedDistanceBand: Double?
    public init(
      depthNoiseAt20cm: Double?, depthSamples: Int, typicalMisfit: Double?, outlierDistance: Double?, farDepth: Double?,
      signedDistanceBand: Double?
    ) {
      (self.depthNoiseAt20cm, self.depthSamples, self.typicalMisfit) = (depthNoiseAt20cm, depthSamples, typicalMisfit)
      (self.outlierDistance, self.farDepth, self.signedDistanceBand) = (outlierDistance, farDepth, signedDistanceBand)
    }
  }

  /// Frames read.
  public var frames: Int
  /// Frames given a pose.
  public var framesRegistered: Int
  /// Registered frames whose depth was fused (at most the fusion's frame budget, spread evenly).
  public var framesFused: Int
  /// Distinct cap ids detected.
  public var markers: Int
  /// Marker ids in the map.
  public var markersRegistered: Int
  /// The marker whose own frame is the world.
  public var worldMarker: Int
  /// RMS over all kept observations of the 3D corner residual after optimisation, mm.
  public var cornerRMS: Double
  /// Points of the fused cloud.
  public var points: Int
  /// Detections whose id is not on the cap.
  public var offCapDetections: Int
  /// Frames moved by ICP onto the fused model (voxel-mean fusion with ICP only).
  public var framesRefinedByICP: Int
  /// Frames with too little depth placed from their stickers' pixels against the map.
  public var framesPlacedByResection: Int
  /// Detections left out for lying farther than the scan's outlier limit (``Noise/outlierDistance``)
  /// from where their frame's other markers put them (a misread id or a wrongly lifted sticker).
  public var outliers: [Outlier]
  /// Frames without a pose.
  public var rejected: [Rejected]
  /// The scan's noise and the limits derived from it.
  public var noise: Noise
  /// The marker map.
  public var markerMap: [MappedMarker]
  /// Every optimised marker's fit, kept or not, by ascending id.
  public var markerFits: [Fit]
  /// Wall-clock seconds per stage: detection, registration, fusion, cleaning, settling, total.
  public var seconds: [String: Double]
  /// The stated focal length against the markers'.
  public var intrinsicsCheck: MeasureReport.IntrinsicsCheckSummary?
  /// The map's length scale against the printed stickers, and whether it was applied.
  public var scale: MeasureReport.ScaleSummary?

  public init(
    frames: Int, framesRegistered: Int, framesFused: Int, markers: Int, markersRegistered: Int, worldMarker: Int, cornerRMS: Double,
    points: Int, offCapDetections: Int, framesRefinedByICP: Int, framesPlacedByResection: Int, outliers: [Outlier],
    rejected: [Rejected], noise: Noise, markerMap: [MappedMarker], markerFits: [Fit], seconds: [String: Double],
    intrinsicsCheck: MeasureReport.IntrinsicsCheckSummary?
  ) {
    (self.frames, self.framesRegistered, self.framesFused, self.markers) = (frames, framesRegistered, framesFused, markers)
    (self.markersRegistered, self.worldMarker, self.cornerRMS, self.points) = (markersRegistered, worldMarker, cornerRMS, points)
    (self.offCapDetections, self.framesRefinedByICP, self.framesPlacedByResection) = (offCapDetections, framesRefinedByICP, framesPlacedByResection)
    (self.outliers, self.rejected, self.noise, self.markerMap, self.markerFits) = (outliers, rejected, noise, markerMap, markerFits)
    (self.seconds, self.intrinsicsCheck) = (seconds, intrinsicsCheck)
  }
}
