/// The header of an LZFSE-compressed block (`bvx1` or `bvx2`), unpacked and checked.
///
/// A `bvx2` header packs the fields below into three 64-bit words and stores the four
/// frequency tables with a variable-length code; a `bvx1` header stores them as plain
/// little-endian integers. Both unpack to this value.
struct CompressedBlockHeader {
  /// Literal bytes decoded from the literal stream (a multiple of 4 in valid streams).
  var literalCount = 0
  /// (L, M, D) triples in the block.
  var matchCount = 0
  /// Bytes of the literal bit stream.
  var literalPayloadLength = 0
  /// Bytes of the (L, M, D) bit stream.
  var lmdPayloadLength = 0
  /// Bits of the literal stream's last byte that are not used, as a count in `-8...0`.
  var literalBits = 0
  /// Bits of the (L, M, D) stream's last byte that are not used, as a count in `-8...0`.
  var lmdBits = 0
  /// The four interleaved literal decoders' initial states.
  var literalStates: (Int, Int, Int, Int) = (0, 0, 0, 0)
  /// The L, M and D decoders' initial states.
  var lState = 0, mState = 0, dState = 0
  /// Normalised symbol frequencies: L (20), M (20), D (64), then literals (256).
  var frequencies = [UInt16](repeating: 0, count: LZFSETables.frequencyCount)

  /// Unpacks the `bvx1` or `bvx2` header of `frame` and checks every field's range.
  init(frame: BlockFrame, source: ByteSource) throws(LZFSEError) {
    let at = frame.offset
    if frame.kind == .compressedV1 {
      literalCount = Int(source.uint32(at: at + 12))
      matchCount = Int(source.uint32(at: at + 16))
      literalPayloadLength = Int(source.uint32(at: at + 20))
      lmdPayloadLength = Int(source.uint32(at: at + 24))
      literalBits = Int(Int32(bitPattern: source.uint32(at: at + 28)))
      literalStates = (
        Int(source.uint16(at: at + 32)), Int(source.uint16(at: at + 34)),
        Int(source.uint16(at: at + 36)), Int(source.uint16(at: at + 38))
      )
      lmdBits = Int(Int32(bitPattern: source.uint32(at: at + 40)))
      lState = Int(source.uint16(at: at + 44))
      mState = Int(source.uint16(at: at + 46))
      dState = Int(source.uint16(at: at + 48))
      for i in 0..<LZFSETables.frequencyCount {
        frequencies[i] = source.uint16(at: at + 50 + 2 * i)
      }
    } else {
      let v0 = source.uint64(at: at + 8), v1 = source.uint64(at: at + 16), v2 = source.uint64(at: at + 24)
      func field(_ word: UInt64, _ offset: UInt64, _ width: UInt64) -> Int {
        Int((word >> offset) & ((1 << width) - 1))
      }
      literalCount = field(v0, 0, 20)
      literalPayloadLength = field(v0, 20, 20)
      matchCount = field(v0, 40, 20)
      literalBits = field(v0, 60, 3) - 7
      literalStates = (field(v1, 0, 10), field(v1, 10, 10), field(v1, 20, 10), field(v1, 30, 10))
      lmdPayloadLength = field(v1, 40, 20)
      lmdBits = field(v1, 60, 3) - 7
      lState = field(v2, 32, 10)
      mState = field(v2, 42, 10)
      dState = field(v2, 52, 10)
      try unpackFrequencies(from: at + BlockFrame.v2FixedHeaderLength, to: at + frame.headerLength, source: source, block: at)
    }
    try check(block: at)
  }

  /// Decodes the packed frequency tables in `start..<end`. An empty range means all
  /// frequencies are zero; otherwise the 360 codes must end in the range's last byte.
  ///
  /// Each frequency is a prefix code read from the low bits up: `..0` (2 bits) is 0 or 1,
  /// `.01` (3 bits) 2 or 3, `011` (5 bits) 4 to 7, `0111` (8 bits) 8 to 23 and
  /// `1111` (14 bits) 24 to 1047.
  private mutating func unpackFrequencies(from start: Int, to end: Int, source: ByteSource, block: Int) throws(LZFSEError) {
    guard start < end else { return }
    var accumulator: UInt32 = 0, bitCount = 0, next = start
    for i in 0..<LZFSETables.frequencyCount {
      while next < end && bitCount <= 24 {
        accumulator |= UInt32(source.byte(at: next)) << UInt32(bitCount)
        bitCount += 8
        next += 1
      }
      let (value, length) = Self.frequencyCode(accumulator)
      guard length <= bitCount else { throw .badFrequencyTable(offset: block) }
      frequencies[i] = value
      accumulator >>= UInt32(length)
      bitCount -= length
    }
    guard bitCount < 8 && next == end else { throw .badFrequencyTable(offset: block) }
  }

  /// The frequency coded in the low bits of `bits`, and the code's length in bits.
  private static func frequencyCode(_ bits: UInt32) -> (value: UInt16, length: Int) {
    if bits & 1 == 0 { return (UInt16((bits >> 1) & 1), 2) }
    if bits & 3 == 1 { return (2 + UInt16((bits >> 2) & 1), 3) }
    if bits & 7 == 3 { return (4 + UInt16((bits >> 3) & 3), 5) }
    if bits & 15 == 7 { return (8 + UInt16((bits >> 4) & 15), 8) }
    return (24 + UInt16((bits >> 4) & 0x3ff), 14)
  }

  /// Checks counts, states and bit counts against the format's limits.
  private func check(block: Int) throws(LZFSEError) {
    func require(_ condition: Bool, _ field: String) throws(LZFSEError) {
      guard condition else { throw .badBlockHeader(offset: block, field: field) }
    }
    try require(literalCount <= LZFSETables.maximumLiteralCount, "n_literals")
    try require(matchCount <= LZFSETables.maximumMatchCount, "n_matches")
    try require((-8...0).contains(literalBits), "literal_bits")
    try require((-8...0).contains(lmdBits), "lmd_bits")
    let states = [literalStates.0, literalStates.1, literalStates.2, literalStates.3]
    try require(states.allSatisfy { $0 < LZFSETables.literalStateCount }, "literal_state")
    try require(lState < LZFSETables.lStateCount, "l_state")
    try require(mState < LZFSETables.mStateCount, "m_state")
    try require(dState < LZFSETables.dStateCount, "d_state")
  }
}
