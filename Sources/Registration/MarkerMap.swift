import PointCloud

/// Marker corners by marker id, metres, in one frame (the map frame; the contract §5 world once
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
