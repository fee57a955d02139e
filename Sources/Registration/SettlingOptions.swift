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
