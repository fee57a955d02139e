import ScanIO

/// Where ``measureScan(at:landmarks:options:progress:)`` takes the head frame from.
public enum LandmarkSource: Sendable, Hashable {
  /// A landmarks file (docs/formats.md, "Landmarks").
  case file(String)
  /// The landmarks file beside the scan: its companion name plus `.landmarks.json`
  /// (`scans/infant.rgbdscan` → `scans/infant.landmarks.json`).
  case besideScan
  /// No landmarks: the experimental automatic head frame (the head's mirror symmetry and the
  /// cap's axis; see `AutomaticHeadFrame`). A few degrees off the landmarks' frame, which
  /// moves CVAI by points on asymmetric heads: use landmarks for clinical numbers.
  case automaticFrame
  /// No landmarks file: the four landmarks found on the reconstruction (`detectLandmarks`),
  /// refused, naming the landmark, when one is found with too little confidence
  /// (`AutomaticLandmarks.minimumConfidence`). `measure --landmarks auto`.
  case automaticLandmarks

  /// The landmarks file this source reads for the scan at `scanPath`; `nil` for the automatic
  /// frame and automatic landmarks.
  public func path(forScan scanPath: String) -> String? {
    switch self {
    case .file(let path): return path
    case .besideScan: return companionBase(of: scanPath) + ".landmarks.json"
    case .automaticFrame, .automaticLandmarks: return nil
    }
  }
}
