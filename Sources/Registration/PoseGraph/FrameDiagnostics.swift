import Foundation
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
  /// Whether ICP against the fused model moved this frame (`FusionOptions/icpRefinement`).
  public var refinedByICP = false
  /// Whether the frame was placed by resection from its stickers' pixels against the map
  /// (too little depth: ``ResectionOptions/minimumDepthMarkersForDepthPose``).
  public var placedByResection = false
  /// How well its pose is determined: the standard deviation per axis, metres, of where the pose
  /// puts the centre of the marker map (from the fit that placed it: its corners' residuals by
  /// depth, or its pixels' by resection); `nil` before the resection stage or without a pose.
  /// Its 95 % sphere, 2.80 times it, is what ``FrameRejection/poseNotDetermined(millimetres:limit:)``
  /// tests.
  public var poseUncertainty: Double?
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
  /// The frame's pose fitted again with each of its depth-lifted kept markers left out in turn,
  /// as changes in its camera frame: `full⁻¹ · without_j` for the rigid fits of its lifted
  /// corners to the kept map with all of them (`full`) and without marker j, so that leaving j
  /// out moves the pose to about `worldFromCamera · poseJackknife[j]`. Their spread is how well
  /// the frame's markers hold its pose, errors shared by a sticker's four corners included;
  /// empty for frames placed by resection, frames with fewer than three such markers and fits
  /// that fail.
  public var poseJackknife: [RigidTransform] = []
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

/// Why a frame got no pose.
public enum FrameRejection: Sendable, Hashable, CustomStringConvertible {
  /// No cap marker detected.
  case noMarkers
  /// None of its markers is in the map: they never connect to the others (or none is seen in
  /// another frame at all).
  case notLinked
  /// Its markers are in the map but, lifted in this frame, do not fit it: their rigid fit onto
  /// the map leaves this corner RMS, mm (over ``ChainOptions/maximumPlacementRMS``, or no fit
  /// consistent within a printed side). Either the frame is bad (its pixels and depth disagree) or
  /// the chain's map has drifted by the time the frame closes the loop round the head; the
  /// optimisation places it again against the corrected map where it then fits.
  case markersDoNotFit(millimetres: Double)
  /// Its markers' outlines are smeared (the phone moved during exposure), σ in pixels.
  case motionBlur(pixels: Double)
  /// Its corners do not fit the marker map (a bad detection), RMS in mm.
  case largeResidual(millimetres: Double)
  /// Its pose is not determined well enough to attribute what it sees: the 95 % sphere of
  /// where it puts the centre of the marker map (``FrameDiagnostics/poseUncertainty``), mm, is
  /// wider than `limit`, mm — the scan's outlier distance (``ScanNoise/outlierDistance``, at
  /// most a printed side): a frame that uncertain could not tell a sticker from its neighbour
  /// or a misfit detection from a sound one. Infinite where its markers leave the pose free
  /// (all corners on one line).
  case poseNotDetermined(millimetres: Double, limit: Double)
  /// None of its mapped stickers was lifted by depth (too close for the depth camera, or seen
  /// too obliquely), and its stickers' pixels do not place it against the map (no resection
  /// within 0.15 mm at the stickers' distance, or one that would move it implausibly far).
  case pixelsDoNotFit

  /// The kind of rejection without its value, for grouping in summaries.
  public var kind: String {
    switch self {
    case .noMarkers: return "no markers"
    case .notLinked: return "not linked to the other frames"
    case .markersDoNotFit: return "markers do not fit the map"
    case .motionBlur: return "motion blur"
    case .largeResidual: return "corner residual above the limit"
    case .poseNotDetermined: return "pose not determined"
    case .pixelsDoNotFit: return "no depth, and its pixels do not fit the map"
    }
  }

  /// The reason in words, with its value.
  public var description: String {
    switch self {
    case .noMarkers: return "no markers"
    case .notLinked: return "not linked to the other frames"
    case .markersDoNotFit(let mm): return String(format: "its markers do not fit the map (corner RMS %.1f mm)", mm)
    case .motionBlur(let px): return String(format: "motion blur (edges σ %.1f px)", px)
    case .largeResidual(let mm): return String(format: "corner residual %.1f mm", mm)
    case .pixelsDoNotFit: return "no sticker lifted by depth, and its stickers' pixels do not fit the map"
    case .poseNotDetermined(let mm, let limit):
      guard mm.isFinite else { return "its pose is not determined (its corners leave it free)" }
      return String(format: "its pose is not determined (±%.1f mm at the map's centre, 95 %%; limit %.1f mm)", mm, limit)
    }
  }
}
