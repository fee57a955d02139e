/// What a scan says about itself, whatever its format: image sizes, camera, markers, cap.
///
/// Read from the `.rgbdscan` JSON header or a TUM folder's
/// `camera.json` (docs/formats.md, "Header", "TUM-style folder"). Lengths are metres. How a format stores its
/// samples is the format's own business (``RGBDStreamLayout`` for the stream).
public struct ScanHeader: Sendable, Hashable {
  /// The largest image side a scan may declare, pixels (depth, colour and intrinsics): 4096, so a
  /// frame never needs more than 4096 × 4096 samples (64 MiB of float32 depth, as much BGRA
  /// colour). Readers refuse larger headers before allocating anything for a frame.
  public static let maximumSide = 4096

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
  /// The child's age at the recording, days: written by de-identified copies made with a birth
  /// date, instead of ``recordedAt`` (docs/formats.md, "De-identified copies").
  public var ageAtScanDays: Int?

  public init(
    depthWidth: Int, depthHeight: Int,
    colorWidth: Int, colorHeight: Int, intrinsics: CameraIntrinsics, fps: Double = 30,
    markers: MarkerSpec, capMarkerCount: Int? = nil, recordedAt: String? = nil,
    patientID: String? = nil, ageAtScanDays: Int? = nil
  ) {
    self.depthWidth = depthWidth
    self.depthHeight = depthHeight
    self.colorWidth = colorWidth
    self.colorHeight = colorHeight
    self.intrinsics = intrinsics
    self.fps = fps
    self.markers = markers
    self.capMarkerCount = capMarkerCount
    self.recordedAt = recordedAt
    self.patientID = patientID
    self.ageAtScanDays = ageAtScanDays
  }

  /// Intrinsics scaled to the depth map.
  public var depthIntrinsics: CameraIntrinsics {
    intrinsics.scaled(toWidth: depthWidth, height: depthHeight)
  }

  /// Intrinsics scaled to the colour image.
  public var colorIntrinsics: CameraIntrinsics {
    intrinsics.scaled(toWidth: colorWidth, height: colorHeight)
  }

}
