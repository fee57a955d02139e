import PointCloud

/// The clinical head frame built from four landmarks (docs/head-frame-and-measures.md, "Head frame").
///
/// - z (up): unit normal of the plane through nasion and both ears, on the side away from the nose tip;
/// - x (anterior): nasion minus the ears' midpoint, projected into that plane;
/// - y (left) = z × x; origin at the ears' midpoint.
public struct HeadFrame: Sendable, Hashable {
  /// Maps points of the landmarks' frame (e.g. the scan's world, metres) into the head frame (metres).
  public let headFromWorld: RigidTransform

  /// - Parameters: landmark positions in one frame (e.g. world), metres; left/right are the infant's own.
  /// - Throws: ``HeadFrameError`` when the landmarks cannot define a frame.
  public init(nasion n: SIMD3<Double>, noseTip t: SIMD3<Double>, leftEar l: SIMD3<Double>, rightEar r: SIMD3<Double>) throws(HeadFrameError) {
    let mid = (l + r) / 2
    var z = (l - n).cross(r - n)
    guard z.length > 1e-9, (l - r).length > 1e-4 else { throw .degenerate("nasion and ears are (nearly) collinear or coincide") }
    z = z.normalized
    let noseSide = (t - n).dot(z)
    guard abs(noseSide) > 1e-5 else { throw .degenerate("the nose tip lies in the plane of nasion and ears") }
    if noseSide > 0 { z = -z }
    var x = (n - mid) - (n - mid).dot(z) * z
    guard x.length > 1e-4 else { throw .degenerate("the nasion coincides with the ears' midpoint") }
    x = x.normalized
    let y = z.cross(x)
    // Sanity: the infant's left ear must be on +y.
    guard (l - mid).dot(y) > 0 else { throw .degenerate("left and right ears are swapped (the left ear lies on the right of the nasion)") }
    let worldFromHead = RigidTransform(rotation: Rotation3(columns: x, y, z), translation: mid)
    headFromWorld = worldFromHead.inverse
  }

  /// From named landmarks `nasion`, `noseTip`, `leftEar` and `rightEar` (one frame, metres),
  /// e.g. `HeadLandmarks.named` of the Landmarks module as a dictionary.
  public init(landmarks: [String: SIMD3<Double>]) throws(HeadFrameError) {
    let names = ["nasion", "noseTip", "leftEar", "rightEar"]
    if let missing = names.first(where: { landmarks[$0] == nil }) { throw .degenerate("landmark '\(missing)' is missing") }
    try self.init(nasion: landmarks["nasion"]!, noseTip: landmarks["noseTip"]!, leftEar: landmarks["leftEar"]!, rightEar: landmarks["rightEar"]!)
  }

  /// The head frame's axes and origin in the landmarks' frame.
  public var worldFromHead: RigidTransform { headFromWorld.inverse }
}

/// Why landmarks could not make a head frame.
public enum HeadFrameError: Error, Sendable, Equatable, CustomStringConvertible {
  case degenerate(String)

  public var description: String {
    switch self {
    case .degenerate(let why): return "landmarks do not define a head frame: \(why)"
    }
  }
}
