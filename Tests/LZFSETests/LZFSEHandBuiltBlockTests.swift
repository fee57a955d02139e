import Foundation
import LZFSE
import Testing

/// Blocks built byte by byte here: `bvx-` streams, `bvx1` blocks with single-symbol tables
/// (every symbol costs zero bits, so the bit streams are all zeros and the triples follow
/// from the tables alone), and LZVN opcodes.
struct LZFSEHandBuiltBlockTests {
  static let end = Array("bvx$".utf8)

  static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
  static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }

  static func raw(_ bytes: [UInt8]) -> [UInt8] { Array("bvx-".utf8) + le32(UInt32(bytes.count)) + bytes }

  /// A `bvx1` block of `matches` triples that all decode to (`l`, `m`, `d`) with literal byte
  /// `literal`: each table gives all its states to one symbol, which then reads no bits.
  /// `lSymbol`/`mSymbol`/`dSymbol` are the symbols of those values (below 16, 16 and 4 they
  /// are the values themselves).
  static func v1Block(
    decodedSize: Int, matches: Int, literalCount: Int, literal: UInt8, lSymbol: Int, mSymbol: Int, dSymbol: Int,
    literalFrequency: UInt16 = 1024, lState: UInt16 = 0
  ) -> [UInt8] {
    // Zero bytes: the symbols read no state bits and the extra bits read are zeros. Refills
    // need a byte for each 8 bits read beyond the first 56.
    let literalPayload = [UInt8](repeating: 0, count: 8), lmdPayload = [UInt8](repeating: 0, count: 16)
    var header = Array("bvx1".utf8) + le32(UInt32(decodedSize))
    header += le32(UInt32(literalPayload.count + lmdPayload.count))  // n_payload_bytes
    header += le32(UInt32(literalCount)) + le32(UInt32(matches))
    header += le32(UInt32(literalPayload.count)) + le32(UInt32(lmdPayload.count))
    header += le32(0)  // literal_bits: the stream's last 7 bytes hold 56 bits
    header += [UInt8](repeating: 0, count: 8)  // four literal states
    header += le32(0)  // lmd_bits
    header += le16(lState) + le16(0) + le16(0)  // l, m, d states
    var frequencies = [UInt16](repeating: 0, count: 360)
    frequencies[lSymbol] = 64
    frequencies[20 + mSymbol] = 64
    frequencies[40 + dSymbol] = 256
    frequencies[104 + Int(literal)] = literalFrequency
    header += frequencies.flatMap(le16) + [0, 0]
    #expect(header.count == 772)
    return header + literalPayload + lmdPayload
  }

  /// What `matches` triples (`l` literals of `literal`, then `m` bytes from `d` back) append to
  /// `output`, executed one byte at a time.
  static func expand(_ output: [UInt8], matches: Int, l: Int, m: Int, d: Int, literal: UInt8) -> [UInt8] {
    var output = output
    for _ in 0..<matches {
      output += [UInt8](repeating: literal, count: l)
      for _ in 0..<m { output.append(output[output.count - d]) }
    }
    return output
  }

  @Test func rawBlocks() throws {
    let text = Array("headscan".utf8)
    #expect(try LZFSEDecoder.decode(Self.raw([]) + Self.end) == [])
    #expect(try LZFSEDecoder.decode(Self.raw([]) + Self.raw(text) + Self.raw([]) + Self.raw([1]) + Self.end) == text + [1])
    #expect(throws: LZFSEError.truncatedBlock(offset: 0)) { try LZFSEDecoder.decode(Array(Self.raw(text).dropLast(1))) }
    #expect(throws: LZFSEError.missingEndOfStream(offset: 16)) { try LZFSEDecoder.decode(Self.raw(text)) }
  }

  @Test func v1BlockWithZeroBitTables() throws {
    // "xyz" raw, then 5 triples of 2 literals 'A' and 6 bytes from 3 back (into the raw block).
    let prefix = Array("xyz".utf8)
    let expected = Self.expand(prefix, matches: 5, l: 2, m: 6, d: 3, literal: 65)
    let block = Self.v1Block(
      decodedSize: expected.count - 3, matches: 5, literalCount: 12, literal: 65, lSymbol: 2, mSymbol: 6, dSymbol: 3)
    #expect(try LZFSEDecoder.decode(Self.raw(prefix) + block + Self.end, expectedSize: expected.count) == expected)
  }

  @Test func v1BlockWithExtraBitValues() throws {
    // L symbol 16 is 16–19 (2 extra bits), M symbol 16 is 16–23 (3), D symbol 8 is 12–15 (2): with
    // all-zero bit streams the extra bits are zero, so each triple is (16, 16, 12).
    let expected = Self.expand(Array(repeating: 7, count: 20), matches: 3, l: 16, m: 16, d: 12, literal: 9)
    let block = Self.v1Block(
      decodedSize: expected.count - 20, matches: 3, literalCount: 48, literal: 9, lSymbol: 16, mSymbol: 16, dSymbol: 8)
    let stream = Self.raw(Array(repeating: 7, count: 20)) + block + Self.end
    #expect(try LZFSEDecoder.decode(stream, expectedSize: expected.count) == expected)
  }

  @Test func v1BlockErrors() {
    func decode(_ block: [UInt8], after prefix: [UInt8] = Array("xyz".utf8)) throws(LZFSEError) {
      _ = try LZFSEDecoder.decode(Self.raw(prefix) + block + Self.end)
    }
    let at = 11  // the bvx1 block's offset, after the 11-byte raw block
    // A distance reaching before the output: D = 3 with nothing written yet.
    #expect(throws: LZFSEError.matchDistanceOutOfRange(offset: 0, distance: 3, position: 0)) {
      _ = try LZFSEDecoder.decode(
        Self.v1Block(decodedSize: 6, matches: 1, literalCount: 0, literal: 0, lSymbol: 0, mSymbol: 6, dSymbol: 3) + Self.end)
    }
    // D symbol 0 repeats the previous distance, and the first triple has none.
    #expect(throws: LZFSEError.matchDistanceOutOfRange(offset: at, distance: -1, position: 3)) {
      try decode(Self.v1Block(decodedSize: 6, matches: 1, literalCount: 0, literal: 0, lSymbol: 0, mSymbol: 6, dSymbol: 0))
    }
    // Literal frequencies summing past 1024 states.
    #expect(throws: LZFSEError.badFrequencyTable(offset: at)) {
      try decode(
        Self.v1Block(
          decodedSize: 6, matches: 1, literalCount: 0, literal: 0, lSymbol: 0, mSymbol: 6, dSymbol: 3, literalFrequency: 1025))
    }
    // An L state past the 64 states.
    #expect(throws: LZFSEError.badBlockHeader(offset: at, field: "l_state")) {
      try decode(Self.v1Block(decodedSize: 6, matches: 1, literalCount: 0, literal: 0, lSymbol: 0, mSymbol: 6, dSymbol: 3, lState: 64))
    }
    // Triples that need more literals than the block decoded.
    #expect(throws: LZFSEError.self) {
      try decode(Self.v1Block(decodedSize: 16, matches: 2, literalCount: 4, literal: 1, lSymbol: 3, mSymbol: 5, dSymbol: 3))
    }
    // A block whose triples write less, or more, than it declares.
    #expect(throws: LZFSEError.self) {
      try decode(Self.v1Block(decodedSize: 13, matches: 2, literalCount: 0, literal: 0, lSymbol: 0, mSymbol: 6, dSymbol: 3))
    }
    #expect(throws: LZFSEError.self) {
      try decode(Self.v1Block(decodedSize: 11, matches: 2, literalCount: 0, literal: 0, lSymbol: 0, mSymbol: 6, dSymbol: 3))
    }
  }

  @Test func hugeDeclaredSizesAreRefusedBeforeAllocating() {
    // An LZVN block declaring 4 GiB - 1 from an 8-byte payload, twice: 8 GiB in 40 bytes.
    let block = Self.lzvn(Int(UInt32.max), Self.lzvnEnd)
    #expect(throws: LZFSEError.outputOverflow(limit: LZFSEDecoder.defaultMaximumSize)) {
      try LZFSEDecoder.decode(block + block + Self.end)
    }
    #expect(throws: LZFSEError.outputOverflow(limit: 1_228_800)) {
      try LZFSEDecoder.decode(block + Self.end, expectedSize: 1_228_800)
    }
  }

  @Test func dataSlicesDecode() throws {
    // A stream inside a larger buffer (as an archive entry read into memory might be).
    let stream = Self.raw(Array("depth".utf8)) + Self.end
    let data = Data([1, 2, 3] + stream + [4])
    let slice = data[3..<(3 + stream.count)]
    #expect(try LZFSEDecoder.decode(slice, expectedSize: 5) == Array("depth".utf8))
  }

  static func lzvn(_ decodedSize: Int, _ payload: [UInt8]) -> [UInt8] {
    Array("bvxn".utf8) + le32(UInt32(decodedSize)) + le32(UInt32(payload.count)) + payload
  }

  static let lzvnEnd: [UInt8] = [6, 0, 0, 0, 0, 0, 0, 0]

  @Test func lzvnOpcodes() throws {
    let payload: [UInt8] =
      [0xE3] + Array("abc".utf8)  // 3 literals
      + [0b01_001_000, 3]  // small distance: 1 literal "d", 4 bytes from 3 back
      + Array("d".utf8)
      + [0xF2]  // match only, previous distance: 2 bytes
      + [0x0E]  // no operation
      + [0b00_000_111, 0x01, 0x00]  // large distance 1: 3 bytes
      + [0b101_01_000, 0b000001_10, 0]  // medium: 1 literal "e", M = (0 << 2 | 2) + 3 = 5, D = 1
      + Array("e".utf8)
      + [0xE0, 0]  // 16 literals
      + Array("0123456789abcdef".utf8)
      + [0b01_000_110]  // previous distance (1): 1 literal "!", 3 bytes
      + Array("!".utf8)
      + [0xF0, 1]  // 17 bytes, distance 1
      + Self.lzvnEnd
    var expected = Array("abcd".utf8)
    func copy(_ count: Int, from distance: Int) {
      for _ in 0..<count { expected.append(expected[expected.count - distance]) }
    }
    copy(4, from: 3)
    copy(2, from: 3)
    copy(3, from: 1)
    expected += Array("e".utf8)
    copy(5, from: 1)
    expected += Array("0123456789abcdef!".utf8)
    copy(3, from: 1)
    copy(17, from: 1)
    #expect(try LZFSEDecoder.decode(Self.lzvn(expected.count, payload) + Self.end, expectedSize: expected.count) == expected)
  }

  @Test func lzvnErrors() {
    func decode(_ size: Int, _ payload: [UInt8]) throws(LZFSEError) {
      _ = try LZFSEDecoder.decode(Self.lzvn(size, payload) + Self.end)
    }
    #expect(throws: LZFSEError.corruptPayload(offset: 0, detail: "undefined LZVN opcode 112")) {
      try decode(1, [0x70] + Self.lzvnEnd)
    }
    #expect(throws: LZFSEError.matchDistanceOutOfRange(offset: 0, distance: 0, position: 1)) {
      try decode(4, [0xE1, 1, 0xF3] + Self.lzvnEnd)  // a match before any distance
    }
    #expect(throws: LZFSEError.matchDistanceOutOfRange(offset: 0, distance: 5, position: 1)) {
      try decode(5, [0b01_001_000, 5, 1] + Self.lzvnEnd)
    }
    #expect(throws: LZFSEError.self) { try decode(3, [0xE3, 1, 2, 3]) }  // no end-of-stream opcode
    #expect(throws: LZFSEError.self) { try decode(4, [0xE3, 1, 2, 3] + Self.lzvnEnd) }  // one byte short
    #expect(throws: LZFSEError.self) { try decode(2, [0xE3, 1, 2, 3] + Self.lzvnEnd) }  // one byte long
    #expect(throws: LZFSEError.self) { try decode(3, [0xE3, 1, 2, 3] + Self.lzvnEnd + [0]) }  // payload past the end opcode
  }
}
