import Foundation
import LZFSE
import Testing

/// The committed vectors decode byte-exactly through every entry point.
struct LZFSEVectorTests {
  @Test func vectorsArePresentAndCoverEveryBlockKind() {
    #expect(LZFSEVector.all.count >= 20, "fixtures/lzfse/ is missing or incomplete")
    let kinds = Set(LZFSEVector.all.flatMap(\.blocks))
    #expect(kinds == ["bvx2", "bvx1", "bvxn", "bvx-", "bvx$"])
    #expect(LZFSEVector.all.contains { $0.blocks.filter { $0 == "bvx2" }.count >= 2 }, "a stream of several bvx2 blocks")
    #expect(LZFSEVector.all.contains { Set($0.blocks).count >= 4 }, "a stream mixing block kinds")
  }

  @Test(arguments: LZFSEVector.all)
  func decodesByteExactly(_ vector: LZFSEVector) throws {
    #expect(try LZFSEDecoder.decode(vector.compressed, expectedSize: vector.raw.count) == vector.raw)
    #expect(try LZFSEDecoder.decode(Data(vector.compressed), expectedSize: vector.raw.count) == vector.raw)
    #expect(try LZFSEDecoder.decode(vector.compressed) == vector.raw)
    #expect(try LZFSEDecoder.decode(Data(vector.compressed), maximumSize: vector.raw.count) == vector.raw)

    // Into a buffer of exactly the decoded size: no slack for word-wise copies at the end.
    var exact = [UInt8](repeating: 0xAA, count: vector.raw.count)
    let written = try vector.compressed.withUnsafeBytes { source in
      try exact.withUnsafeMutableBytes { try LZFSEDecoder.decode(source, into: $0) }
    }
    #expect(written == vector.raw.count)
    #expect(exact == vector.raw)
  }

  @Test(arguments: LZFSEVector.all.filter { !$0.raw.isEmpty })
  func wrongExpectedSizeIsAnError(_ vector: LZFSEVector) {
    let size = vector.raw.count
    #expect(throws: LZFSEError.outputOverflow(limit: size - 1)) {
      try LZFSEDecoder.decode(vector.compressed, expectedSize: size - 1)
    }
    #expect(throws: LZFSEError.sizeMismatch(expected: size + 1, actual: size)) {
      try LZFSEDecoder.decode(vector.compressed, expectedSize: size + 1)
    }
    #expect(throws: LZFSEError.outputOverflow(limit: size - 1)) {
      try LZFSEDecoder.decode(vector.compressed, maximumSize: size - 1)
    }
    var small = [UInt8](repeating: 0, count: size - 1)
    #expect(throws: LZFSEError.outputOverflow(limit: size - 1)) {
      try vector.compressed.withUnsafeBytes { source in
        try small.withUnsafeMutableBytes { try LZFSEDecoder.decode(source, into: $0) }
      }
    }
  }

  @Test func bytesAfterTheEndOfStreamAreIgnored() throws {
    let vector = try #require(LZFSEVector.all.first { $0.name == "text-1k" })
    #expect(try LZFSEDecoder.decode(vector.compressed + Array("trailing junk".utf8)) == vector.raw)
  }

  @Test func aStreamOfSeveralVectorsDecodesToTheirConcatenation() throws {
    // Each stream without its end-of-stream block, then one at the end: every block kind
    // in one stream, later blocks written after earlier blocks' output.
    let parts = LZFSEVector.all.filter { ["mixed-blocks", "depth-160x120-v1", "text-1k", "depth-160x120-float32"].contains($0.name) }
    #expect(parts.count == 4)
    let stream = parts.flatMap { $0.compressed.dropLast(4) } + Array("bvx$".utf8)
    let raw = parts.flatMap(\.raw)
    #expect(try LZFSEDecoder.decode(stream, expectedSize: raw.count) == raw)
  }
}
