import Registration

/// Settings of the fusion stage (``fuseFrames(_:registration:options:progress:)``). Lengths in metres.
public struct FusionOptions: Sendable, Hashable {
  /// Voxel size of the fused cloud. The grid spans at most 2047 voxels across (about 2 m at
  /// 1 mm, 41 cm at 0.2 mm); a wider head region is refused
  /// (`ReconstructionError/voxelGridTooLarge(path:across:voxelSize:limit:)`).
  public var voxelSize = 0.001
  /// Shift of the voxel grid against the world (metres, each axis from 0 to under
  /// ``voxelSize``): voxel k spans `k · voxelSize − offset` to `(k + 1) · voxelSize − offset`.
  /// Where the grid lies against the head is arbitrary (the world is one sticker's frame), and it
  /// moves the fused surface by a fraction of a voxel; fusing at several offsets measures how
  /// much that moves the measures (docs/accuracy.md, "Where the voxel grid lies"). Zero by default.
  public var latticeOffset = SIMD3<Double>.zero
  /// Depth kept beyond the sphere through the markers (the cap's head region).
  public var headMargin = 0.025
  /// Frames fused need at least this many depth-lifted markers: a pose held by two stickers
  /// is the least certain, and its depth blurs the surface (on simulated 240-frame scans the
  /// vault's RMS error is 0.11 mm with this rule, 0.17 mm without). Where fewer than a quarter of the registered
  /// frames qualify, all registered frames are fused.
  public var minimumMarkersToFuse = 3
  /// Registered frames fused at most, spread evenly over the recording (every frame's turn
  /// comes at the same interval, so every view the recording has is still fused); `nil` fuses
  /// every registered frame. Registration always uses every frame.
  ///
  /// Beyond a few hundred frames the fused surface no longer gets more accurate: each surface
  /// voxel has been seen hundreds of times, the depth noise left on it (further averaged by the
  /// cleaning stage) is far below the registration's own error, which more frames of the same
  /// views do not reduce. Measured on a realistic-preset recording of 1800 frames (1658
  /// registered): fusing 1658, 829, 415 or 207 of them left the vault's RMS error after alignment
  /// at 0.05, 0.05, 0.05 and 0.06 mm and CVAI, the diagonals and the circumference within their
  /// run-to-run spread, while the fusion's time fell in proportion (docs/performance.md). The
  /// default, 600, is a 20 s recording at 30 fps, the shortest a clinic records: shorter scans
  /// fuse every frame.
  public var maximumFrames: Int? = 600
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
  /// metres; `nil` (the default) sets it from the scan's estimated noise
  /// (``truncation(for:)``). A band narrower than a few σ of the depth noise drops the noisy
  /// samples that fall behind it while clamping those in front, and the fused surface moves away
  /// from the camera (inward on a head): 0.22 σ for a band of 1.33 σ, 0.004 σ for 3 σ.
  public var truncation: Double?
  /// Signed-distance fusion: the band's half-width in standard deviations of the depth noise at
  /// the scan's far depth (`ScanNoise/farDepthNoise`), when ``truncation`` is `nil`. At 3 σ
  /// the one-sided loss of samples leaves the surface 0.004 σ inward (Gaussian noise).
  public var truncationDeviations = 3.0
  /// Signed-distance fusion: the least band half-width, voxels. The surface is found between
  /// neighbouring voxels both inside the band, so a band of a voxel or two leaves holes where
  /// rays cross the surface obliquely.
  public var minimumTruncationVoxels = 3.0
  /// Signed-distance fusion: voxels seen fewer times than this give no surface point.
  public var minimumObservations = 3

  /// Worker threads (`nil`: one a core this process may use). The result does not depend on it.
  public var workers: Int?

  /// The defaults.
  public static let `default` = FusionOptions()

  public init() {}

  /// The signed-distance band's half-width for a scan of this noise, metres: ``truncation`` if
  /// set; otherwise ``truncationDeviations`` σ of the depth noise at the scan's far depth, at
  /// least ``minimumTruncationVoxels`` voxels and at most ``headMargin`` (wider, the band behind
  /// a surface would reach through the shell the fusion keeps). Without a noise estimate, the
  /// least band.
  public func truncation(for noise: ScanNoise) -> Double {
    if let truncation { return truncation }
    let least = minimumTruncationVoxels * voxelSize
    guard let sigma = noise.farDepthNoise, sigma.isFinite, sigma > 0 else { return least }
    return max(least, min(headMargin, truncationDeviations * sigma))
  }
}

/// How ``fuseFrames(_:registration:options:progress:)`` turns registered depth into one surface.
public enum FusionMethod: String, Sendable, Hashable, CaseIterable, Codable {
  /// Every back-projected point is averaged into its voxel. Simple and fast, but a
  /// voxel's mean only averages the points that fall inside it: with per-pixel depth noise σ the
  /// fused shell stays several voxels thick and about σ rough.
  case voxelMean = "voxel-mean"
  /// A truncated signed-distance volume (Curless and Levoy 1996; KinectFusion): every pixel
  /// updates the voxels along its ray within ``FusionOptions/truncation`` of its surface point
  /// with their signed distance to it, and the surface is where the averaged distance crosses
  /// zero. Noise is averaged along the surface normal, so it falls roughly as
  /// 1/√(observations). The default.
  case signedDistance = "signed-distance"
}
