/// The compressed stream as a read-only byte range, with little-endian loads.
///
/// Every load's caller has checked that the bytes lie in `0..<count`; this type adds no
/// checks of its own, so the hot loops stay free of them.
struct ByteSource {
  /// The first byte of the stream.
  let base: UnsafeRawPointer
  /// The number of bytes in the stream.
  let count: Int

  /// The byte at `offset` (in `0..<count`).
  @inline(__always)
  func byte(at offset: Int) -> UInt8 {
    base.load(fromByteOffset: offset, as: UInt8.self)
  }

  /// The little-endian `UInt16` at `offset` (with `offset + 2 <= count`).
  @inline(__always)
  func uint16(at offset: Int) -> UInt16 {
    UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }

  /// The little-endian `UInt32` at `offset` (with `offset + 4 <= count`).
  @inline(__always)
  func uint32(at offset: Int) -> UInt32 {
    UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  /// The little-endian `UInt64` at `offset` (with `offset + 8 <= count`).
  @inline(__always)
  func uint64(at offset: Int) -> UInt64 {
    UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }
}
