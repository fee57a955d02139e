internal import _ImageCodec
import Foundation
internal import _HeadScanSupport

/// PNG and JPEG files: decoding colour and 16-bit depth images, writing PNG.
public enum ImageFiles {
  /// The most pixels an image may have (4096 × 4096): larger images are refused from their
  /// header, before anything is decoded, so a small file cannot ask for a huge buffer.
  public static let maximumPixels = 4096 * 4096

  /// The size an image must have, and what to call it when it does not.
  public struct ExpectedSize: Sendable {
    public var width: Int
    public var height: Int
    /// What the image is and where the size comes from, e.g. `colour image` / `camera.json`.
    public var what: String
    public var source: String
    public init(width: Int, height: Int, what: String, source: String) {
      (self.width, self.height, self.what, self.source) = (width, height, what, source)
    }
  }

  /// A decoded colour image: `width × height × 4` bytes, BGRA.
  public struct BGRA: Sendable {
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]
  }

  /// Decodes an 8-bit PNG or JPEG file to BGRA (alpha 255 where the file has none).
  /// - Throws: ``ScanIOError/unreadableImage(path:detail:)`` naming the file.
  /// - Parameter expected: the size the image must have, checked from its header before it
  ///   is decoded (``ScanIOError/sizeMismatch(path:detail:)`` otherwise).
  public static func readColor(at path: String, expecting expected: ExpectedSize? = nil) throws(ScanIOError) -> BGRA {
    let data = try scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: path) }
    return try decodeColor(data, path: path, expecting: expected)
  }

  /// Decodes the bytes of an 8-bit PNG or JPEG file (e.g. an archive entry) to BGRA;
  /// errors name `path`. With `expected`, the header's size is checked before decoding.
  public static func decodeColor(_ data: Data, path: String, expecting expected: ExpectedSize? = nil) throws(ScanIOError) -> BGRA {
    let (width, height) = try probe(data, path: path, expecting: expected)
    let pixels = try decode(data, path: path, format: HSI_BGRA8, count: width * height * 4)
    return BGRA(width: width, height: height, bytes: pixels)
  }

  /// Decodes a single-channel 16-bit PNG (raw values, native order).
  /// - Parameter expected: the size the image must have, checked before decoding.
  public static func readGray16(at path: String, expecting expected: ExpectedSize? = nil) throws(ScanIOError) -> (
    width: Int, height: Int, values: [UInt16]
  ) {
    let data = try scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: path) }
    let (width, height) = try probe(data, path: path, expecting: expected)
    let bytes = try decode(data, path: path, format: HSI_GRAY16, count: width * height * 2)
    let values = bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    return (width, height, values)
  }

  /// Writes BGRA pixels as an RGB PNG (alpha dropped), not atomically: callers write into a temporary folder.
  public static func writeColorPNG(_ bgra: [UInt8], width: Int, height: Int, to path: String) throws(ScanIOError) {
    var bgr = [UInt8](repeating: 0, count: width * height * 3)
    for i in 0..<(width * height) {
      bgr[3 * i] = bgra[4 * i]
      bgr[3 * i + 1] = bgra[4 * i + 1]
      bgr[3 * i + 2] = bgra[4 * i + 2]
    }
    try write(bytes: bgr, width: width, height: height, format: HSI_BGR8, to: path)
  }

  /// Writes BGRA pixels as a baseline JPEG (alpha dropped), quality 1…100.
  public static func writeColorJPEG(_ bgra: [UInt8], width: Int, height: Int, quality: Int, to path: String) throws(ScanIOError) {
    var message = [CChar](repeating: 0, count: 256)
    let status = bgra.withUnsafeBufferPointer {
      hsi_write_jpeg(path, $0.baseAddress, Int32(width), Int32(height), HSI_BGRA8, Int32(quality), &message, message.count)
    }
    guard status == HSI_OK else { throw .cannotWrite(path: path, reason: text(message)) }
  }

  /// Writes single-channel 16-bit values as a PNG.
  public static func writeGray16PNG(_ values: [UInt16], width: Int, height: Int, to path: String) throws(ScanIOError) {
    let bytes = values.withUnsafeBytes { Array($0) }
    try write(bytes: bytes, width: width, height: height, format: HSI_GRAY16, to: path)
  }

  /// Writes single-channel 8-bit values as a PNG.
  public static func writeGray8PNG(_ values: [UInt8], width: Int, height: Int, to path: String) throws(ScanIOError) {
    try write(bytes: values, width: width, height: height, format: HSI_GRAY8, to: path)
  }

  /// Encodes BGR pixels (`width × height × 3` bytes, rows top to bottom) as a PNG in memory,
  /// e.g. to embed a picture in a page. Returns nil when the size does not match the pixels or
  /// libpng fails.
  public static func pngData(bgr pixels: [UInt8], width: Int, height: Int) -> Data? {
    guard width > 0, height > 0, width <= maximumPixels / height, pixels.count == width * height * 3 else { return nil }
    var message = [CChar](repeating: 0, count: 256)
    var size = 0
    // The bound first (no compression), then one compression into a buffer of that size.
    let bounded = pixels.withUnsafeBufferPointer {
      hsi_encode_png($0.baseAddress, Int32(width), Int32(height), HSI_BGR8, nil, &size, &message, message.count)
    }
    guard bounded == HSI_OK, size > 0 else { return nil }
    var out = [UInt8](repeating: 0, count: size)
    let status = pixels.withUnsafeBufferPointer { source in
      out.withUnsafeMutableBufferPointer {
        hsi_encode_png(source.baseAddress, Int32(width), Int32(height), HSI_BGR8, $0.baseAddress, &size, &message, message.count)
      }
    }
    guard status == HSI_OK else { return nil }
    return Data(out.prefix(size))
  }

  private static func write(bytes: [UInt8], width: Int, height: Int, format: hsi_pixel_format, to path: String) throws(ScanIOError) {
    var message = [CChar](repeating: 0, count: 256)
    let status = bytes.withUnsafeBufferPointer {
      hsi_write_png(path, $0.baseAddress, Int32(width), Int32(height), format, &message, message.count)
    }
    guard status == HSI_OK else { throw .cannotWrite(path: path, reason: text(message)) }
  }

  private static func probe(_ data: Data, path: String, expecting expected: ExpectedSize?) throws(ScanIOError) -> (Int, Int) {
    var info = hsi_info()
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes {
      hsi_probe($0.bindMemory(to: UInt8.self).baseAddress, data.count, &info, &message, message.count)
    }
    guard status == HSI_OK else { throw .unreadableImage(path: path, detail: text(message)) }
    let (width, height) = (Int(info.width), Int(info.height))
    guard width > 0, height > 0, width <= maximumPixels / height else {
      throw .unreadableImage(path: path, detail: "implausible size \(info.width)×\(info.height) (at most \(maximumPixels) pixels)")
    }
    if let expected, expected.width != width || expected.height != height {
      throw .sizeMismatch(
        path: path, detail: "\(expected.what) is \(width)×\(height), \(expected.source) says \(expected.width)×\(expected.height)")
    }
    return (width, height)
  }

  private static func decode(_ data: Data, path: String, format: hsi_pixel_format, count: Int) throws(ScanIOError) -> [UInt8] {
    var message = [CChar](repeating: 0, count: 256)
    var pixels = [UInt8](repeating: 0, count: count)
    let status = data.withUnsafeBytes { source in
      pixels.withUnsafeMutableBufferPointer {
        hsi_decode(source.bindMemory(to: UInt8.self).baseAddress, data.count, format, $0.baseAddress, count, &message, message.count)
      }
    }
    guard status == HSI_OK else { throw .unreadableImage(path: path, detail: text(message)) }
    return pixels
  }

  private static func text(_ message: [CChar]) -> String {
    let s = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return s.isEmpty ? "unknown error" : s
  }
}
