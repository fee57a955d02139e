#if canImport(FoundationEssentials)
  import FoundationEssentials  // `Data` without the rest of Foundation
#else
  import Foundation
#endif

/// Decodes LZFSE streams: the `bvx2` and `bvx1` (LZFSE), `bvxn` (LZVN) and `bvx-`
/// (uncompressed) blocks up to the `bvx$` end-of-stream block, as Apple's Compression
/// framework and the reference `lzfse` tool write them.
///
/// Every call checks the whole stream: corrupt or truncated input throws an ``LZFSEError``
/// and never reads or writes outside the buffers given. Bytes after the end-of-stream block
/// are ignored, as the reference decoder does.
///
/// ```swift
/// let depth = try LZFSEDecoder.decode(compressed, expectedSize: width * height * 4)
/// ```
public enum LZFSEDecoder {
  /// The default limit of ``decode(_:maximumSize:)``: 1 GiB.
  public static let defaultMaximumSize = 1 << 30

  /// Decodes `stream`, which must decode to exactly `expectedSize` bytes.
  ///
  /// - Throws: ``LZFSEError/outputOverflow(limit:)`` when the blocks declare more bytes,
  ///   ``LZFSEError/sizeMismatch(expected:actual:)`` when fewer, or the error of the first
  ///   bad block.
  public static func decode(_ stream: Data, expectedSize: Int) throws(LZFSEError) -> [UInt8] {
    try withBytes(of: stream) { source throws(LZFSEError) in try decode(source, size: .exactly(expectedSize)) }
  }

  /// Decodes `stream`, which must decode to exactly `expectedSize` bytes.
  public static func decode(_ stream: [UInt8], expectedSize: Int) throws(LZFSEError) -> [UInt8] {
    try withBytes(of: stream) { source throws(LZFSEError) in try decode(source, size: .exactly(expectedSize)) }
  }

  /// Decodes `stream` to as many bytes as its blocks declare, at most `maximumSize`.
  ///
  /// - Throws: ``LZFSEError/outputOverflow(limit:)`` when the blocks declare more than
  ///   `maximumSize` bytes (checked before any output is allocated), or the error of the
  ///   first bad block.
  public static func decode(_ stream: Data, maximumSize: Int = defaultMaximumSize) throws(LZFSEError) -> [UInt8] {
    try withBytes(of: stream) { source throws(LZFSEError) in try decode(source, size: .atMost(maximumSize)) }
  }

  /// Decodes `stream` to as many bytes as its blocks declare, at most `maximumSize`.
  public static func decode(_ stream: [UInt8], maximumSize: Int = defaultMaximumSize) throws(LZFSEError) -> [UInt8] {
    try withBytes(of: stream) { source throws(LZFSEError) in try decode(source, size: .atMost(maximumSize)) }
  }

  /// Decodes `stream` into `destination`, which it must fill exactly (for example a
  /// `[Float]`'s bytes for a depth map of known size), and returns the number of bytes written.
  ///
  /// - Throws: as ``decode(_:expectedSize:)`` with `destination.count` as the expected size.
  ///   After an error, the contents of `destination` are unspecified.
  @discardableResult
  public static func decode(_ stream: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) throws(LZFSEError) -> Int {
    let size = StreamSize.exactly(destination.count)
    let frames = try BlockFrame.frames(of: stream, limit: size.limit)
    try size.check(declared: frames.decodedLength)
    guard let base = destination.baseAddress else {
      // An empty destination: the blocks are all empty, and decode into no room at all.
      var byte: UInt8 = 0
      return try withUnsafeMutablePointer(to: &byte) { pointer throws(LZFSEError) in
        try run(frames, output: OutputBuffer(base: pointer, writableCount: 0))
      }
    }
    return try run(frames, output: OutputBuffer(base: base.assumingMemoryBound(to: UInt8.self), writableCount: destination.count))
  }

  /// How the decoded size is constrained.
  enum StreamSize {
    case exactly(Int)
    case atMost(Int)

    /// The most bytes the stream may declare.
    var limit: Int {
      switch self {
      case .exactly(let size), .atMost(let size): size
      }
    }

    /// Checks the size the blocks declare (already at most ``limit``).
    func check(declared: Int) throws(LZFSEError) {
      if case .exactly(let expected) = self, declared != expected {
        throw .sizeMismatch(expected: expected, actual: declared)
      }
    }
  }

  /// Decodes a whole stream into a new array with room for word-wise copies at its end.
  static func decode(_ stream: UnsafeRawBufferPointer, size: StreamSize) throws(LZFSEError) -> [UInt8] {
    let frames = try BlockFrame.frames(of: stream, limit: size.limit)
    try size.check(declared: frames.decodedLength)
    var failure: LZFSEError?
    let result = [UInt8](unsafeUninitializedCapacity: frames.decodedLength + OutputBuffer.slack) { buffer, initialized in
      initialized = 0
      guard let base = buffer.baseAddress else { return }
      do throws(LZFSEError) {
        initialized = try run(frames, output: OutputBuffer(base: base, writableCount: buffer.count))
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
    return result
  }

  /// Decodes every block of `frames` into `output` (which has room for their declared sizes)
  /// and returns the number of bytes written.
  private static func run(_ frames: BlockFrame.List, output: OutputBuffer) throws(LZFSEError) -> Int {
    let source = frames.source
    var position = 0
    let compressed = CompressedBlockDecoder()
    for frame in frames.blocks {
      switch frame.kind {
      case .endOfStream:
        break
      case .uncompressed:
        if frame.decodedLength > 0 {
          (output.base + position).update(
            from: source.base.advanced(by: frame.offset + frame.headerLength).assumingMemoryBound(to: UInt8.self),
            count: frame.decodedLength)
        }
        position += frame.decodedLength
      case .lzvn:
        position = try LZVNBlockDecoder.decode(frame, source: source, into: output, at: position)
      case .compressedV1, .compressedV2:
        position = try compressed.decode(frame, source: source, into: output, at: position)
      }
    }
    return position
  }

  /// Calls `body` with the bytes of `bytes`, passing typed errors through.
  private static func withBytes<Bytes: ContiguousBytes>(
    of bytes: Bytes, _ body: (UnsafeRawBufferPointer) throws(LZFSEError) -> [UInt8]
  ) throws(LZFSEError) -> [UInt8] {
    let result: Result<[UInt8], LZFSEError> = bytes.withUnsafeBytes { buffer in
      Result { () throws(LZFSEError) in try body(buffer) }
    }
    return try result.get()
  }
}
