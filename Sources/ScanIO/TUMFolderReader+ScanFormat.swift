import Foundation

extension ScanFormat {
  /// A TUM-style folder (docs/formats.md, "TUM-style folder"), recognised by its `rgb.txt` index.
  public static let tumFolder = ScanFormat(
    name: "tum", title: "TUM folder",
    summary: "a folder of PNG/JPEG colour and 16-bit PNG depth images with TUM index files and camera.json (docs/formats.md)",
    fileExtension: nil, isFolder: true,
    detect: { FileManager.default.fileExists(atPath: ScanFormat.trimmed($0) + "/rgb.txt") },
    open: { (path: String) throws(ScanIOError) -> any ScanReader in try TUMFolderReader(path: path) },
    depthStorage: { _ in "16-bit PNG" })
}
