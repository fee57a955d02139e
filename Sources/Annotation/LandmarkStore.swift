import Foundation
import HeadScan
import _HeadScanSupport

/// The one file the page writes: `NAME.landmarks.json` (docs/formats.md), replaced atomically, the
/// previous version kept as `NAME.landmarks.json.bak`.
public struct LandmarkStore: Sendable {
  /// The landmarks file.
  public var path: String
  /// Where the previous version goes on each save: ``path`` + `.bak`.
  public var backupPath: String { path + ".bak" }

  public init(path: String) { self.path = path }

  /// The file's landmarks, `nil` when there is no file yet.
  /// - Throws: `ScanIOError` naming the file when it exists but is not a valid landmarks file.
  public func load() throws -> LandmarkFile? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    return try LandmarkFile(path: path)
  }

  /// Checks `file` against the scan (frames exist, pixels inside the images), then writes it:
  /// the current file (if any) is first copied to ``backupPath``, then replaced; each write atomic.
  /// - Returns: the backup's path when there was a previous file.
  /// - Throws: `LandmarkError` for a landmark outside the scan; `FileAccessError` when writing fails.
  /// - Throws: `FileProblem` when the landmarks file now leads (through a link made while the page
  ///   was open) to the scan or into its folder: the write would replace the scan.
  @discardableResult
  public func save(_ file: LandmarkFile, scan: any ScanReader) throws -> String? {
    try checkLandmarks(file, path: path, scan: scan)
    let source = resolvedPath(scan.path)
    for file in [path, backupPath] {
      let target = resolvedPath(file)
      if target == source || target.hasPrefix(source + "/") {
        throw FileProblem(path: file, problem: "leads to the scan \(scan.path): refusing to write the landmarks over it")
      }
    }
    var backup: String?
    if FileManager.default.fileExists(atPath: path) {
      try AtomicFile.write(try ReadOnlyFile.contents(of: path), to: backupPath)
      backup = backupPath
    }
    try AtomicFile.write(file.jsonData(), to: path)
    return backup
  }
}
