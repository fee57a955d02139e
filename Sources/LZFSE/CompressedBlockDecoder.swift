/// Decodes LZFSE-compressed blocks (`bvx1`, `bvx2`): first all the block's literals from
/// their four interleaved FSE streams, then the (L, M, D) triples, each copying L literals
/// and an M-byte match from D bytes back.
///
/// Owns the decoding tables and the literal buffer, allocated once and reused by every block
/// of a stream.
struct CompressedBlockDecoder: ~Copyable {
  /// The block's literals, with room for wide copies past the last.
  private let literals: UnsafeMutablePointer<UInt8>
  private let literalTable: UnsafeMutablePointer<UInt32>
  private let lTable: UnsafeMutablePointer<ValueDecoderEntry>
  private let mTable: UnsafeMutablePointer<ValueDecoderEntry>
  private let dTable: UnsafeMutablePointer<ValueDecoderEntry>

  /// Bytes of the literal buffer: the most literals a block holds, plus room for 16-byte reads.
  private static let literalCapacity = LZFSETables.maximumLiteralCount + 64

  init() {
    literals = .allocate(capacity: Self.literalCapacity)
    literals.initialize(repeating: 0, count: Self.literalCapacity)
    literalTable = .allocate(capacity: LZFSETables.literalStateCount)
    literalTable.initialize(repeating: 0, count: LZFSETables.literalStateCount)
    let empty = ValueDecoderEntry(totalBits: 0, valueBits: 0, delta: 0, base: 0)
    lTable = .allocate(capacity: LZFSETables.lStateCount)
    lTable.initialize(repeating: empty, count: LZFSETables.lStateCount)
    mTable = .allocate(capacity: LZFSETables.mStateCount)
    mTable.initialize(repeating: empty, count: LZFSETables.mStateCount)
    dTable = .allocate(capacity: LZFSETables.dStateCount)
    dTable.initialize(repeating: empty, count: LZFSETables.dStateCount)
  }

  deinit {
    literals.deallocate()
    literalTable.deallocate()
    lTable.deallocate()
    mTable.deallocate()
    dTable.deallocate()
  }

  /// Decodes the block `frame` of `source` into `output` at `position`, where the caller has
  /// checked that `frame.decodedLength` bytes fit. Returns the position after the block.
  func decode(
    _ frame: BlockFrame, source: ByteSource, into output: OutputBuffer, at position: Int
  ) throws(LZFSEError) -> Int {
    let header = try CompressedBlockHeader(frame: frame, source: source)
    try fillTables(header, block: frame.offset)
    let literalStart = frame.offset + frame.headerLength
    let literalCount = try decodeLiterals(header, source: source, end: literalStart + header.literalPayloadLength, block: frame.offset)
    let lmdStart = literalStart + header.literalPayloadLength
    return try decodeTriples(
      header, source: source, lmd: lmdStart..<(lmdStart + header.lmdPayloadLength), literalCount: literalCount,
      output: output, start: position, end: position + frame.decodedLength, block: frame.offset)
  }

  private func fillTables(_ header: CompressedBlockHeader, block: Int) throws(LZFSEError) {
    let f = header.frequencies
    let l = 0..<LZFSETables.lSymbolCount
    let m = l.upperBound..<(l.upperBound + LZFSETables.mSymbolCount)
    let d = m.upperBound..<(m.upperBound + LZFSETables.dSymbolCount)
    let literal = d.upperBound..<LZFSETables.frequencyCount
    guard
      LZFSETables.fillValueTable(
        lTable, stateCount: LZFSETables.lStateCount, frequencies: f[l], extraBits: LZFSETables.lExtraBits,
        baseValues: LZFSETables.lBaseValues),
      LZFSETables.fillValueTable(
        mTable, stateCount: LZFSETables.mStateCount, frequencies: f[m], extraBits: LZFSETables.mExtraBits,
        baseValues: LZFSETables.mBaseValues),
      LZFSETables.fillValueTable(
        dTable, stateCount: LZFSETables.dStateCount, frequencies: f[d], extraBits: LZFSETables.dExtraBits,
        baseValues: LZFSETables.dBaseValues),
      LZFSETables.fillLiteralTable(literalTable, stateCount: LZFSETables.literalStateCount, frequencies: f[literal])
    else { throw .badFrequencyTable(offset: block) }
  }

