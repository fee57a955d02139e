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
