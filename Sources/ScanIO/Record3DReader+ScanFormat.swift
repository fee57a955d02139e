import Foundation

extension ScanFormat {
  /// A Record3D `.r3d` export (see ``Record3DReader``), recognised as a ZIP archive that holds
  /// a `metadata` entry; the cap comes from `NAME.cap.json` or ``ScanOpenOptions/cap``.
  public static let record3D = ScanFormat(
    name: "r3d", title: "Record3D .r3d",
    summary: "a Record3D app export: a ZIP archive of metadata JSON, per-frame JPEG colour and LZFSE-compressed depth; the cap from NAME.cap.json or --cap",
    fileExtension: "r3d", isFolder: false,
    detect: { path in
      guard ScanFormat.file(path, startsWith: Record3DReader.zipMagic) else { return false }
      return (try? Record3DArchive(path: path))?.contains(Record3DReader.metadataEntry) ?? false
    },
    openWithOptions: { (path: String, options: ScanOpenOptions) throws(ScanIOError) -> any ScanReader in
      try Record3DReader(path: path, options: options)
    },
    depthStorage: { reader in
      guard let r3d = reader as? Record3DReader else { return "unknown" }
      let confidence = r3d.confidenceFrames == 0 ? "no confidence maps" : "confidence ≥ \(r3d.minimumConfidence) kept"
      return "LZFSE float32 (\(confidence))"
    })
}
