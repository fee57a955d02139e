import Foundation

/// Why a scan could not be registered or fused; each prints as one line naming the scan.
public enum ReconstructionError: Error, Sendable, CustomStringConvertible {
  /// No frame shows a cap marker.
  case noMarkers(path: String)
  /// No frame has a valid depth sample.
  case noDepth(path: String)
  /// Fewer than two frames could be registered; `reasons` counts the frames' rejections.
  case notEnoughFrames(path: String, registered: Int, reasons: String)
  /// No marker passes the ``MarkerKeepRule``; `best` describes the most-seen one.
  case noWellSeenMarker(path: String, best: String)
  /// The head region (the sphere through the markers and its margin, `across` metres wide) needs
  /// more voxels than the fusion grid holds at `voxelSize`; `limit` is the widest it takes, metres.
  case voxelGridTooLarge(path: String, across: Double, voxelSize: Double, limit: Double)
  /// An option out of its range.
  case invalidOption(path: String, detail: String)
  /// A numerical step failed (a singular system, a native library's error).
  case numerical(path: String, detail: String)

  public var description: String {
    switch self {
    case .noMarkers(let path): return "\(path): no cap markers detected in any frame (wrong dictionary, or no cap?)"
    case .noDepth(let path): return "\(path): no frame has any valid depth (every depth sample is NaN or zero)"
    case .notEnoughFrames(let path, let registered, let reasons):
      return "\(path): only \(registered) frames could be registered (\(reasons))"
    case .numerical(let path, let detail): return "\(path): registration failed: \(detail)"
    case .noWellSeenMarker(let path, let best):
      return "\(path): no marker's position is determined well enough to define the world frame (best: \(best))"
    case .voxelGridTooLarge(let path, let across, let voxelSize, let limit):
      return String(
        format: "%@: the head region is %.0f mm across, too wide for the fusion grid at %g mm voxels (at most %.0f mm); use larger voxels",
        path, across * 1000, voxelSize * 1000, limit * 1000)
    case .invalidOption(let path, let detail): return "\(path): \(detail)"
    }
  }
}
