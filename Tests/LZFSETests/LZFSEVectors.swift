import Foundation
import Testing
import _HeadScanSupport
import _TestSupport

/// The committed test vectors in `fixtures/lzfse/` (made by `scripts/make-lzfse-vectors.sh`
/// with the reference encoder): each an LZFSE stream and the bytes it decodes to.
struct LZFSEVector: CustomTestStringConvertible, Sendable {
  var name: String
  /// The block kinds of the stream, in order, e.g. `["bvx2", "bvx$"]`.
  var blocks: [String]
  var compressed: [UInt8]
  var raw: [UInt8]

  var testDescription: String { name }

  /// All vectors listed in `vectors.json`, by name.
  static let all: [LZFSEVector] = {
    let folder = TestFiles.fixture("lzfse")
    struct Entry: Decodable { var size: Int, blocks: [String], raw: String }
    guard let data = try? Data(contentsOf: folder.appendingPathComponent("vectors.json")),
      let entries = try? JSONDecoder().decode([String: Entry].self, from: data)
    else { return [] }
    return entries.sorted { $0.key < $1.key }.compactMap { name, entry in
      guard let compressed = try? Data(contentsOf: folder.appendingPathComponent(name + ".lzfse")),
        let raw = try? Data(contentsOf: folder.appendingPathComponent(entry.raw + ".raw")), raw.count == entry.size
      else { return nil }
      return LZFSEVector(name: name, blocks: entry.blocks, compressed: Array(compressed), raw: Array(raw))
    }
  }()

  /// The vectors whose stream is at most `bytes` long.
  static func smallerThan(_ bytes: Int) -> [LZFSEVector] { all.filter { $0.compressed.count <= bytes } }
}

/// A seeded generator (SplitMix64), so that mutation tests are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
