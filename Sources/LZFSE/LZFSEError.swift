/// Why an LZFSE stream could not be decoded.
///
/// Offsets are byte offsets into the compressed stream, counted from its first byte;
/// `offset` in the block cases is where the failing block's magic number starts.
/// ``description`` is one line without any file name, so a caller reading a file can
/// print `"\(path) \(entry): \(error)"`.
public enum LZFSEError: Error, Equatable, Hashable, Sendable {
  /// The stream ends inside the header or payload of the block at `offset`.
  case truncatedBlock(offset: Int)
  /// The stream ends at `offset` without an end-of-stream block (`bvx$`).
  case missingEndOfStream(offset: Int)
  /// The four bytes at `offset` are not a known block magic number.
  case badMagic(offset: Int, magic: UInt32)
  /// A header field of the block at `offset` is out of its range (a state, a count, a bit count).
  case badBlockHeader(offset: Int, field: String)
  /// The block at `offset` has frequency tables that do not decode or that sum past the
  /// number of states.
  case badFrequencyTable(offset: Int)
  /// The payload of the block at `offset` is inconsistent: a bit stream runs out, an LZVN
  /// opcode is undefined, literals run past those decoded, or the block decodes to a size
  /// other than its header declares.
  case corruptPayload(offset: Int, detail: String)
  /// A match of the block at `offset` copies from `distance` bytes back while only `position`
  /// bytes have been written (or uses a distance before any was given).
  case matchDistanceOutOfRange(offset: Int, distance: Int, position: Int)
  /// The blocks declare more than `limit` bytes of output (the expected size or the limit given).
  case outputOverflow(limit: Int)
  /// The stream decodes to `actual` bytes where `expected` were required.
  case sizeMismatch(expected: Int, actual: Int)
}

extension LZFSEError: CustomStringConvertible {
  /// One line, e.g. `LZFSE: block at byte 1200: match distance 70000 reaches before the start of the output (512 bytes written)`.
  public var description: String {
    switch self {
    case .truncatedBlock(let offset):
      return "LZFSE: the stream ends inside the block at byte \(offset)"
    case .missingEndOfStream(let offset):
      return "LZFSE: the stream ends at byte \(offset) without an end-of-stream block (bvx$)"
    case .badMagic(let offset, let magic):
      return "LZFSE: unknown block magic \(Self.spelled(magic)) at byte \(offset)"
    case .badBlockHeader(let offset, let field):
      return "LZFSE: block at byte \(offset): header field \(field) is out of range"
    case .badFrequencyTable(let offset):
      return "LZFSE: block at byte \(offset): invalid frequency table"
    case .corruptPayload(let offset, let detail):
      return "LZFSE: block at byte \(offset): corrupt payload (\(detail))"
    case .matchDistanceOutOfRange(let offset, let distance, let position):
      return "LZFSE: block at byte \(offset): match distance \(distance) reaches before the start of the output (\(position) bytes written)"
    case .outputOverflow(let limit):
      return "LZFSE: the stream decodes to more than \(limit) bytes"
    case .sizeMismatch(let expected, let actual):
      return "LZFSE: the stream decodes to \(actual) bytes, expected \(expected)"
    }
  }

  /// A magic number as its four characters when they are printable ASCII (`"bvx3"`), else in hex.
  private static func spelled(_ magic: UInt32) -> String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: magic >> (8 * $0)) }
    if bytes.allSatisfy({ (0x20...0x7e).contains($0) }) {
      return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
    }
    return "0x" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }
}
