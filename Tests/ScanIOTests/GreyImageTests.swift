import ScanIO
import Testing

/// `ColorImage.grey(into:)` converts sixteen pixels at a time: every image size, the tail
/// included, gives each pixel's BT.601 luma exactly as the per-pixel formula (14-bit fixed
/// point, rounded) does.
struct GreyImageTests {
  /// A pseudo-random BGRA image (every byte value, alpha included).
  static func image(width: Int, height: Int, seed: UInt64) -> ColorImage {
    var state = seed
    let bytes = (0..<(4 * width * height)).map { _ -> UInt8 in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
    let intrinsics = CameraIntrinsics(fx: 500, fy: 500, cx: Double(width) / 2, cy: Double(height) / 2, width: width, height: height)
    return ColorImage(width: width, height: height, bgra: bytes, intrinsics: intrinsics)
  }

  @Test(arguments: [(640, 480), (320, 240), (1, 1), (17, 3), (33, 65), (15, 1)])
  func everyPixelIsTheFixedPointLuma(size: (Int, Int)) {
    let image = Self.image(width: size.0, height: size.1, seed: UInt64(size.0 * 1000 + size.1))
    let expected = (0..<(size.0 * size.1)).map { i -> UInt8 in
      let b = UInt32(image.bgra[4 * i]), g = UInt32(image.bgra[4 * i + 1]), r = UInt32(image.bgra[4 * i + 2])
      return UInt8((b * 1868 + g * 9617 + r * 4899 + 8192) >> 14)
    }
    var grey: [UInt8] = [7]  // a buffer of the wrong size is replaced
    image.grey(into: &grey)
    #expect(grey == expected)
    #expect(image.grey() == expected)
  }

  /// Pure blue, green, red and white: the weights themselves (29, 150, 76 and 255 of 255).
  @Test func pureColoursGiveTheWeights() {
    let intrinsics = CameraIntrinsics(fx: 500, fy: 500, cx: 2, cy: 0.5, width: 4, height: 1)
    let image = ColorImage(width: 4, height: 1, bgra: [255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 255, 255, 255, 255], intrinsics: intrinsics)
    #expect(image.grey() == [29, 150, 76, 255])
  }
}
