#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes files so that a reader sees either the old content or the new, never a part.
///
/// Output goes to a temporary file in the destination's folder and is renamed
/// over the destination when complete; a failed write leaves no file behind.
package enum AtomicFile {
  /// A fresh temporary path beside `path`, hidden, unique to this process.
  package static func temporaryPath(beside path: String) -> String {
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent().path
    let random = UInt32.random(in: 0...UInt32.max)
    return folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(String(random, radix: 16))"
  }

  /// Throws unless the folder that will hold `path` exists.
  package static func checkFolder(of path: String) throws(FileAccessError) {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
      throw FileAccessError(path: path, .cannotWrite(reason: "folder \(folder) does not exist"))
    }
  }

  /// Writes `data` to `path` atomically.
  /// - Throws: ``FileAccessError/Failure/cannotWrite(reason:)``.
  package static func write(_ data: Data, to path: String) throws(FileAccessError) {
    try checkFolder(of: path)
    let temporary = temporaryPath(beside: path)
    do {
      try data.write(to: URL(fileURLWithPath: temporary))
    } catch {
      try? FileManager.default.removeItem(atPath: temporary)
      throw FileAccessError(path: path, .cannotWrite(reason: (error as NSError).localizedDescription))
    }
    try commit(temporary, to: path)
  }

  /// Renames a finished temporary file or folder over `path` (replacing a folder there).
  package static func commit(_ temporary: String, to path: String) throws(FileAccessError) {
    func failure(_ reason: String) -> FileAccessError { FileAccessError(path: path, .cannotWrite(reason: reason)) }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      // rename(2) cannot replace a non-empty folder: move the old one aside first.
      let aside = temporaryPath(beside: path)
      guard rename(path, aside) == 0 else {
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(atPath: temporary)
        throw failure(reason)
      }
      guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        _ = rename(aside, path)
        try? FileManager.default.removeItem(atPath: temporary)
        throw failure(reason)
      }
      try? FileManager.default.removeItem(atPath: aside)
      return
    }
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      try? FileManager.default.removeItem(atPath: temporary)
      throw failure(reason)
    }
  }
}
