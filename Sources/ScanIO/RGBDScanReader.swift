import Foundation
internal import _HeadScanSupport

/// Reads a `.rgbdscan` recorder stream (docs/formats.md) frame by frame.
///
/// Opening reads only the 16-byte preamble and the JSON header; each
/// ``frame(at:)`` reads one frame with positioned reads, so memory stays flat
/// whatever the file's size. A trailing partial frame is skipped and reported
/// in ``warnings``.
public final class RGBDScanReader: ScanReader {
  /// The stream's magic bytes.
  public static let magic: [UInt8] = Array("RGBDSCAN".utf8)
  /// The one format version this reader understands.
  public static let version: UInt32 = 1
  /// The longest header this reader opens, bytes: 1 MiB. A header is a few hundred bytes of
  /// JSON; the bound keeps a damaged length field (a flipped bit in a 3 GB scan) from asking
  /// for gigabytes before the JSON is even read.
  public static let maximumHeaderLength = 1 << 20

  public let path: String
  public let header: ScanHeader
  /// How the stream stores depth and colour.
  public let layout: RGBDStreamLayout
  public let frameCount: Int
  public let warnings: [ScanWarning]
  /// Byte offset of frame 0.
  public let firstFrameOffset: Int
  /// Bytes of one frame.
  public let frameSize: Int
  private let file: ReadOnlyFile

  /// Opens and checks a stream.
  /// - Throws: ``ScanIOError`` for a missing file, wrong magic, unknown version, a
  ///   header past the end, invalid JSON or a missing/invalid key.
  public init(path: String) throws(ScanIOError) {
    let file = try scanIO { () throws(FileAccessError) in try ReadOnlyFile(path: path) }
    guard file.size >= 8, try scanIO({ () throws(FileAccessError) in try file.bytes(count: 8, at: 0) }) == Self.magic else { throw .badMagic(path: path) }
    guard file.size >= 16 else {
      throw .sizeMismatch(path: path, detail: "file ends inside the 16-byte preamble (\(file.size) bytes)")
    }
    let preamble = try scanIO { () throws(FileAccessError) in try file.bytes(count: 8, at: 8) }
    let version = preamble.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) }
    guard version == Self.version else { throw .unsupportedVersion(path: path, version: version) }
    let headerLength = Int(preamble.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) })
    guard 16 + headerLength <= file.size else {
      throw .headerPastEnd(path: path, headerLength: headerLength, fileSize: file.size)
    }
    guard headerLength <= Self.maximumHeaderLength else {
      throw .unsupportedContent(
        path: path, detail: "header length \(headerLength) bytes is over the \(Self.maximumHeaderLength) bytes a header may have (damaged file?)")
    }
    let json = Data(try scanIO { () throws(FileAccessError) in try file.bytes(count: headerLength, at: 16) })
    let (header, stream, _, headerWarnings) = try ScanHeader.parse(json: json, path: path, source: .stream)
    let layout = stream ?? RGBDStreamLayout()

    self.path = path
    self.file = file
    self.header = header
    self.layout = layout
    self.firstFrameOffset = 16 + headerLength
    self.frameSize = layout.frameSize(for: header)
    let frameBytes = file.size - firstFrameOffset
    self.frameCount = frameBytes / frameSize
    let remainder = frameBytes % frameSize
    self.warnings = headerWarnings + (remainder == 0 ? [] : [.trailingPartialFrame(path: path, bytes: remainder, frameSize: frameSize)])
  }

  public func timestamp(at index: Int) throws(ScanIOError) -> Double {
    try checkIndex(index)
    var bits: UInt64 = 0
    try withUnsafeMutableBytes(of: &bits) { (raw) throws(ScanIOError) in
      try scanIO { () throws(FileAccessError) in try file.read(into: raw, at: firstFrameOffset + index * frameSize) }
    }
    return Double(bitPattern: UInt64(littleEndian: bits))
  }

  public func frame(at index: Int) throws(ScanIOError) -> ScanFrame {
    var frame: ScanFrame?
    try readFrame(at: index, into: &frame)
    return frame!
  }

  public func readFrame(at index: Int, into frame: inout ScanFrame?) throws(ScanIOError) {
    // The spare's buffers, moved out so that they are uniquely referenced and written in place.
    var metres: [Float] = [], bgra: [UInt8] = []
    if var spare = frame {
      frame = nil
      swap(&metres, &spare.depth.metres)
      swap(&bgra, &spare.color.bgra)
    }
    try checkIndex(index)
    let start = firstFrameOffset + index * frameSize
    let time = try timestamp(at: index)
    let samples = header.depthWidth * header.depthHeight
    let depthBytes = samples * layout.depthEncoding.bytesPerSample
    if metres.count != samples { metres = [Float](repeating: 0, count: samples) }
    try metres.withUnsafeMutableBufferPointer { (out) throws(ScanIOError) in try readDepth(into: out, at: start + 8) }
    let colourBytes = header.colorWidth * header.colorHeight * 4
    if bgra.count != colourBytes { bgra = [UInt8](repeating: 0, count: colourBytes) }
    try bgra.withUnsafeMutableBufferPointer { (out) throws(ScanIOError) in
      try scanIO { () throws(FileAccessError) in try file.read(into: UnsafeMutableRawBufferPointer(out), at: start + 8 + depthBytes) }
    }
    frame = ScanFrame(
      index: index, timestamp: time,
      depth: DepthMap(width: header.depthWidth, height: header.depthHeight, metres: metres, intrinsics: header.depthIntrinsics),
      color: ColorImage(width: header.colorWidth, height: header.colorHeight, bgra: bgra, intrinsics: header.colorIntrinsics))
  }

  /// Reads `out.count` depth values at `offset` into `out`, converted to metres (NaN = no depth).
  private func readDepth(into out: UnsafeMutableBufferPointer<Float>, at offset: Int) throws(ScanIOError) {
    let encoding = layout.depthEncoding
    let samples = out.count
    switch encoding {
    case .float32, .disparity32:
      // Little-endian IEEE single on disk and in memory: read in place.
      try scanIO { () throws(FileAccessError) in try file.read(into: UnsafeMutableRawBufferPointer(out), at: offset) }
    case .float16, .disparity16:
      // Read the halves into the upper half of the output, widen front to back.
      let raw = UnsafeMutableRawBufferPointer(out)
      let halves = UnsafeMutableRawBufferPointer(rebasing: raw[(samples * 2)...])
      try scanIO { () throws(FileAccessError) in try file.read(into: halves, at: offset) }
      let source = halves.bindMemory(to: UInt16.self)
      halfPrecisionWidened.withUnsafeBufferPointer { widened in
        for i in 0..<samples { out[i] = widened[Int(UInt16(littleEndian: source[i]))] }
      }
      // The output is Float memory again for the conversion below.
      _ = raw.bindMemory(to: Float.self)
    }
    DepthDecoding.toMetres(out, disparity: encoding.isDisparity)
  }
}

