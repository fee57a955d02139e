#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A read-only file descriptor with positioned reads (`pread`), safe to share between threads.
/// Inputs are only ever opened through it, so no reader can modify them.
package final class ReadOnlyFile: Sendable {
  /// The file's path as given.
  package let path: String
  private let descriptor: Int32
  /// Size in bytes when opened.
  package let size: Int

  /// Whether `path` is a regular file (a symbolic link is followed): what an input must be. A
  /// FIFO, socket or device is never opened for reading (a FIFO would block until a writer came).
  package static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }

  /// Opens a regular file for reading. The descriptor is opened without blocking, so a FIFO at
  /// `path` is refused instead of waiting for a writer.
  /// - Throws: ``FileAccessError/Failure/cannotOpen(reason:)``, also for anything but a regular file.
  package init(path: String) throws(FileAccessError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw FileAccessError(path: path, .cannotOpen(reason: String(cString: strerror(errno)))) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw FileAccessError(path: path, .cannotOpen(reason: reason))
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      close(fd)
      throw FileAccessError(path: path, .cannotOpen(reason: (info.st_mode & S_IFMT) == S_IFDIR ? "is a folder" : "not a regular file"))
    }
    self.path = path
    self.descriptor = fd
    self.size = Int(info.st_size)
  }

  deinit { close(descriptor) }

  /// Fills `buffer` from `offset`; a short file is an error, never a partial read.
  package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(FileAccessError) {
    guard let base = buffer.baseAddress else { return }
    var done = 0
    while done < buffer.count {
      let n = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
      if n < 0 {
        if errno == EINTR { continue }
        throw FileAccessError(path: path, .cannotOpen(reason: String(cString: strerror(errno))))
      }
      if n == 0 {
        throw FileAccessError(path: path, .truncated(detail: "file ended after \(offset + done) bytes while reading"))
      }
      done += n
    }
  }

  /// `count` bytes from `offset`.
  package func bytes(count: Int, at offset: Int) throws(FileAccessError) -> [UInt8] {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
    defer { buffer.deallocate() }
    let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    try read(into: slice, at: offset)
    return [UInt8](slice)
  }

  /// The whole file, opened read-only (for small files: headers, index files, images, tables).
  package static func contents(of path: String) throws(FileAccessError) -> Data {
    let file = try ReadOnlyFile(path: path)
    let bytes = try file.bytes(count: file.size, at: 0)
    return Data(bytes)
  }
}
