/// An automatic guess for one landmark, shown on the page as a ghost point the user accepts
/// or moves.
public struct GhostLandmark: Sendable, Hashable, Codable {
  /// The proposed point in the scan's world frame (the lowest kept marker's own frame), metres.
  public var point: SIMD3<Double>
  /// How sure the proposer is, 0…1 (shown beside the ghost point).
  public var confidence: Double

  public init(point: SIMD3<Double>, confidence: Double) {
    self.point = point
    self.confidence = confidence
  }
}

/// Makes proposals from a finished reconstruction: landmark name (`LandmarkFile.names`) →
/// proposal. Called once, after the reconstruction, off the server's threads; a name it leaves
/// out has no ghost point, and an error only means no proposals (the page works without).
public typealias LandmarkProposer = @Sendable (AnnotationContext) throws -> [String: GhostLandmark]
