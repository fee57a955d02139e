/// One recorded frame: registered depth and colour, with its time and position in the scan.
public struct ScanFrame: Sendable, Equatable {
  /// Zero-based index of the frame in its scan.
  public let index: Int
  /// Capture time in seconds (the recorder's clock).
  public let timestamp: Double
  /// Depth in metres, registered to the colour image.
  public var depth: DepthMap
  /// Colour image, BGRA.
  public var color: ColorImage

  public init(index: Int, timestamp: Double, depth: DepthMap, color: ColorImage) {
    self.index = index
    self.timestamp = timestamp
    self.depth = depth
    self.color = color
  }
}
