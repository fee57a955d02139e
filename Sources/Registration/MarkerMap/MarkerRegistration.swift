import PointCloud

/// The registration: every frame's verdict and pose, and the kept marker map, in the
/// world (the world marker's own frame).
public struct MarkerRegistration: Sendable {
  /// The scan's path, colour intrinsics and marker side.
  public var context: ScanContext
  /// One per frame read: registered frames carry `worldFromCamera`, the others their rejection.
  public var frames: [FrameDiagnostics]
  /// The kept markers (``MarkerKeepRule``), sorted by id.
  public var markers: [RegisteredMarker]
  /// Every optimised marker's fit and the keep rule's verdict on it, by ascending id.
  public var markerFits: [MarkerFit]
  /// The scan's noise, estimated from the scan, and the limits derived from it.
  public var noise: ScanNoise
  /// The marker whose frame is the world (the lowest kept id).
  public var worldMarkerID: Int
  /// RMS over all kept observations (kept markers in the last optimisation round) of the 3D
  /// corner residual, metres.
  public var cornerRMS: Double
  /// Centres of every optimised marker, kept or not (world, metres): where the head is.
  public var mappedCentres: [SIMD3<Double>]

  /// Frames given a pose.
  public var framesRegistered: Int { frames.filter { $0.worldFromCamera != nil }.count }

  /// Markers, poses and centres moved by `newFromOld` (world ← world): corners moved, each
  /// marker's pose worked out again from its moved corners, poses composed on the left.
  func reexpressed(by newFromOld: RigidTransform) -> MarkerRegistration {
    var moved = self
    moved.markers = markers.map { m in
      RegisteredMarker(id: m.id, corners: m.corners.map(newFromOld.apply), observations: m.observations, rms: m.rms)
    }
    for f in moved.frames.indices { moved.frames[f].worldFromCamera = frames[f].worldFromCamera.map { newFromOld * $0 } }
    moved.mappedCentres = mappedCentres.map(newFromOld.apply)
    return moved
  }

  /// Every position (marker corners, frame positions and their jackknife's shifts, mapped
  /// centres) times `factor` about the world's origin: the registration of the same scan with every depth times `factor`.
  /// Rotations and residuals are kept.
  public func scaled(by factor: Double) -> MarkerRegistration {
    var scaled = self
    scaled.markers = markers.map { RegisteredMarker(id: $0.id, corners: $0.corners.map { $0 * factor }, observations: $0.observations, rms: $0.rms) }
    for f in scaled.frames.indices {
      scaled.frames[f].worldFromCamera?.translation *= factor
      for j in scaled.frames[f].poseJackknife.indices { scaled.frames[f].poseJackknife[j].translation *= factor }
    }
    scaled.mappedCentres = mappedCentres.map { $0 * factor }
    return scaled
  }

  /// `worldFromOld`: the own frame of the world marker's current corners, or `nil` when
  /// the world marker is not among ``markers``.
  var worldFromCurrent: RigidTransform? {
    markers.first { $0.id == worldMarkerID }.map { RigidTransform(squareCorners: $0.corners).inverse }
  }
}

/// The world-defining stage: re-expresses a registration and its cloud in the world frame
/// of its world marker's *current* corners (its own frame: origin at the corners' mean, x along
/// corner 0 → 1, z out of the printed face).
///
/// ``keepMarkers(_:rule:)`` already expresses its result in the frame of the world marker's
/// registered corners; call this after the corners moved (`settleMarkers(_:on:options:)`).
/// Without a change of the world marker's corners it returns its input up to rounding.
/// - Parameters:
///   - registration: poses and markers (world, metres).
///   - cloud: the fused cloud in the same frame.
/// - Returns: both in the new world; unchanged when the world marker is not among the markers.
public func defineWorld(_ registration: MarkerRegistration, cloud: PointSet) -> (registration: MarkerRegistration, cloud: PointSet) {
  guard let newFromOld = registration.worldFromCurrent else { return (registration, cloud) }
  return (registration.reexpressed(by: newFromOld), cloud.transformed(by: newFromOld))
}
