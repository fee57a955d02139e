import ArucoBridge

/// Settings of the observation stage (``observeFrame(_:detector:capMarkerCount:sideLength:options:)``,
/// ``observeScan(_:options:progress:)``): how markers are found in a frame and lifted to 3D.
public struct ObservationOptions: Sendable, Hashable {
  /// Detector parameters (sub-pixel corners by default).
  public var detector = DetectorParameters.subpixel
  /// How corners are lifted to 3D.
  public var lifting = LiftingOptions()
  /// Whether detected corners are moved to where the markers' outer border edges, fitted
  /// along their whole length, meet (`DetectedMarker.refinedAlongEdges(in:cellsAcross:span:)`).
  /// `cornerSubPix` alone leaves each corner pulled by its marker's bits, the same in every
  /// view, by 0.1–0.25 px.
  public var refineCornersAlongEdges = true
  /// Frames in a run whose first frame is searched for markers in the whole image and the rest
  /// only around the markers seen in the run's earlier frames (``observeScan(_:options:progress:)``
  /// says when a frame is searched whole again). 1 (the default) searches every frame whole. A
  /// marker coming into view is missed for up to this many − 1 frames; each run is observed on
  /// one thread, runs in parallel. 8 cut the observation's processor time by a third on an
  /// 1800-frame realistic scan but missed 0.5 % of the detections (markers coming into view
  /// within a run) and changed which markers were kept (docs/performance.md, "Session 10" and
  /// "Session 11"), so tracking is not the default.
  public var wholeImageSearchInterval = 1

  /// The defaults.
  public static let `default` = ObservationOptions()

  public init() {}
}