  /// Decodes the literals, four at a time from four interleaved states, into `literals`.
  /// Returns how many were decoded (the header's count rounded up to a multiple of 4).
  ///
  /// Like the reference decoder, the literal stream may read back to the start of the
  /// compressed stream: its last refills can take a few bytes before its first.
  private func decodeLiterals(_ header: CompressedBlockHeader, source: ByteSource, end: Int, block: Int) throws(LZFSEError) -> Int {
    guard var reader = BackwardBitReader(source: source, lowerBound: 0, end: end, unusedBits: header.literalBits) else {
      throw .corruptPayload(offset: block, detail: "literal bit stream does not start")
    }
    let table = literalTable, mask = LZFSETables.literalStateCount - 1
    var (s0, s1, s2, s3) = header.literalStates
    @inline(__always) func next(_ state: inout Int) -> UInt8 {
      let entry = table[state]
      state = (Int(entry &>> 16) &+ Int(truncatingIfNeeded: reader.pull(Int(entry & 0xff)))) & mask
      return UInt8(truncatingIfNeeded: entry &>> 8)
    }
    let count = (header.literalCount + 3) & ~3
    var i = 0
    while i < count {
      guard reader.refill() else { throw .corruptPayload(offset: block, detail: "literal bit stream runs out") }
      literals[i] = next(&s0)
      literals[i &+ 1] = next(&s1)
      literals[i &+ 2] = next(&s2)
      literals[i &+ 3] = next(&s3)
      i &+= 4
    }
    return count
  }

  /// Runs the (L, M, D) triples: each copies L literals, then M bytes from D back (D = 0
  /// repeats the previous distance; the block's first triple must give one).
  private func decodeTriples(
    _ header: CompressedBlockHeader, source: ByteSource, lmd: Range<Int>, literalCount: Int,
    output: OutputBuffer, start: Int, end: Int, block: Int
  ) throws(LZFSEError) -> Int {
    guard var reader = BackwardBitReader(source: source, lowerBound: lmd.lowerBound, end: lmd.upperBound, unusedBits: header.lmdBits)
    else { throw .corruptPayload(offset: block, detail: "L, M, D bit stream does not start") }
    var lState = header.lState, mState = header.mState, dState = header.dState
    @inline(__always) func value(_ table: UnsafeMutablePointer<ValueDecoderEntry>, _ state: inout Int, _ mask: Int) -> Int {
      let entry = table[state]
      let bits = reader.pull(Int(entry.totalBits))
      let valueBits = UInt64(entry.valueBits)
      // At most 23 bits were read, so the conversions below cannot trap.
      state = (Int(entry.delta) &+ Int(truncatingIfNeeded: bits &>> valueBits)) & mask
      return Int(entry.base) &+ Int(truncatingIfNeeded: bits & ((1 &<< valueBits) &- 1))
    }
    let lMask = LZFSETables.lStateCount - 1, mMask = LZFSETables.mStateCount - 1, dMask = LZFSETables.dStateCount - 1
    var position = start, literal = 0, distance = -1
    for _ in 0..<header.matchCount {
      guard reader.refill() else { throw .corruptPayload(offset: block, detail: "L, M, D bit stream runs out") }
      // Table values are bounded: L <= 315, M <= 2359, D <= 262139, so no sum below overflows.
      let l = value(lTable, &lState, lMask)
      let m = value(mTable, &mState, mMask)
      let d = value(dTable, &dState, dMask)
      if d != 0 { distance = d }
      guard l <= literalCount - literal else {
        throw .corruptPayload(offset: block, detail: "literals run past the \(literalCount) decoded")
      }
      guard l + m <= end - position else {
        throw .corruptPayload(offset: block, detail: "block decodes past its declared \(end - start) bytes")
      }
      guard distance >= 1, distance <= position + l else {
        throw .matchDistanceOutOfRange(offset: block, distance: distance, position: position + l)
      }
      let wide = position + l + m + OutputBuffer.slack <= output.writableCount
      output.copyLiteral(from: literals + literal, to: position, count: l, wide: wide)
      position += l
      literal += l
      if m > 0 { output.copyMatch(to: position, distance: distance, count: m, wide: wide) }
      position += m
    }
    guard position == end else {
      throw .corruptPayload(offset: block, detail: "block decodes to \(position - start) bytes, its header declares \(end - start)")
    }
    return position
  }
}
