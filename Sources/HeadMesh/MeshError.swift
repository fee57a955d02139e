/// Why a mesh could not be made; prints as one line (the caller adds the file it came from).
public enum MeshError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The cloud has fewer usable points (finite, with a unit normal) than a surface needs.
  case tooFewPoints(found: Int, needed: Int)
  /// The cloud has no normals (every point needs one to tell inside from outside).
  case noNormals
  /// An option out of range.
  case invalidOption(String)
  /// The cloud's bounding box needs a larger grid than ``MeshOptions/maximumGridVertices``.
  case gridTooLarge(vertices: Int, limit: Int)
  /// No closed surface was found (the points do not enclose anything at this spacing).
  case noSurface

  public var description: String {
    switch self {
    case .tooFewPoints(let found, let needed): return "only \(found) usable points with normals for a mesh (at least \(needed) needed)"
    case .noNormals: return "the point cloud has no normals, needed to tell the inside of the head from the outside"
    case .invalidOption(let detail): return "invalid mesh option: \(detail)"
    case .gridTooLarge(let vertices, let limit):
      return "the cloud's extent needs a \(vertices)-vertex grid, more than the \(limit) allowed: use a coarser mesh spacing"
    case .noSurface: return "no closed surface found in the point cloud"
    }
  }
}
