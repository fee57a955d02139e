import PointCloud

/// The world-defining stage: re-expresses a registration and its cloud in the contract §5 world
/// of its world marker's *current* corners (its own frame: origin at the corners' mean, x along
/// corner 0 → 1, z out of the printed face).
///
/// ``keepMarkers(_:rule:)`` already expresses its result in the frame of the world marker's
/// registered corners; call this after the corners moved (``settleMarkers(_:on:options:)``).
/// Without a change of the world marker's corners it returns its input up to rounding.
/// - Parameters:
///   - registration: poses and markers (world, metres).
///   - cloud: the fused cloud in the same frame.
/// - Returns: both in the new world; unchanged when the world marker is not among the markers.
public func defineWorld(_ registration: MarkerRegistration, cloud: PointSet) -> (registration: MarkerRegistration, cloud: PointSet) {
  guard let newFromOld = registration.worldFromCurrent else { return (registration, cloud) }
  return (registration.reexpressed(by: newFromOld), cloud.transformed(by: newFromOld))
}
