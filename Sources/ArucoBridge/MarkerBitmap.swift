internal import _ArucoShim

/// A printed marker as a grey bitmap (0 black, 255 white), black border included.
public struct MarkerBitmap: Sendable, Hashable {
  /// Side in pixels.
  public let side: Int
  /// `side × side` bytes, row-major, top row first.
  public let pixels: [UInt8]

  /// Draws marker `id` of `dictionary` with OpenCV's `drawMarker`.
  /// - Parameters:
  ///   - sidePixels: bitmap side; a multiple of (bits + 2 × border) gives crisp cells.
  ///   - borderBits: black border width in cells (OpenCV default 1).
  /// - Throws: ``ArucoError`` for an unknown dictionary or an id outside it.
  public init(dictionary: String, id: Int, sidePixels: Int, borderBits: Int = 1) throws(ArucoError) {
    guard sidePixels > 0, sidePixels <= 4096 else { throw .invalidArgument("marker side \(sidePixels) px is out of range") }
    var out = [UInt8](repeating: 0, count: sidePixels * sidePixels)
    var message = [CChar](repeating: 0, count: 512)
    let status = arb_draw_marker(
      dictionary, Int32(clamping: id), Int32(sidePixels), Int32(clamping: borderBits), &out, out.count,
      &message, message.count)
    guard status == ARB_OK else { throw ArucoError(status: status, message: message, dictionary: dictionary) }
    side = sidePixels
    pixels = out
  }

  /// Value at (`x`, `y`).
  public subscript(x: Int, y: Int) -> UInt8 { pixels[y * side + x] }
}
