/// How a marker's corners got their 3D position.
public enum LiftMethod: String, Sendable, Hashable, Codable {
  /// From the registered depth map around each corner.
  case depth
  /// From the 2D corners and the known marker side (PnP), where depth was missing.
  case pnp
}
