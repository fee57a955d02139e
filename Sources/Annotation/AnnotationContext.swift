import HeadScan

/// What a ``LandmarkProposer`` gets: the scan and its reconstruction, as the page uses them.
public struct AnnotationContext: Sendable {
  /// The open scan.
  public var scan: any ScanReader
  /// The scan registered and fused once at start (world frame, metres).
  public var reconstruction: HeadReconstruction
}
