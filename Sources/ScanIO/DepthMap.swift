/// A depth map in metres along the optical axis (z, not ray length).
///
/// Invalid samples (no return, too close, out of range) are `Float.nan`; readers
/// map the file's `0`, negative, infinite and NaN values, and depths outside ``validRange``,
/// to NaN.
public struct DepthMap: Sendable, Equatable {
  /// Depths a reader keeps, metres: 1 cm to 20 m. No depth camera measures outside it (the
  /// TrueDepth camera's range is about 0.15–1.2 m), and a sample such as 1e-30 m or 1e30 m
  /// would only overflow the computations downstream.
  public static let validRange: ClosedRange<Float> = 0.01...20

  /// `metres` where it lies in ``validRange``, NaN otherwise.
  @inlinable
  public static func validMetres(_ metres: Float) -> Float { validRange.contains(metres) ? metres : .nan }

  /// Width in pixels.
  public let width: Int
  /// Height in pixels.
  public let height: Int
  /// Row-major samples, top row first, metres; NaN where there is no depth.
  public var metres: [Float]
  /// Intrinsics scaled to this map's resolution.
  public let intrinsics: CameraIntrinsics

  public init(width: Int, height: Int, metres: [Float], intrinsics: CameraIntrinsics) {
    precondition(metres.count == width * height, "depth sample count does not match the size")
    self.width = width
    self.height = height
    self.metres = metres
    self.intrinsics = intrinsics
  }

  /// Depth at pixel (`x`, `y`) in metres, NaN when invalid.
  @inlinable
  public subscript(x: Int, y: Int) -> Float {
    metres[y * width + x]
  }

  /// How many samples carry a depth.
  public var validCount: Int {
    metres.reduce(0) { $1.isNaN ? $0 : $0 + 1 }
  }
}
