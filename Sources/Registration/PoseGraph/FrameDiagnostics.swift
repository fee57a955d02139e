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

/// Why a frame got no pose.
public enum FrameRejection: Sendable, Hashable, CustomStringConvertible {
  /// No cap marker detected.
  case noMarkers
  /// Fewer usable markers than ``ChainOptions/minimumMarkersPerFrame``.
  case tooFewMarkers(Int)
  /// None of its markers is in the map: they never connect to the others.
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
  /// Too close for depth (fewer than two stickers lifted by depth), and its stickers' pixels do
  /// not place it against the map either (no resection within 0.15 mm at the stickers'
  /// distance): its pose would be uncertain by millimetres.
  case tooLittleDepth(depthMarkers: Int)

  /// The kind of rejection without its value, for grouping in summaries.
  public var kind: String {
    switch self {
    case .noMarkers: return "no markers"
    case .tooFewMarkers: return "too few usable markers"
    case .notLinked: return "not linked to the other frames"
    case .markersDoNotFit: return "markers do not fit the map"
    case .motionBlur: return "motion blur"
    case .largeResidual: return "corner residual above the limit"
    case .tooLittleDepth: return "too little depth to place it"
    }
  }

  /// The reason in words, with its value.
  public var description: String {
    switch self {
    case .noMarkers: return "no markers"
    case .tooFewMarkers(let n): return "only \(n) usable marker\(n == 1 ? "" : "s")"
    case .notLinked: return "not linked to the other frames"
    case .markersDoNotFit(let mm): return String(format: "its markers do not fit the map (corner RMS %.1f mm)", mm)
    case .motionBlur(let px): return String(format: "motion blur (edges σ %.1f px)", px)
    case .largeResidual(let mm): return String(format: "corner residual %.1f mm", mm)
    case .tooLittleDepth(let n):
      return "too little depth (\(n) sticker\(n == 1 ? "" : "s") lifted by depth) and its stickers' pixels do not fit the map"
    }
  }
}
