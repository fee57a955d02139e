/// How to open a scan: what to assume where its format records nothing, and how to filter.
///
/// The default finds a cap sidecar (`NAME.cap.json`) beside a scan that needs one and keeps
/// Record3D depth of medium and high confidence.
public struct ScanOpenOptions: Sendable, Hashable {
  /// The cap to use for a scan whose format does not record it (a Record3D `.r3d`); `nil`:
  /// read the sidecar `NAME.cap.json` beside the scan. Formats that record the cap
  /// (`.rgbdscan`, TUM folders) keep their own and ignore this.
  public var cap: ScanCap?
  /// The lowest Record3D depth confidence kept (0 low, 1 medium, 2 high): depth pixels whose
  /// `rgbd/<i>.conf` value is below it become "no depth". Frames without a confidence map
  /// keep all their depth. Default 1: drop only low-confidence depth.
  public var minimumConfidence: UInt8 = 1

  /// The defaults: cap from the sidecar, confidence ≥ 1.
  public static let `default` = ScanOpenOptions()

  public init(cap: ScanCap? = nil, minimumConfidence: UInt8 = 1) {
    self.cap = cap
    self.minimumConfidence = minimumConfidence
  }
}
