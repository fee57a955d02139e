import PointCloud

/// The four landmarks as points: nasion, nose tip and the infant's own left and
/// right tragion, metres, in whatever frame they were placed in (a scan's world frame after
/// `liftLandmarks(_:path:scan:reconstruction:)` in the Landmarks module, a model's frame in the simulator).
public struct HeadLandmarks: Sendable, Hashable, Codable {
  /// Nasion, metres.
  public var nasion: SIMD3<Double>
  /// Nose tip, metres.
  public var noseTip: SIMD3<Double>
  /// The infant's left tragion, metres.
  public var leftEar: SIMD3<Double>
  /// The infant's right tragion, metres.
  public var rightEar: SIMD3<Double>

  /// The four points, metres, in one frame.
  public init(nasion: SIMD3<Double>, noseTip: SIMD3<Double>, leftEar: SIMD3<Double>, rightEar: SIMD3<Double>) {
    (self.nasion, self.noseTip, self.leftEar, self.rightEar) = (nasion, noseTip, leftEar, rightEar)
  }

  /// Name/position pairs in file order (the names of `LandmarkFile.names`).
  public var named: [(String, SIMD3<Double>)] {
    [("nasion", nasion), ("noseTip", noseTip), ("leftEar", leftEar), ("rightEar", rightEar)]
  }

  /// The head frame (``HeadFrame``) that these landmarks define (same frame as the points).
  /// - Throws: `HeadFrameError` when the points do not span a plane or the nose lies in it.
  public func headFrame() throws(HeadFrameError) -> HeadFrame {
    try HeadFrame(nasion: nasion, noseTip: noseTip, leftEar: leftEar, rightEar: rightEar)
  }
}
