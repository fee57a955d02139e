/// An 8-bit colour image, 4 bytes a pixel in B, G, R, A order, rows top first.
public struct ColorImage: Sendable, Equatable {
  /// Width in pixels.
  public let width: Int
  /// Height in pixels.
  public let height: Int
  /// `width × height × 4` bytes, BGRA, row-major.
  public var bgra: [UInt8]
  /// Intrinsics scaled to this image's resolution.
  public let intrinsics: CameraIntrinsics

  public init(width: Int, height: Int, bgra: [UInt8], intrinsics: CameraIntrinsics) {
    precondition(bgra.count == width * height * 4, "BGRA byte count does not match the size")
    self.width = width
    self.height = height
    self.bgra = bgra
    self.intrinsics = intrinsics
  }

  /// The image as one grey byte a pixel (ITU-R BT.601 weights, as OpenCV's `BGR2GRAY`).
  public func grey() -> [UInt8] {
    var out: [UInt8] = []
    grey(into: &out)
    return out
  }

  /// ``grey()`` written into `out`, whose buffer is reused when it has `width × height` bytes.
  public func grey(into out: inout [UInt8]) {
    let count = width * height
    if out.count != count { out = [UInt8](repeating: 0, count: count) }
    bgra.withUnsafeBytes { src in
      out.withUnsafeMutableBufferPointer { dst in
        guard let target = dst.baseAddress.map(UnsafeMutableRawPointer.init) else { return }
        // Sixteen pixels at a time: each pixel's four bytes as one little-endian word
        // (b | g << 8 | r << 16 | a << 24).
        var i = 0
        while i + 16 <= count {
          let words = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<UInt32>.self)
          let luma = Self.luma(blue: words & 0xFF, green: (words &>> 8) & 0xFF, red: (words &>> 16) & 0xFF)
          target.storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: luma), toByteOffset: i, as: SIMD16<UInt8>.self)
          i += 16
        }
        while i < count {
          let luma = Self.luma(
            blue: SIMD2(UInt32(src[4 * i]), 0), green: SIMD2(UInt32(src[4 * i + 1]), 0), red: SIMD2(UInt32(src[4 * i + 2]), 0))
          dst[i] = UInt8(truncatingIfNeeded: luma[0])
          i += 1
        }
      }
    }
  }

  /// BT.601 luma of 8-bit channels: fixed point with 14 fractional bits, rounded, like
  /// `cv::cvtColor`'s scalar path.
  @inline(__always)
  static func luma<V: SIMD>(blue: V, green: V, red: V) -> V where V.Scalar == UInt32 {
    (blue &* 1868 &+ green &* 9617 &+ red &* 4899 &+ 8192) &>> 14
  }
}
