import PointCloud

/// A marker of the registered map (world frame, metres).
public struct RegisteredMarker: Sendable, Hashable {
  /// Marker id.
  public var id: Int
  /// Contract §5 pose from the four optimised corners.
  public var worldFromMarker: RigidTransform
  /// The optimised corners, OpenCV order.
  public var corners: [SIMD3<Double>]
  /// Kept observations.
  public var observations: Int
  /// RMS corner residual of its observations, metres.
  public var rms: Double

  /// A marker with its corners (world, metres, OpenCV order), its pose from them, and its fit.
  public init(id: Int, corners: [SIMD3<Double>], observations: Int, rms: Double) {
    self.id = id
    self.corners = corners
    self.worldFromMarker = RigidTransform(squareCorners: corners)
    self.observations = observations
    self.rms = rms
  }
}
