import PointCloud

/// The face as de-identified copies remove it (docs/formats.md, "De-identified copies"), in the
/// head frame (``HeadFrame``): every point below the nasion plane (z < 0, the plane through the
/// nasion and both tragions) and in front of the ears' coronal plane (x > 0, the plane through
/// both tragions perpendicular to x), within ``reach`` of the head frame's origin along each axis.
///
/// That is the eyes, nose, mouth, cheeks and chin, and whatever lies below and in front of
/// them (neck, hands, clothes). It keeps the skull at and above the nasion plane, where every
/// layer of the measurement lies (docs/head-frame-and-measures.md), the back of the head and
/// the ears behind the tragions.
public struct FaceRegion: Sendable, Hashable {
  /// How far the region reaches from the head frame's origin along x, ±y and −z, metres: 0.3,
  /// beyond any infant's chin and shoulders.
  public static let reach = 0.3

  /// How far the face itself reaches from the head frame's origin along x, ±y and −z, metres:
  /// 0.15, beyond an infant's nose tip and chin (about 0.1 m in front of and below the
  /// tragions). Colour pixels without depth are judged by their ray through this smaller box
  /// (``crossing(origin:direction:reach:)``): a ray that only passes through the region farther
  /// out shows the background beyond the head, not the face.
  public static let faceReach = 0.15

  /// World (the landmarks' frame) → head frame.
  public let headFromWorld: RigidTransform

  public init(headFromWorld: RigidTransform) { self.headFromWorld = headFromWorld }

  public init(_ frame: HeadFrame) { headFromWorld = frame.headFromWorld }

  /// Whether a head-frame point lies in the face region.
  @inlinable
  public static func containsHeadPoint(_ q: SIMD3<Double>) -> Bool {
    q.x > 0 && q.z < 0 && q.x < reach && q.z > -reach && abs(q.y) < reach
  }

  /// Whether a world point lies in the face region.
  public func contains(_ world: SIMD3<Double>) -> Bool { Self.containsHeadPoint(headFromWorld.apply(world)) }

  /// Where the ray `origin + t · direction` (world, t > 0) runs through the region's box, or
  /// the smaller box of the face itself with `reach` ``faceReach``: (entry, exit) in units of
  /// `direction`, or `nil` when it misses.
  public func crossing(origin: SIMD3<Double>, direction: SIMD3<Double>, reach: Double = reach) -> (entry: Double, exit: Double)? {
    let o = headFromWorld.apply(origin), d = headFromWorld.rotation * direction
    let low = SIMD3<Double>(0, -reach, -reach), high = SIMD3<Double>(reach, reach, 0)
    var entry = 0.0, exit = Double.infinity
    for axis in 0..<3 {
      if abs(d[axis]) < 1e-15 {
        if o[axis] <= low[axis] || o[axis] >= high[axis] { return nil }
        continue
      }
      var t0 = (low[axis] - o[axis]) / d[axis], t1 = (high[axis] - o[axis]) / d[axis]
      if t0 > t1 { swap(&t0, &t1) }
      entry = max(entry, t0)
      exit = min(exit, t1)
      if entry >= exit { return nil }
    }
    return (entry, exit)
  }
}
