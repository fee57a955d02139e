/// Reads an FSE bit stream from its end towards its start, as LZFSE stores them: the encoder
/// wrote forwards, so the decoder meets the last-written bits first.
///
/// The accumulator keeps between 56 and 63 valid bits after each ``refill()``, enough for one
/// (L, M, D) triple (at most 54 bits) or four literals (at most 40 bits) without a check
/// per pull. Refills never read below `lowerBound`, and the stream's end lies inside the
/// source, so every load is in bounds.
struct BackwardBitReader {
  /// Valid bits, right-aligned; the bits above `bitCount` are zero.
  private var accumulator: UInt64
  /// Number of valid bits in `accumulator`, 0 to 63.
  private var bitCount: Int
  /// Offset of the first byte already taken into the accumulator.
  private var position: Int
  /// The lowest offset the stream may read.
  private let lowerBound: Int
  private let source: ByteSource

  /// Starts the stream that ends at `end`: loads its last 8 bytes (7 when `unusedBits` is 0),
  /// dropping `-unusedBits` high bits that the encoder left empty. Returns `nil` when the bytes
  /// lie below `lowerBound` or the dropped bits are not zero.
  init?(source: ByteSource, lowerBound: Int, end: Int, unusedBits: Int) {
    self.source = source
    self.lowerBound = lowerBound
    if unusedBits != 0 {
      guard end - 8 >= lowerBound else { return nil }
      position = end - 8
      accumulator = source.uint64(at: position)
      bitCount = 64 + unusedBits
    } else {
      guard end - 7 >= lowerBound else { return nil }
      position = end - 7
      accumulator = UInt64(source.uint32(at: position)) | UInt64(source.uint32(at: position + 3)) << 24
      bitCount = 56
    }
    guard (56...63).contains(bitCount), accumulator >> UInt64(bitCount) == 0 else { return nil }
  }

  /// Tops the accumulator up to 56–63 bits with whole bytes from below. Returns `false` when
  /// that would read below `lowerBound` (the stream is shorter than its symbols need).
  @inline(__always)
  mutating func refill() -> Bool {
    // Wrapping arithmetic and unchecked conversions: `bitCount` stays in 0...63, so nothing
    // here overflows, and the only check left is the one that keeps reads in bounds.
    let bits = (63 &- bitCount) & ~7
    guard bits > 0 else { return true }
    let next = position &- bits &>> 3
    guard next >= lowerBound else { return false }
    position = next
    // `next + 8 <= end`: the stream started at `end - 7` or lower and `bits >= 8`.
    let incoming = source.uint64(at: next)
    let shift = UInt64(truncatingIfNeeded: bits)
    accumulator = accumulator &<< shift | incoming & ((1 &<< shift) &- 1)
    bitCount &+= bits
    return true
  }

  /// Takes the `count` most significant valid bits (`count <= bitCount`, which the refill
  /// schedule guarantees).
  @inline(__always)
  mutating func pull(_ count: Int) -> UInt64 {
    bitCount &-= count
    let remaining = UInt64(truncatingIfNeeded: bitCount)
    let result = accumulator &>> remaining
    accumulator &= (1 &<< remaining) &- 1
    return result
  }
}
