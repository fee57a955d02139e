/// A rectangle of whole pixels in an image: columns `x ..< x + width`, rows `y ..< y + height`
/// (the top-left pixel is (0, 0)).
public struct PixelRegion: Sendable, Hashable {
  /// The leftmost column.
  public var x: Int
  /// The top row.
  public var y: Int
  /// Columns across, > 0 for a region that holds pixels.
  public var width: Int
  /// Rows down, > 0 for a region that holds pixels.
  public var height: Int

  /// A region from its top-left pixel and size, pixels.
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The smallest region of whole pixels holding every point (pixel coordinates, the top-left
  /// pixel's centre at (0, 0)), grown by `margin` pixels on every side; `nil` for no points or
  /// a coordinate that is not finite.
  public init?(around points: [SIMD2<Double>], margin: Double) {
    guard let first = points.first, margin.isFinite, margin >= 0 else { return nil }
    var low = first, high = first
    for p in points {
      guard p.x.isFinite, p.y.isFinite else { return nil }
      low = pointwiseMin(low, p)
      high = pointwiseMax(high, p)
    }
    // Pixels whose centres lie within [low − margin, high + margin], clamped far from overflow.
    let limit = Double(Int32.max)
    let x0 = Int(max(-limit, (low.x - margin).rounded(.down))), y0 = Int(max(-limit, (low.y - margin).rounded(.down)))
    let x1 = Int(min(limit, (high.x + margin).rounded(.up))), y1 = Int(min(limit, (high.y + margin).rounded(.up)))
    self.init(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
  }

  /// Pixels in the region.
  public var area: Int { max(0, width) * max(0, height) }

  /// Whether the two regions share a pixel.
  public func intersects(_ other: PixelRegion) -> Bool {
    x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
  }

  /// The smallest region holding both.
  public func union(_ other: PixelRegion) -> PixelRegion {
    let x0 = min(x, other.x), y0 = min(y, other.y)
    let x1 = max(x + width, other.x + other.width), y1 = max(y + height, other.y + other.height)
    return PixelRegion(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// The part inside a `width × height` image, `nil` when none is.
  public func clipped(toWidth imageWidth: Int, height imageHeight: Int) -> PixelRegion? {
    let x0 = max(0, x), y0 = max(0, y)
    let x1 = min(imageWidth, x + width), y1 = min(imageHeight, y + height)
    guard x1 > x0, y1 > y0 else { return nil }
    return PixelRegion(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }
}
