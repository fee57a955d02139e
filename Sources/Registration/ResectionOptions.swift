/// Settings of the resection stage (``resectFrames(_:options:)``): placing cameras and marker
/// corners again from the detected pixels, against the optimised map.
public struct ResectionOptions: Sendable, Hashable {
  /// Frames with fewer depth-lifted markers than this (too close for depth: TrueDepth sees
  /// nothing nearer than ~20 cm; or two stickers close together, which leave the camera free to
  /// swing) are placed by resection: all their stickers' pixels against the optimised map at
  /// once. Those with fewer than two depth stickers whose pixels do not fit the map are rejected
  /// (``FrameRejection/tooLittleDepth(depthMarkers:)``). On simulated 240-frame scans this took
  /// the largest camera error (after the best alignment to the truth) from 3.1–4.1 mm to 0.6–1.8 mm.
  public var minimumDepthMarkersForDepthPose = 3
  /// Whether every marker corner is then placed again where its pixels in all registered frames
  /// point (triangulation with the frames' poses held). The lifted corners carry the depth
  /// map's error, which is not random where a sticker bends away.
  public var triangulateMarkers = true

  /// The defaults.
  public static let `default` = ResectionOptions()

  public init() {}
}
