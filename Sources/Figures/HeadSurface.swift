/// What the report's three views draw: the head's points, and its triangles when a mesh is at hand.
///
/// Points are in the head frame, **millimetres**: x anterior, y the infant's left,
/// z up from the ears' plane. A point cloud has no triangles; a mesh gives them as index
/// triples into ``points`` (triangles naming a missing point are skipped when drawn).
public struct HeadSurface: Sendable {
  /// Head-frame points, mm.
  public var points: [SIMD3<Double>]
  /// Triangles as indices into ``points``; empty for a cloud.
  public var triangles: [SIMD3<Int32>]
  /// Per point of a mesh: whether it lies on surface the mesh filled (bridged across a hole,
  /// not measured); drawn in grey-blue. Empty: every point measured.
  public var filled: [Bool]

  /// A cloud (no `triangles`) or a mesh.
  /// - Parameters:
  ///   - points: head-frame points, millimetres.
  ///   - triangles: index triples into `points`, counter-clockwise seen from outside; default none.
  ///   - filled: per point, whether it lies on filled (not measured) surface; default none.
  public init(points: [SIMD3<Double>], triangles: [SIMD3<Int32>] = [], filled: [Bool] = []) {
    self.points = points
    self.triangles = triangles
    self.filled = filled
  }

  /// A cloud from head-frame points in **metres** (as `HeadFrameEstimate.headPoints(of:)` gives them).
  public init(headPointsInMetres points: [SIMD3<Double>]) {
    self.init(points: points.map { $0 * 1000 })
  }

  /// The direction a view looks from.
  public enum View: String, Sendable, CaseIterable {
    /// From above the vertex, the face at the top of the page (the infant's left on the page's left,
    /// as in `HeadPlots`).
    case top
    /// From the infant's left, the face on the page's left.
    case side
    /// From in front of the face, the infant's left on the page's right.
    case front

    /// Page right, page up and toward the viewer, in the head frame (right-handed).
    var basis: (right: SIMD3<Double>, up: SIMD3<Double>, toward: SIMD3<Double>) {
      switch self {
      case .top: return ([0, -1, 0], [1, 0, 0], [0, 0, 1])
      case .side: return ([-1, 0, 0], [0, 0, 1], [0, 1, 0])
      case .front: return ([0, 1, 0], [0, 0, 1], [1, 0, 0])
      }
    }

    /// The caption under the view.
    var caption: String {
      switch self {
      case .top: return "Top: seen from above, face up"
      case .side: return "Left side: face to the left"
      case .front: return "Front: facing the infant"
      }
    }

    /// Labels at the page's left, right and top edges.
    var edgeLabels: (left: String, right: String, top: String) {
      switch self {
      case .top: return ("L", "R", "anterior")
      case .side: return ("anterior", "posterior", "")
      case .front: return ("R", "L", "")
      }
    }
  }
}