/// Every half-precision bit pattern widened to single precision (`Float(Float16(bitPattern:))`,
/// 256 KB, made on first use): without the F16C instructions, which the x86-64 baseline lacks,
/// each conversion is a library call, and a 640×480 float16 frame took about 1.5 ms to widen.
private let halfPrecisionWidened: [Float] = (0...UInt16.max).map { Float(Float16(bitPattern: $0)) }

/// Conversions between stored depth samples and metres.
enum DepthDecoding {
  /// In place: disparity becomes depth; samples that are no depth (NaN, ≤ 0, ±∞, or outside
  /// ``DepthMap/validRange`` once in metres) become NaN.
  ///
  /// Eight samples at a time: a depth in range is kept (NaN, ±∞, 0 and negative values are not
  /// in it), and a disparity's reciprocal likewise (that of 0, ∞ or a negative value is not).
  static func toMetres(_ values: UnsafeMutableBufferPointer<Float>, disparity: Bool) {
    guard let base = values.baseAddress else { return }
    let low = DepthMap.validRange.lowerBound, high = DepthMap.validRange.upperBound
    let lows = SIMD8<Float>(repeating: low), highs = SIMD8<Float>(repeating: high), nans = SIMD8<Float>(repeating: .nan)
    var i = 0
    while i + 8 <= values.count {
      var v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<Float>.self)
      if disparity { v = 1 / v }
      let kept = nans.replacing(with: v, where: (v .>= lows) .& (v .<= highs))
      UnsafeMutableRawPointer(base + i).storeBytes(of: kept, as: SIMD8<Float>.self)
      i += 8
    }
    while i < values.count {
      let v = disparity ? 1 / values[i] : values[i]
      values[i] = v >= low && v <= high ? v : .nan
      i += 1
    }
  }
}
