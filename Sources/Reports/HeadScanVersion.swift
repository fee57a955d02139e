/// The version of the headscan library and command line, written into every report.
public enum HeadScanVersion {
  /// Semantic version, `major.minor.patch`.
  public static let current = "0.6.0"
}
