import ArucoBridge
import PointCloud

/// One marker seen in one frame.
public struct MarkerObservation: Sendable, Hashable {
  /// Index of the frame in its scan.
  public var frameIndex: Int
  /// The detected marker (id and pixel corners).
  public var marker: DetectedMarker

  public init(frameIndex: Int, marker: DetectedMarker) {
    self.frameIndex = frameIndex
    self.marker = marker
  }
}
