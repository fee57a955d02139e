import PointCloud

/// Marker corners by marker id, metres, in one frame (the map frame; the world frame once
/// the world is defined). Stickers on a curved cap are not flat squares, so each keeps its own
/// four corners, OpenCV order.
public struct MarkerMap: Sendable, Hashable {
  /// Corners by marker id.
  public var corners: [Int: [SIMD3<Double>]]

  /// A map of the given corners.
  public init(corners: [Int: [SIMD3<Double>]] = [:]) {
    self.corners = corners
  }

  /// The corners of marker `id`, or `nil` when it is not mapped.
  public subscript(id: Int) -> [SIMD3<Double>]? {
    get { corners[id] }
    set { corners[id] = newValue }
  }

  /// Mapped ids, ascending.
  public var ids: [Int] { corners.keys.sorted() }

  /// Number of mapped markers.
  public var count: Int { corners.count }

  /// The mean of marker `id`'s corners, or `nil` when it is not mapped.
  public func centre(of id: Int) -> SIMD3<Double>? {
    corners[id].map { $0.reduce(.zero, +) / Double($0.count) }
  }
}

/// A marker of the registered map (world frame, metres).
public struct RegisteredMarker: Sendable, Hashable {
  /// Marker id.
  public var id: Int
  /// The marker's own frame, from the four optimised corners (`RigidTransform(squareCorners:)`).
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
