/// The kind of an LZFSE block, from its four magic bytes (`bvx` and one more, little-endian).
enum BlockKind: UInt32 {
  /// `bvx$`: the end of the stream.
  case endOfStream = 0x2478_7662
  /// `bvx-`: the block's bytes stored as they are.
  case uncompressed = 0x2d78_7662
  /// `bvx1`: LZFSE-compressed, header and frequency tables stored unpacked.
  case compressedV1 = 0x3178_7662
  /// `bvx2`: LZFSE-compressed, header fields and frequency tables packed.
  case compressedV2 = 0x3278_7662
  /// `bvxn`: LZVN-compressed.
  case lzvn = 0x6e78_7662
}

/// Where one block lies in the stream and how many bytes it decodes to, read from the
/// fixed part of its header only (the frequency tables are not touched).
///
/// Reading the frames of a whole stream is cheap (a few loads a block) and tells the decoded
/// size before any decoding; a frame that comes back lies wholly inside the stream.
struct BlockFrame {
  /// The block's kind.
  var kind: BlockKind
  /// The offset of the block's magic number in the stream.
  var offset: Int
  /// The length of the header, magic included, in bytes.
  var headerLength: Int
  /// The length of the payload after the header, in bytes.
  var payloadLength: Int
  /// The number of bytes the block decodes to.
  var decodedLength: Int

  /// The offset of the first byte after the block.
  var end: Int { offset + headerLength + payloadLength }

  /// The length of a `bvx1` header: the unpacked fields and 360 `UInt16` frequencies, padded to 4 bytes.
  static let v1HeaderLength = 772
  /// The length of a `bvx2` header without its packed frequency tables.
  static let v2FixedHeaderLength = 32

  /// Reads the frame of the block at `offset` in `source`.
  static func read(at offset: Int, in source: ByteSource) throws(LZFSEError) -> BlockFrame {
    let available = source.count - offset
    guard available >= 4 else {
      throw available == 0 ? .missingEndOfStream(offset: offset) : .truncatedBlock(offset: offset)
    }
    let magic = source.uint32(at: offset)
    guard let kind = BlockKind(rawValue: magic) else { throw .badMagic(offset: offset, magic: magic) }

    var frame = BlockFrame(kind: kind, offset: offset, headerLength: 4, payloadLength: 0, decodedLength: 0)
    switch kind {
    case .endOfStream:
      return frame
    case .uncompressed:
      guard available >= 8 else { throw .truncatedBlock(offset: offset) }
      frame.headerLength = 8
      frame.decodedLength = Int(source.uint32(at: offset + 4))
      frame.payloadLength = frame.decodedLength
    case .lzvn:
      guard available >= 12 else { throw .truncatedBlock(offset: offset) }
      frame.headerLength = 12
      frame.decodedLength = Int(source.uint32(at: offset + 4))
      frame.payloadLength = Int(source.uint32(at: offset + 8))
    case .compressedV1:
      guard available >= v1HeaderLength else { throw .truncatedBlock(offset: offset) }
      frame.headerLength = v1HeaderLength
      frame.decodedLength = Int(source.uint32(at: offset + 4))
      frame.payloadLength = Int(source.uint32(at: offset + 20)) + Int(source.uint32(at: offset + 24))
    case .compressedV2:
      guard available >= v2FixedHeaderLength else { throw .truncatedBlock(offset: offset) }
      frame.headerLength = Int(source.uint32(at: offset + 24))
      guard frame.headerLength >= v2FixedHeaderLength else {
        throw .badBlockHeader(offset: offset, field: "header_size")
      }
      frame.decodedLength = Int(source.uint32(at: offset + 4))
      let literalPayload = (source.uint64(at: offset + 8) >> 20) & 0xF_FFFF
      let lmdPayload = (source.uint64(at: offset + 16) >> 40) & 0xF_FFFF
      frame.payloadLength = Int(literalPayload + lmdPayload)
    }
    // All lengths come from 32-bit fields, so these sums cannot overflow `Int`.
    guard frame.headerLength + frame.payloadLength <= available else { throw .truncatedBlock(offset: offset) }
    return frame
  }
}
