import ArucoBridge

/// Settings of the observation stage (``observeFrame(_:detector:capMarkerCount:sideLength:options:)``,
/// ``observeScan(_:options:progress:)``): how markers are found in a frame and lifted to 3D.
public struct ObservationOptions: Sendable, Hashable {
  /// Detector parameters: sub-pixel corners, and adaptive-threshold windows of 13 and 23 px
  /// instead of OpenCV's 3, 13 and 23 (a 3 px window only outlines edges, finer than a sticker's
  /// cell; dropping it makes detection about a fifth faster, docs/performance.md).
  public var detector: DetectorParameters = {
    var p = DetectorParameters.subpixel
    p.adaptiveThreshWinSizeMin = 13
    return p
  }()
  /// How corners are lifted to 3D.
  public var lifting = LiftingOptions()
  /// Whether detected corners are moved to where the markers' outer border edges, fitted
  /// along their whole length, meet (`DetectedMarker.refinedAlongEdges(in:cellsAcross:span:)`).
  /// `cornerSubPix` alone leaves each corner pulled by its marker's bits, the same in every
  /// view, by 0.1–0.25 px.
  public var refineCornersAlongEdges = true

  /// The defaults.
  public static let `default` = ObservationOptions()

  public init() {}
}
