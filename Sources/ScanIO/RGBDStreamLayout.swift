/// How a `.rgbdscan` stream stores its frames (docs/formats.md): what only the stream records,
/// beside the ``ScanHeader`` every format shares.
///
/// Read from the header's `depth.encoding` and `color.encoding` keys and written back to
/// them; a TUM folder has neither (its images say how they are stored).
public struct RGBDStreamLayout: Sendable, Hashable {
  /// How depth samples are stored in a stream.
  public enum DepthEncoding: String, Sendable, Hashable, CaseIterable {
    /// IEEE single, metres.
    case float32
    /// IEEE half, metres.
    case float16
    /// IEEE single, inverse depth in 1/m (depth = 1 / disparity).
    case disparity32
    /// IEEE half, inverse depth in 1/m.
    case disparity16

    /// Bytes one sample takes in the file.
    public var bytesPerSample: Int {
      switch self {
      case .float32, .disparity32: return 4
      case .float16, .disparity16: return 2
      }
    }

    /// Whether samples are inverse depth.
    public var isDisparity: Bool { self == .disparity32 || self == .disparity16 }
  }

  /// The one colour encoding a stream may have: 4 bytes a pixel, blue, green, red, alpha.
  public static let colorEncoding = "bgra8"

  /// How depth samples are stored.
  public var depthEncoding: DepthEncoding

  /// A layout; `float32` depth (metres) unless told otherwise.
  public init(depthEncoding: DepthEncoding = .float32) {
    self.depthEncoding = depthEncoding
  }

  /// Bytes of one frame of a scan with `header`'s image sizes: the `f64` timestamp, the depth
  /// samples, the BGRA colour.
  public func frameSize(for header: ScanHeader) -> Int {
    8 + header.depthWidth * header.depthHeight * depthEncoding.bytesPerSample + header.colorWidth * header.colorHeight * 4
  }
}
