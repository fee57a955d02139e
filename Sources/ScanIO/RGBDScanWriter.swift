#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
internal import _HeadScanSupport

/// Writes a `.rgbdscan` stream (docs/formats.md) frame by frame, atomically.
///
/// Frames go to a hidden temporary file beside the destination; ``finish()``
/// renames it into place. A writer dropped without `finish()` removes its
/// temporary file, so an interrupted run never leaves a half-written scan.
public final class RGBDScanWriter {
  /// Where the finished scan goes.
  public let path: String
  /// The header written at the top.
  public let header: ScanHeader
  /// How frames are stored (the header's `depth.encoding`/`color.encoding`).
  public let layout: RGBDStreamLayout
  /// Frames appended so far.
  public private(set) var frameCount = 0
  private let temporaryPath: String
  private var descriptor: Int32
  private var buffer: [UInt8]

  /// Creates the temporary file and writes the preamble and header.
  /// - Parameters:
  ///   - layout: how depth is stored; `float32` metres by default.
  /// - Throws: ``ScanIOError/cannotWrite(path:reason:)``, or a header error when `header` is unusable.
  public init(path: String, header: ScanHeader, layout: RGBDStreamLayout = RGBDStreamLayout()) throws(ScanIOError) {
    try header.validate(path: path)
    try scanIO { () throws(FileAccessError) in try AtomicFile.checkFileOutput(path) }
    self.path = path
    self.header = header
    self.layout = layout
    self.temporaryPath = AtomicFile.temporaryPath(beside: (try? AtomicFile.fileDestination(path)) ?? path)
    self.buffer = [UInt8](repeating: 0, count: layout.frameSize(for: header))
    descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
    let json = try header.jsonData(stream: layout, depthScale: nil, path: path)
    var preamble = RGBDScanReader.magic
    withUnsafeBytes(of: RGBDScanReader.version.littleEndian) { preamble += $0 }
    withUnsafeBytes(of: UInt32(json.count).littleEndian) { preamble += $0 }
    try writeAll(preamble + [UInt8](json))
  }

  deinit {
    if descriptor >= 0 {
      close(descriptor)
      unlink(temporaryPath)
    }
  }

  /// Appends one frame.
  /// - Parameters:
  ///   - timestamp: seconds.
  ///   - depthMetres: `depthWidth × depthHeight` values, metres, NaN for no depth.
  ///   - colorBGRA: `colorWidth × colorHeight × 4` bytes.
  public func append(timestamp: Double, depthMetres: [Float], colorBGRA: [UInt8]) throws(ScanIOError) {
    precondition(descriptor >= 0, "append after finish()")
    precondition(depthMetres.count == header.depthWidth * header.depthHeight, "depth sample count")
    precondition(colorBGRA.count == header.colorWidth * header.colorHeight * 4, "colour byte count")
    let encoding = layout.depthEncoding
    buffer.withUnsafeMutableBytes { raw in
      raw.storeBytes(of: timestamp.bitPattern.littleEndian, toByteOffset: 0, as: UInt64.self)
      var offset = 8
      for z in depthMetres {
        let valid = z > 0 && z.isFinite
        let stored: Float = encoding.isDisparity ? (valid ? 1 / z : 0) : (valid ? z : .nan)
        if encoding.bytesPerSample == 4 {
          raw.storeBytes(of: stored.bitPattern.littleEndian, toByteOffset: offset, as: UInt32.self)
        } else {
          raw.storeBytes(of: Float16(stored).bitPattern.littleEndian, toByteOffset: offset, as: UInt16.self)
        }
        offset += encoding.bytesPerSample
      }
      colorBGRA.withUnsafeBytes { colour in
        UnsafeMutableRawBufferPointer(rebasing: raw[offset...]).copyMemory(from: colour)
      }
    }
    try writeAll(buffer)
    frameCount += 1
  }

  /// Appends a frame read elsewhere (its index is ignored: frames are numbered by position).
  public func append(_ frame: ScanFrame) throws(ScanIOError) {
    try append(timestamp: frame.timestamp, depthMetres: frame.depth.metres, colorBGRA: frame.color.bgra)
  }

  /// Flushes, closes and renames the scan into place.
  public func finish() throws(ScanIOError) {
    precondition(descriptor >= 0, "finish() called twice")
    let synced = fsync(descriptor) == 0
    let reason = synced ? "" : String(cString: strerror(errno))
    close(descriptor)
    descriptor = -1
    guard synced else {
      unlink(temporaryPath)
      throw .cannotWrite(path: path, reason: reason)
    }
    try scanIO { () throws(FileAccessError) in try AtomicFile.commit(temporaryPath, to: path) }
  }

  private func writeAll(_ bytes: [UInt8]) throws(ScanIOError) {
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, bytes.count - done) }
      if n < 0 {
        if errno == EINTR { continue }
        throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
      }
      done += n
    }
  }
}
