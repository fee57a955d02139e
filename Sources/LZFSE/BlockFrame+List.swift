extension BlockFrame {
  /// The frames of a whole stream, up to and including its end-of-stream block.
  struct List {
    /// The stream.
    var source: ByteSource
    /// Its blocks, in order; the last is the end-of-stream block.
    var blocks: [BlockFrame]
    /// The sum of the blocks' decoded lengths.
    var decodedLength: Int
  }

  /// Reads the frames of `stream` up to its end-of-stream block, stopping with
  /// ``LZFSEError/outputOverflow(limit:)`` as soon as the blocks declare more than `limit` bytes.
  static func frames(of stream: UnsafeRawBufferPointer, limit: Int) throws(LZFSEError) -> List {
    guard let base = stream.baseAddress, stream.count > 0 else { throw .missingEndOfStream(offset: 0) }
    let source = ByteSource(base: base, count: stream.count)
    var blocks: [BlockFrame] = [], offset = 0, decoded = 0
    while true {
      let frame = try read(at: offset, in: source)
      blocks.append(frame)
      if frame.kind == .endOfStream { return List(source: source, blocks: blocks, decodedLength: decoded) }
      decoded += frame.decodedLength
      guard decoded <= limit else { throw .outputOverflow(limit: limit) }
      offset = frame.end
    }
  }
}
