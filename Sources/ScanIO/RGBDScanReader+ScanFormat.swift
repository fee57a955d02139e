extension ScanFormat {
  /// The recorder's stream file (docs/formats.md), recognised by its `RGBDSCAN` magic.
  public static let rgbdStream = ScanFormat(
    name: "rgbdscan", title: ".rgbdscan v1",
    summary: "the recorder's stream: one file, a JSON header, then fixed-size frames (docs/formats.md)",
    fileExtension: "rgbdscan", isFolder: false,
    detect: { ScanFormat.file($0, startsWith: RGBDScanReader.magic) },
    open: { (path: String) throws(ScanIOError) -> any ScanReader in try RGBDScanReader(path: path) },
    depthStorage: { reader in (reader as? RGBDScanReader)?.layout.depthEncoding.rawValue ?? "unknown" })
}
