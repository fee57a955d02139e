extension MeasureReport {
  /// One automatically found landmark in a report (key `automaticLandmarks`).
  public struct AutomaticLandmark: Codable, Sendable, Hashable {
    /// The landmark's name: `nasion`, `noseTip`, `leftEar` or `rightEar`.
    public var name: String
    /// The point in the scan's world frame (the lowest kept marker's own frame), millimetres.
    public var position: SIMD3<Double>
    /// The detector's confidence, 0…1.
    public var confidence: Double
    /// A frame that sees the point and its colour pixel, when one was found.
    public var frame: Int?
    public var u: Double?
    public var v: Double?

    public init(name: String, position: SIMD3<Double>, confidence: Double, frame: Int? = nil, u: Double? = nil, v: Double? = nil) {
      (self.name, self.position, self.confidence, self.frame, self.u, self.v) = (name, position, confidence, frame, u, v)
    }
  }
}
