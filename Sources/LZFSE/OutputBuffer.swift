/// The decoder's output: a caller-owned byte buffer, of which `writableCount` bytes may be
/// written. Block decoders keep their own logical end; when at least ``slack`` bytes lie
/// between a copy's end and `writableCount`, copies run in whole 8-byte words and may spill
/// bytes past their end that the next copy overwrites.
struct OutputBuffer {
  /// The first byte of the output.
  let base: UnsafeMutablePointer<UInt8>
  /// The number of bytes that may be written (the decoded size plus any slack the caller gave).
  let writableCount: Int

  /// Spare bytes a word-wise copy needs beyond its end.
  static let slack = 32

  /// Copies `count` bytes from `source` (which holds at least `count + 16` readable bytes
  /// when `wide`) to `position`, which must have `count` bytes of room, or `count + slack` when `wide`.
  @inline(__always)
  func copyLiteral(from source: UnsafeRawPointer, to position: Int, count: Int, wide: Bool) {
    let target = UnsafeMutableRawPointer(base + position)
    if wide {
      var i = 0
      repeat {
        target.storeBytes(of: source.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
        target.storeBytes(
          of: source.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self), toByteOffset: i + 8, as: UInt64.self)
        i += 16
      } while i < count
    } else if count > 0 {
      target.copyMemory(from: source, byteCount: count)
    }
  }

  /// Repeats the `count` bytes found `distance` bytes back (`1 <= distance <= position`) at
  /// `position`, which must have `count` bytes of room, or `count + slack` when `wide`. The
  /// ranges may overlap: a distance below the count repeats the last `distance` bytes.
  @inline(__always)
  func copyMatch(to position: Int, distance: Int, count: Int, wide: Bool) {
    let target = base + position
    guard wide else {
      for i in 0..<count { target[i] = target[i - distance] }
      return
    }
    let raw = UnsafeMutableRawPointer(target)
    if distance >= 8 {
      // Each word reads only bytes written before it.
      var i = 0
      repeat {
        raw.storeBytes(of: raw.loadUnaligned(fromByteOffset: i - distance, as: UInt64.self), toByteOffset: i, as: UInt64.self)
        i += 8
      } while i < count
      return
    }
    // A short period: write the first word byte by byte, then copy words from a whole number
    // of periods back (8 to 14 bytes), which holds the same bytes.
    for i in 0..<8 { target[i] = target[i - distance] }
    let period = distance * ((8 + distance - 1) / distance)
    var i = 8
    while i < count {
      raw.storeBytes(of: raw.loadUnaligned(fromByteOffset: i - period, as: UInt64.self), toByteOffset: i, as: UInt64.self)
      i += 8
    }
  }
}
