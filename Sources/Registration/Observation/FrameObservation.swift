import ArucoBridge
import PointCloud
import ScanIO

/// What the observation stage learns from one frame: its cap markers lifted to 3D.
public struct FrameObservation: Sendable {
  /// The frame's diagnostics so far (detections, lifting, blur); no pose, no verdict yet.
  public var diagnostics: FrameDiagnostics
  /// Its cap markers lifted to 3D (camera frame, metres).
  public var lifted: [LiftedMarker]
  /// Detections whose id is not on the cap (false positives), dropped.
  public var offCapDetections: Int
  /// Whether any depth sample is valid.
  public var hasDepth: Bool

  /// An observation.
  public init(diagnostics: FrameDiagnostics, lifted: [LiftedMarker], offCapDetections: Int, hasDepth: Bool) {
    self.diagnostics = diagnostics
    self.lifted = lifted
    self.offCapDetections = offCapDetections
    self.hasDepth = hasDepth
  }
}

/// The observation stage for one frame: markers detected (ids from `capMarkerCount` on
/// dropped), lifted to 3D with the frame's depth (camera frame, metres), and the blur across
/// their outlines measured.
/// - Parameters:
///   - frame: a frame of a scan.
///   - detector: the detector (immutable; may be shared between threads).
///   - capMarkerCount: the number of ids on the cap, `nil` when the scan does not say.
///   - sideLength: the printed markers' side, metres.
///   - options: see ``ObservationOptions``; the detector's parameters are the detector's own.
/// - Throws: `ArucoError` from the detector.
public func observeFrame(
  _ frame: ScanFrame, detector: MarkerDetector, capMarkerCount: Int?, sideLength: Double, options: ObservationOptions = .default
) throws -> FrameObservation {
  // One grey conversion for both the detector and the blur index (the same BT.601 weights as OpenCV's).
  let grey = frame.color.grey()
  let found = try detector.detect(grey: grey, width: frame.color.width, height: frame.color.height)
  return observeFrame(
    frame, grey: grey, detected: found, detector: detector, capMarkerCount: capMarkerCount, sideLength: sideLength, options: options)
}

/// The observation stage for one frame whose markers are already detected in `grey` (the
/// frame's colour image as grey levels): off-cap ids dropped, the rest lifted, the blur measured.
func observeFrame(
  _ frame: ScanFrame, grey: [UInt8], detected: [DetectedMarker], detector: MarkerDetector, capMarkerCount: Int?,
  sideLength: Double, options: ObservationOptions
) -> FrameObservation {
  var found = detected
  let before = found.count
  found.removeAll { !$0.isOnCap(capMarkerCount) }
  // Corners where the fitted border edges meet: whole edges for lifting and resection, the
  // parts next to each corner for triangulation (see LiftedMarker.triangulationCorners).
  let image = GreyImage(pixels: grey, width: frame.color.width, height: frame.color.height)
  let markers = found.compactMap { detected -> LiftedMarker? in
    let refined =
      options.refineCornersAlongEdges ? detected.refinedAlongEdges(in: image, cellsAcross: detector.cellsAcross, localSpan: 0.6) : nil
    guard
      var lifted = LiftedMarker(
        marker: refined?.whole ?? detected, depth: frame.depth, colour: frame.color.intrinsics, sideLength: sideLength,
        options: options.lifting)
    else { return nil }
    if let refined {
      lifted.triangulationCorners = refined.local.corners
      // Cells too small for the corners above: edge-fitted corners for the focal-length check alone.
      if let smallest = options.focalCheckSmallestCell,
        detected.cellSize(cellsAcross: detector.cellsAcross) < DetectedMarker.smallestRefinedCell
      {
        let edges = detected.refinedAlongEdges(in: image, cellsAcross: detector.cellsAcross, smallestCell: smallest)
        if edges.corners != detected.corners { lifted.focalCorners = edges.corners }
      }
    }
    return lifted
  }
  let diagnostics = FrameDiagnostics(
    index: frame.index, timestamp: frame.timestamp, detectedIDs: found.map(\.id),
    liftedByDepth: markers.filter { $0.method == .depth }.count, liftedByPnP: markers.filter { $0.method == .pnp }.count,
    edgeBlur: found.isEmpty ? nil : edgeBlur(of: found, grey: grey, width: frame.color.width, height: frame.color.height))
  return FrameObservation(
    diagnostics: diagnostics, lifted: markers, offCapDetections: before - found.count,
    hasDepth: frame.depth.metres.contains { $0.isFinite })
}

extension DetectedMarker {
  /// Whether the marker's id is on a cap of `capMarkerCount` stickers (ids `0..<capMarkerCount`);
  /// every id is when the cap's size is unknown.
  func isOnCap(_ capMarkerCount: Int?) -> Bool { capMarkerCount.map { id < $0 } ?? true }
}
