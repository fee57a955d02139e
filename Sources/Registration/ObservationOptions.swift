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

  /// The defaults.
  public static let `default` = ObservationOptions()

  public init() {}
}
