#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A read-only file descriptor with positioned reads (`pread`), safe to share between threads.
/// Inputs are only ever opened through it, so no reader can modify them.
public final class ReadOnlyFile: @unchecked Sendable {
  let path: String
  let descriptor: Int32
  let size: Int

  init(path: String) throws(ScanIOError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw .cannotOpen(path: path, reason: reason)
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      close(fd)
      throw .cannotOpen(path: path, reason: "not a regular file")
    }
    self.path = path
    self.descriptor = fd
    self.size = Int(info.st_size)
  }

  deinit { close(descriptor) }

  /// Fills `buffer` from `offset`; a short file is an error, never a partial read.
  func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(ScanIOError) {
    var done = 0
    while done < buffer.count {
      let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
      if n < 0 {
        if errno == EINTR { continue }
        throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
      }
      if n == 0 {
        throw .sizeMismatch(path: path, detail: "file ended after \(offset + done) bytes while reading")
      }
      done += n
    }
  }

  /// `count` bytes from `offset`.
  func bytes(count: Int, at offset: Int) throws(ScanIOError) -> [UInt8] {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
    defer { buffer.deallocate() }
    let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    try read(into: slice, at: offset)
    return [UInt8](slice)
  }

  /// The whole file, opened read-only (for small files: headers, index files, images, tables).
  public static func contents(of path: String) throws(ScanIOError) -> Data {
    let file = try ReadOnlyFile(path: path)
    let bytes = try file.bytes(count: file.size, at: 0)
    return Data(bytes)
  }
}

/// Writes files so that a reader sees either the old content or the new, never a part.
///
/// Output goes to a temporary file in the destination's folder and is renamed
/// over the destination when complete; a failed write leaves no file behind.
public enum AtomicFile {
  /// A fresh temporary path beside `path`, hidden, unique to this process.
  public static func temporaryPath(beside path: String) -> String {
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent().path
    let random = UInt32.random(in: 0...UInt32.max)
    return folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(String(random, radix: 16))"
  }

  /// Throws unless the folder that will hold `path` exists.
  public static func checkFolder(of path: String) throws(ScanIOError) {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
      throw .cannotWrite(path: path, reason: "folder \(folder) does not exist")
    }
  }

  /// Writes `data` to `path` atomically.
  /// - Throws: ``ScanIOError/cannotWrite(path:reason:)``.
  public static func write(_ data: Data, to path: String) throws(ScanIOError) {
    try checkFolder(of: path)
    let temporary = temporaryPath(beside: path)
    do {
      try data.write(to: URL(fileURLWithPath: temporary))
    } catch {
      try? FileManager.default.removeItem(atPath: temporary)
      throw .cannotWrite(path: path, reason: (error as NSError).localizedDescription)
    }
    try commit(temporary, to: path)
  }

  /// Renames a finished temporary file or folder over `path` (replacing a folder there).
  public static func commit(_ temporary: String, to path: String) throws(ScanIOError) {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      // rename(2) cannot replace a non-empty folder: move the old one aside first.
      let aside = temporaryPath(beside: path)
      guard rename(path, aside) == 0 else {
        try? FileManager.default.removeItem(atPath: temporary)
        throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
      }
      guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        _ = rename(aside, path)
        try? FileManager.default.removeItem(atPath: temporary)
        throw .cannotWrite(path: path, reason: reason)
      }
      try? FileManager.default.removeItem(atPath: aside)
      return
    }
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      try? FileManager.default.removeItem(atPath: temporary)
      throw .cannotWrite(path: path, reason: reason)
    }
  }
}
