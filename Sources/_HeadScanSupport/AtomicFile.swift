#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// Writes files so that a reader sees either the old content or the new, never a part, and so
/// that writing never destroys anything but an earlier output.
///
/// Output goes to a temporary file in the destination's folder and is renamed over the
/// destination when complete; a failed write leaves no file behind. A file output replaces only
/// a regular file (a symbolic link is followed: its target is replaced): never a folder, a device,
/// a FIFO or a socket. A folder output replaces only a folder that headscan wrote, which it
/// knows by the marker file ``folderMarker`` it puts in every folder it writes, and only while
/// the folder holds nothing but what headscan put there (the marker lists it).
package enum AtomicFile {
  /// The hidden file in every folder headscan writes as an output (a TUM scan folder, a figures
  /// folder): a folder holding it may be replaced by the next output of the same name; any other
  /// folder is never replaced. A folder written whole (``commitFolder(_:to:)``) lists its
  /// entries in it, one a line after the first: one that holds any other entry (a file the user
  /// added) is not replaced either.
  package static let folderMarker = ".headscan-output"

  /// A fresh temporary path beside `path`, hidden, unique to this process, and remembered so
  /// that ``removeTemporaries()`` can remove what is there when the process is interrupted.
  package static func temporaryPath(beside path: String) -> String {
    let temporary = uniquePath(beside: path)
    temporaries.withLock { _ = $0.insert(temporary) }
    return temporary
  }

  /// A fresh hidden path beside `path`, unique to this process (not remembered).
  private static func uniquePath(beside path: String) -> String {
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent().path
    let random = UInt32.random(in: 0...UInt32.max)
    return folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(String(random, radix: 16))"
  }

  /// Every temporary path handed out in this process. Those already renamed into place or
  /// removed no longer exist, so removing them again does nothing.
  private static let temporaries = Locked<Set<String>>([])

  /// Removes the files and folders of the writes this process has not finished: what an
  /// interrupted command calls before it exits (``removeTemporariesOnInterrupt()``).
  package static func removeTemporaries() {
    for path in temporaries.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
  }

  /// Makes SIGINT (Ctrl-C) and SIGTERM remove the unfinished writes' temporary files and folders
  /// (``removeTemporaries()``) and then end the process with the shell's status for the signal
  /// (130, 143); without it an interrupted write leaves its hidden temporary file behind.
  /// SIGKILL and a power cut cannot be caught: a hidden `.NAME.tmp-…` may then remain.
  package static func removeTemporariesOnInterrupt() {
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setEventHandler {
        removeTemporaries()
        exit(128 + sig)
      }
      source.resume()
      signalSources.withLock { $0.append(source) }
    }
  }

  /// The signal sources of ``removeTemporariesOnInterrupt()``, kept for the process's life.
  private static let signalSources = Locked<[any DispatchSourceSignal]>([])

  /// Throws unless the folder that will hold `path` exists.
  package static func checkFolder(of path: String) throws(FileAccessError) {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
      throw FileAccessError(path: path, .cannotWrite(reason: "folder \(folder) does not exist"))
    }
  }

  /// What is at a path, not following a final symbolic link.
  package enum Existing: Equatable {
    case nothing, regularFile, folder, symbolicLink, other
  }

  /// What is at `path` (`lstat`).
  package static func existing(_ path: String) -> Existing {
    var info = stat()
    guard lstat(path, &info) == 0 else { return .nothing }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .regularFile
    case S_IFDIR: return .folder
    case S_IFLNK: return .symbolicLink
    default: return .other
    }
  }

  /// Where a file output for `path` goes: `path`, or the file a symbolic link at `path` points to.
  /// - Throws: when `path` (or the link's target) is a folder ("is a folder") or anything but a
  ///   regular file ("not a regular file"): such a path is never replaced by a file.
  package static func fileDestination(_ path: String) throws(FileAccessError) -> String {
    var destination = path
    if existing(path) == .symbolicLink {
      guard let resolved = realpath(path, nil) else {
        // A link to nothing: the file is written where it points, once its folder exists.
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? path
        return target.hasPrefix("/") ? target : URL(fileURLWithPath: path).deletingLastPathComponent().path + "/" + target
      }
      destination = String(cString: resolved)
      free(resolved)
    }
    switch existing(destination) {
    case .nothing: return destination
    case .regularFile:
      // The rename would replace a file its owner made read-only; a shell's `>` refuses that too.
      guard access(destination, W_OK) == 0 else { throw FileAccessError(path: path, .cannotWrite(reason: "the file is write-protected")) }
      return destination
    case .folder: throw FileAccessError(path: path, .cannotWrite(reason: "is a folder"))
    case .symbolicLink, .other: throw FileAccessError(path: path, .cannotWrite(reason: "not a regular file"))
    }
  }

  /// Throws unless a file can be written at `path`: its folder exists and nothing but a regular
  /// file (or a link to one) is there. Commands call this before long work.
  package static func checkFileOutput(_ path: String) throws(FileAccessError) {
    let destination = try fileDestination(path)
    try checkFolder(of: destination)
  }

  /// Throws unless a folder output can be written at `path`: its parent exists and nothing is at
  /// `path`, or a folder headscan wrote (holding ``folderMarker``).
  package static func checkFolderOutput(_ path: String) throws(FileAccessError) {
    try checkFolder(of: path)
    switch existing(path) {
    case .nothing: return
    case .folder:
      guard existing(path + "/" + folderMarker) == .regularFile else {
        throw FileAccessError(path: path, .cannotWrite(reason: "a folder headscan did not write (no \(folderMarker) in it): not replaced"))
      }
      let written = Set(((try? String(contentsOfFile: path + "/" + folderMarker, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst().map(String.init))
      let added = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0 != folderMarker && !written.contains($0) }.sorted()
      if let first = added.first {
        let more = added.count > 1 ? " and \(added.count - 1) more" : ""
        throw FileAccessError(path: path, .cannotWrite(reason: "holds \(first)\(more), not among the entries headscan wrote there: not replaced (move it out, or remove the folder)"))
      }
    case .regularFile: throw FileAccessError(path: path, .cannotWrite(reason: "is a file, not a folder"))
    case .symbolicLink, .other: throw FileAccessError(path: path, .cannotWrite(reason: "not a folder"))
    }
  }

  /// Marks `folder` as one headscan wrote (see ``folderMarker``), listing `entries` (the names
  /// in it headscan put there) in the marker.
  package static func markAsOutput(_ folder: String, entries: [String] = []) throws(FileAccessError) {
    let text = (["written by headscan"] + entries).joined(separator: "\n") + "\n"
    guard FileManager.default.createFile(atPath: folder + "/" + folderMarker, contents: Data(text.utf8)) else {
      throw FileAccessError(path: folder, .cannotWrite(reason: "cannot write \(folderMarker)"))
    }
  }

  /// Creates `folder` as an output folder (with ``folderMarker``) unless it exists; an existing
  /// folder is used as it is (files are then written into it one by one, each as a file output).
  /// - Throws: when `folder` is something other than a folder, or cannot be created.
  package static func makeOutputFolder(_ folder: String) throws(FileAccessError) {
    switch existing(folder) {
    case .folder: return
    case .nothing:
      do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      } catch {
        throw FileAccessError(path: folder, .cannotWrite(reason: "cannot create the folder: \((error as NSError).localizedDescription)"))
      }
      try markAsOutput(folder)
    case .symbolicLink:
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
        throw FileAccessError(path: folder, .cannotWrite(reason: "not a folder"))
      }
      return
    default: throw FileAccessError(path: folder, .cannotWrite(reason: "not a folder"))
    }
  }

  /// Writes `data` to `path` atomically.
  /// - Throws: ``FileAccessError/Failure/cannotWrite(reason:)``, also when `path` is a folder or
  ///   not a regular file.
  package static func write(_ data: Data, to path: String) throws(FileAccessError) {
    let destination = try fileDestination(path)
    try checkFolder(of: destination)
    let temporary = temporaryPath(beside: destination)
    do {
      try data.write(to: URL(fileURLWithPath: temporary))
    } catch {
      try? FileManager.default.removeItem(atPath: temporary)
      throw FileAccessError(path: path, .cannotWrite(reason: (error as NSError).localizedDescription))
    }
    try commit(temporary, to: path)
  }

  /// Renames a finished temporary file over `path` (or over the file a link at `path` points to).
  /// The temporary file is removed when that fails.
  /// - Throws: when `path` is a folder or not a regular file, or the rename fails.
  package static func commit(_ temporary: String, to path: String) throws(FileAccessError) {
    let destination: String
    do {
      destination = try fileDestination(path)
    } catch {
      try? FileManager.default.removeItem(atPath: temporary)
      throw error
    }
    // A replaced file of the user's own keeps its read and write permissions (a report made
    // private stays private), as writing into it would have; never set-id or sticky bits, and
    // another user's file gets the defaults (its mode would not fit the new owner).
    var existing = stat()
    if stat(destination, &existing) == 0, existing.st_uid == geteuid() { _ = chmod(temporary, existing.st_mode & 0o777) }
    guard rename(temporary, destination) == 0 else {
      let reason = String(cString: strerror(errno))
      try? FileManager.default.removeItem(atPath: temporary)
      throw FileAccessError(path: path, .cannotWrite(reason: reason))
    }
  }

  /// Renames a finished temporary folder over `path`, marking it as headscan's
  /// (``folderMarker``, listing its entries). An existing folder is replaced only when headscan
  /// wrote it and it holds nothing else; anything else at `path` is left alone and the temporary
  /// folder removed.
  package static func commitFolder(_ temporary: String, to path: String) throws(FileAccessError) {
    func failure(_ reason: String) -> FileAccessError { FileAccessError(path: path, .cannotWrite(reason: reason)) }
    do {
      try checkFolderOutput(path)
      let entries = ((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).filter { $0 != folderMarker }.sorted()
      try markAsOutput(temporary, entries: entries)
    } catch {
      try? FileManager.default.removeItem(atPath: temporary)
      throw error
    }
    guard existing(path) == .folder else {
      guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(atPath: temporary)
        throw failure(reason)
      }
      return
    }
    // rename(2) cannot replace a non-empty folder: move the old one (headscan's) aside first.
    // Not a temporary to remove on an interrupt: it holds the previous output until the rename.
    let aside = uniquePath(beside: path)
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
  }
}
