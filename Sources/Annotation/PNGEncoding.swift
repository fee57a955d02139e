import Foundation

/// PNG files built in memory, for the page's images: the scan's colour frames and depth masks.
///
/// The image data goes into stored (uncompressed) deflate blocks: a 640 × 480 colour frame is
/// about 0.9 MB, which the loopback carries in milliseconds, and the encoder needs no codec and
/// writes no file.
enum PNGEncoding {
  /// Colour type of the pixels handed to ``encode(_:width:height:colourType:)``.
  enum ColourType: UInt8 {
    /// 3 bytes a pixel: R, G, B.
    case rgb = 2
    /// 4 bytes a pixel: R, G, B, A.
    case rgba = 6

    var bytesPerPixel: Int { self == .rgb ? 3 : 4 }
  }

  /// An 8-bit PNG of `pixels` (rows top first, `width × height × bytesPerPixel` bytes).
  static func encode(_ pixels: [UInt8], width: Int, height: Int, colourType: ColourType) -> Data {
    let rowBytes = width * colourType.bytesPerPixel
    // Each row: filter type 0 (none), then the row.
    var raw = [UInt8]()
    raw.reserveCapacity(height * (rowBytes + 1))
    for y in 0..<height {
      raw.append(0)
      raw.append(contentsOf: pixels[(y * rowBytes)..<((y + 1) * rowBytes)])
    }
    var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    var header = [UInt8]()
    header.appendBigEndian(UInt32(width))
    header.appendBigEndian(UInt32(height))
    header += [8, colourType.rawValue, 0, 0, 0]
    appendChunk("IHDR", header, to: &png)
    appendChunk("IDAT", zlibStored(raw), to: &png)
    appendChunk("IEND", [], to: &png)
    return png
  }

  /// A zlib stream of stored deflate blocks (at most 65 535 bytes each) with its Adler-32.
  static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var start = 0
    repeat {
      let count = min(65_535, bytes.count - start)
      let final: UInt8 = start + count == bytes.count ? 1 : 0
      out.append(final)
      out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
      out += bytes[start..<(start + count)]
      start += count
    } while start < bytes.count
    out.appendBigEndian(adler32(bytes))
    return out
  }

  static func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1, b: UInt32 = 0
    var index = 0
    while index < bytes.count {
      // 5552 bytes keep the sums below 2³² before the modulo (zlib's NMAX).
      let end = min(index + 5552, bytes.count)
      for byte in bytes[index..<end] {
        a += UInt32(byte)
        b += a
      }
      a %= 65_521
      b %= 65_521
      index = end
    }
    return b << 16 | a
  }

  static let crcTable: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  static func crc32<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
    var c: UInt32 = 0xFFFF_FFFF
    for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }

  private static func appendChunk(_ type: String, _ body: [UInt8], to png: inout Data) {
    var chunk = [UInt8]()
    chunk.appendBigEndian(UInt32(body.count))
    let typed = Array(type.utf8) + body
    chunk += typed
    chunk.appendBigEndian(crc32(typed))
    png.append(contentsOf: chunk)
  }
}

extension [UInt8] {
  fileprivate mutating func appendBigEndian(_ value: UInt32) {
    append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
  }
}
