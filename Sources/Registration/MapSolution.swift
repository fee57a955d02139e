import PointCloud

/// Frame poses and the marker map they were solved with, as the registration stages
/// (``chainFrames(_:options:)``, ``optimiseMap(_:options:)``, ``resectFrames(_:options:)``)
/// hand them on. Everything is in the *map frame*: the gauge the chain starts from (the seed
/// marker's frame) and the optimisation keeps; ``keepMarkers(_:rule:)`` re-expresses it in
/// the contract §5 world.
public struct MapSolution: Sendable {
  /// The scan's path, colour intrinsics and marker side.
  public var context: ScanContext
  /// One per frame read, in frame order: detections, outliers, residual and verdict so far
  /// (their `worldFromCamera` stays `nil` until ``keepMarkers(_:rule:)``).
  public var frames: [FrameDiagnostics]
  /// Per frame (same positions), the lifted markers in use: those of frames that were rejected,
  /// and detections found to be outliers, are removed.
  public var markers: [[LiftedMarker]]
  /// Marker corners, map frame, metres.
  public var map: MarkerMap
  /// `mapFromCamera` by frame position, metres, for the frames placed so far.
  public var mapFromCamera: [Int: RigidTransform]
  /// The scan's noise as estimated so far, and the limits derived from it.
  public var noise = ScanNoise()

  /// A solution with nothing placed: the frames as observed.
  public init(context: ScanContext, frames: [FrameDiagnostics], markers: [[LiftedMarker]]) {
    self.context = context
    self.frames = frames
    self.markers = markers
    map = MarkerMap()
    mapFromCamera = [:]
  }

  /// "N × reason" for every rejected frame, sorted, for error messages.
  var rejectionSummary: String {
    Dictionary(grouping: frames.compactMap(\.rejection?.description), by: { $0 })
      .map { "\($0.value.count) × \($0.key)" }.sorted().joined(separator: ", ")
  }
}
