import Registration
import PointCloud

/// The settling stage: every marker's corners moved along the local surface normal onto the
/// fused surface (each onto the quadratic surface fitted over the plane of its
/// ``SettlingOptions/neighbours`` nearest cloud points: the plane itself lies about E[s²]/(2R)
/// inside a convex surface, 0.1 mm for 100 points on an infant's head, which would shrink the marker
/// map by 0.18 %).
///
/// One frame's depth at a sticker's corners is noisy and, seen at a grazing angle, biased; the
/// fused surface averages hundreds of frames, so the settled corners give the stickers' (and so
/// the world's) orientation several times more accurately. The poses are not changed: follow
/// with `defineWorld(_:cloud:)` to express everything in the world of the settled corners.
/// - Returns: `registration` with its markers' corners settled (same frame as `cloud`).
/// - Throws: `ReconstructionError/numerical(path:detail:)` when PCL fails.
public func settleMarkers(
  _ registration: MarkerRegistration, on cloud: PointSet, options: SettlingOptions = .default
) throws -> MarkerRegistration {
  let corners = registration.markers.flatMap(\.corners).map { SIMD3<Float>($0) }
  let settled: [SIMD3<Float>]
  do {
    settled = try NativeGeometry.projectToLocalPlanes(cloud.positions, queries: corners, neighbours: options.neighbours, quadratic: true).0
  } catch {
    throw ReconstructionError.numerical(path: registration.context.path, detail: String(describing: error))
  }
  var result = registration
  var next = 0
  for i in result.markers.indices {
    let count = result.markers[i].corners.count
    guard next + count <= settled.count else { break }
    let m = result.markers[i]
    result.markers[i] = RegisteredMarker(
      id: m.id, corners: settled[next..<(next + count)].map { SIMD3<Double>($0) }, observations: m.observations, rms: m.rms)
    next += count
  }
  return result
}

/// Settings of the settling stage (``settleMarkers(_:on:options:)``).
public struct SettlingOptions: Sendable, Hashable {
  /// Cloud points in the plane each marker corner is settled on (about 5 mm around it at
  /// 1 mm voxels). Twenty left the stickers tilted by up to 0.3° by the fused surface's local
  /// waviness; a hundred average it over most of the sticker, and the plane's offset under
  /// a convex surface is nearly the same at the four corners, so it does not tilt them.
  public var neighbours = 100

  /// The defaults.
  public static let `default` = SettlingOptions()

  public init() {}
}
