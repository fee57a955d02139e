import Foundation
import LZFSE
import Testing
import _HeadScanSupport

/// Truncated and corrupted streams give a typed error (or, for a corruption the format cannot
/// detect, some output of the declared size), never a crash or an out-of-bounds access.
struct LZFSECorruptionTests {
  /// Decodes `stream` through the growing entry point and the exact-size one; returns whether
  /// it decoded. Any error that escapes is not an ``LZFSEError`` and fails the test.
  @discardableResult
  func decodeOrTypedError(_ stream: [UInt8], expectedSize: Int) -> Bool {
    var decoded = false
    do throws(LZFSEError) {
      let output = try LZFSEDecoder.decode(stream, maximumSize: 1 << 24)
      decoded = true
      #expect(output.count <= 1 << 24)
    } catch {
      #expect(!error.description.contains("\n"))
    }
    do throws(LZFSEError) {
      let output = try LZFSEDecoder.decode(stream, expectedSize: expectedSize)
      #expect(output.count == expectedSize)
    } catch {
      #expect(error.description.hasPrefix("LZFSE: "))
    }
    return decoded
  }

  /// Every prefix of a stream lacks its end-of-stream block, so each is an error that says
  /// the stream is truncated (found before any block is decoded).
  @Test(arguments: LZFSEVector.all)
  func everyTruncationIsATypedError(_ vector: LZFSEVector) {
    let count = vector.compressed.count
    // Every length for small streams; for large ones every 37th and the last 300.
    let lengths = (0..<count).filter { count <= 4000 || $0 % 37 == 0 || $0 > count - 300 }
    for length in lengths {
      let prefix = Array(vector.compressed[..<length])
      do {
        _ = try LZFSEDecoder.decode(prefix, expectedSize: vector.raw.count)
        Issue.record("\(vector.name) cut at \(length) bytes decoded")
      } catch {
        switch error {
        case .truncatedBlock, .missingEndOfStream: break
        default: Issue.record("\(vector.name) cut at \(length): \(error)")
        }
      }
    }
  }

  /// Seeded random corruptions (one to four bytes changed), a few hundred per vector.
  @Test(arguments: LZFSEVector.all.filter { !$0.raw.isEmpty })
  func corruptedBytesGiveATypedErrorOrOutput(_ vector: LZFSEVector) {
    var generator = SeededGenerator(state: UInt64(vector.compressed.count) &* 7919)
    let trials = vector.compressed.count > 20_000 ? 150 : 400
    var failures = 0
    for _ in 0..<trials {
      var stream = vector.compressed
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        let at = Int.random(in: 0..<stream.count, using: &generator)
        if Bool.random(using: &generator) {
          stream[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
        } else {
          stream[at] = UInt8.random(in: 0...255, using: &generator)
        }
      }
      if !decodeOrTypedError(stream, expectedSize: vector.raw.count) { failures += 1 }
    }
    // Raw blocks hide most changes; compressed ones must catch some.
    if vector.blocks.contains(where: { $0 == "bvx2" || $0 == "bvx1" }) {
      #expect(failures > 0, "no corruption of \(vector.name) was detected")
    }
  }

  /// Changes in the headers (the first bytes of each block) are the most dangerous: sizes,
  /// counts, states and table codes. Every byte of the first 64, every value of a few.
  @Test(arguments: LZFSEVector.all.filter { $0.blocks.first == "bvx2" || $0.blocks.first == "bvxn" })
  func everyHeaderByteChangedGivesATypedErrorOrOutput(_ vector: LZFSEVector) {
    for at in 0..<min(64, vector.compressed.count) {
      for value: UInt8 in [0, 1, 0x7f, 0x80, 0xff, vector.compressed[at] ^ 0x10] {
        var stream = vector.compressed
        stream[at] = value
        decodeOrTypedError(stream, expectedSize: vector.raw.count)
      }
    }
  }

  @Test func errorDescriptionsAreOneLineWithoutAPath() {
    let errors: [LZFSEError] = [
      .truncatedBlock(offset: 12), .missingEndOfStream(offset: 40), .badMagic(offset: 0, magic: 0x3378_7662),
      .badMagic(offset: 8, magic: 0x0102_0304), .badBlockHeader(offset: 0, field: "l_state"),
      .badFrequencyTable(offset: 0), .corruptPayload(offset: 0, detail: "x"),
      .matchDistanceOutOfRange(offset: 0, distance: 70_000, position: 512), .outputOverflow(limit: 10),
      .sizeMismatch(expected: 10, actual: 9),
    ]
    for error in errors {
      #expect(error.description.hasPrefix("LZFSE: "))
      #expect(!error.description.contains("\n"))
    }
    #expect(LZFSEError.badMagic(offset: 0, magic: 0x3378_7662).description.contains("\"bvx3\""))
    #expect(LZFSEError.badMagic(offset: 8, magic: 0x0102_0304).description.contains("0x04030201"))
    #expect(LZFSEError.matchDistanceOutOfRange(offset: 7, distance: 70_000, position: 512).description
      == "LZFSE: block at byte 7: match distance 70000 reaches before the start of the output (512 bytes written)")
  }

  @Test func emptyAndUnknownStreams() {
    #expect(throws: LZFSEError.missingEndOfStream(offset: 0)) { try LZFSEDecoder.decode([UInt8]()) }
    #expect(throws: LZFSEError.truncatedBlock(offset: 0)) { try LZFSEDecoder.decode(Array("bvx".utf8)) }
    #expect(throws: LZFSEError.badMagic(offset: 0, magic: 0x3378_7662)) { try LZFSEDecoder.decode(Array("bvx3....".utf8)) }
    #expect(throws: LZFSEError.badMagic(offset: 0, magic: 0x0403_4b50)) {
      try LZFSEDecoder.decode([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])  // a ZIP entry, not LZFSE
    }
  }
}
