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
    bgra.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        for i in 0..<count {
          let b = UInt32(src[4 * i]), g = UInt32(src[4 * i + 1]), r = UInt32(src[4 * i + 2])
          // Fixed point with 14 fractional bits, rounded, like cv::cvtColor.
          dst[i] = UInt8((b * 1868 + g * 9617 + r * 4899 + 8192) >> 14)
        }
      }
    }
  }
}
