import ScanIO

/// What every registration stage needs to know about the scan besides its frames.
public struct ScanContext: Sendable, Hashable {
  /// The scan's path, named by every error.
  public var path: String
  /// Intrinsics of the colour image the marker corners were found in.
  public var colour: CameraIntrinsics
  /// The printed markers' side, metres.
  public var markerSideLength: Double

  /// A context.
  public init(path: String, colour: CameraIntrinsics, markerSideLength: Double) {
    self.path = path
    self.colour = colour
    self.markerSideLength = markerSideLength
  }

  /// How much larger lengths in pixels are at 640 px width than in this image (at least 1):
  /// limits given at 640 px width are multiplied by it for smaller images. "Width" is the
  /// longer side, so a portrait 480×640 frame (Record3D) counts as full resolution.
  var widthScale: Double { max(1, 640 / Double(max(1, colour.width, colour.height))) }
}
