/// Settings of the fusion stage (``fuseFrames(_:registration:options:progress:)``). Lengths in metres.
public struct FusionOptions: Sendable, Hashable {
  /// Voxel size of the fused cloud. The grid spans at most 2047 voxels across (about 2 m at
  /// 1 mm, 41 cm at 0.2 mm); a wider head region is refused
  /// (``ReconstructionError/voxelGridTooLarge(path:across:voxelSize:limit:)``).
  public var voxelSize = 0.001
  /// Depth kept beyond the sphere through the markers (the cap's head region).
  public var headMargin = 0.025
  /// Frames fused need at least this many depth-lifted markers: a pose held by two stickers
  /// is the least certain, and its depth blurs the surface (on simulated 240-frame scans the
  /// vault's RMS error went from 0.17 to 0.11 mm). Where fewer than a quarter of the registered
  /// frames qualify, all registered frames are fused.
  public var minimumMarkersToFuse = 3
  /// Whether each frame is aligned by ICP to the model fused so far before it is fused, where
  /// that lowers its distance to the model (off by default: marker poses are already finer
  /// than the depth noise, so it seldom helps, and it costs about a third of a second a frame).
  public var icpRefinement = false
  /// How the frames are fused (``FusionMethod``): a signed-distance volume by default, which
  /// averages depth noise along the surface normal. It needs voxels no finer than a depth
  /// pixel's footprint on the head (about 0.5 mm at 30 cm for 640 px): finer voxels are
  /// reached by too few rays and the surface thins out; use ``FusionMethod/voxelMean`` there.
  /// ICP refinement works with ``FusionMethod/voxelMean`` only.
  public var method = FusionMethod.signedDistance
  /// Signed-distance fusion: half-width of the band each pixel updates around its surface point,
  /// metres. It must exceed the depth noise by a few σ (TrueDepth: 0.4–1 mm at 20–30 cm), or noisy
  /// samples fall outside the band and the average is biased toward the camera.
  public var truncation = 0.003
  /// Signed-distance fusion: voxels seen fewer times than this give no surface point.
  public var minimumObservations = 3

  /// The defaults.
  public static let `default` = FusionOptions()

  public init() {}
}
