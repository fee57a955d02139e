/// What a scan says about itself: image layouts, camera, markers, cap.
///
/// Read from the `.rgbdscan` JSON header (contract §1) or a TUM folder's
/// `camera.json` (contract §2). Lengths are metres.
public struct ScanHeader: Sendable, Hashable {
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

  /// The ArUco markers on the cap.
  public struct MarkerSpec: Sendable, Hashable {
    /// An OpenCV predefined dictionary name, e.g. `DICT_4X4_50`.
    public var dictionary: String
    /// Printed side of one marker including its black border, metres.
    public var sideLength: Double

    public init(dictionary: String, sideLength: Double) {
      self.dictionary = dictionary
      self.sideLength = sideLength
    }
  }

  /// Depth map width, pixels.
  public var depthWidth: Int
  /// Depth map height, pixels.
  public var depthHeight: Int
  /// Depth sample encoding (streams only; TUM folders hold 16-bit PNG).
  public var depthEncoding: DepthEncoding
  /// Colour image width, pixels.
  public var colorWidth: Int
  /// Colour image height, pixels.
  public var colorHeight: Int
  /// Colour camera intrinsics at their own `width`/`height`.
  public var intrinsics: CameraIntrinsics
  /// Frames per second; 30 when the file does not say.
  public var fps: Double
  /// The cap's markers.
  public var markers: MarkerSpec
  /// How many markers the cap carries; `nil` when unknown (no progress in percent then).
  public var capMarkerCount: Int?
  /// When the recording started (ISO 8601 text, as written by the recorder).
  public var recordedAt: String?
  /// Opaque patient identifier.
  public var patientID: String?

  public init(
    depthWidth: Int, depthHeight: Int, depthEncoding: DepthEncoding = .float32,
    colorWidth: Int, colorHeight: Int, intrinsics: CameraIntrinsics, fps: Double = 30,
    markers: MarkerSpec, capMarkerCount: Int? = nil, recordedAt: String? = nil,
    patientID: String? = nil
  ) {
    self.depthWidth = depthWidth
    self.depthHeight = depthHeight
    self.depthEncoding = depthEncoding
    self.colorWidth = colorWidth
    self.colorHeight = colorHeight
    self.intrinsics = intrinsics
    self.fps = fps
    self.markers = markers
    self.capMarkerCount = capMarkerCount
    self.recordedAt = recordedAt
    self.patientID = patientID
  }

  /// Intrinsics scaled to the depth map.
  public var depthIntrinsics: CameraIntrinsics {
    intrinsics.scaled(toWidth: depthWidth, height: depthHeight)
  }

  /// Intrinsics scaled to the colour image.
  public var colorIntrinsics: CameraIntrinsics {
    intrinsics.scaled(toWidth: colorWidth, height: colorHeight)
  }

  /// Bytes of one stream frame: timestamp, depth samples, BGRA colour.
  public var streamFrameSize: Int {
    8 + depthWidth * depthHeight * depthEncoding.bytesPerSample + colorWidth * colorHeight * 4
  }
}
