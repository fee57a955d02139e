import Foundation

/// Why a frame got no pose.
public enum FrameRejection: Sendable, Hashable, CustomStringConvertible {
  /// No cap marker detected.
  case noMarkers
  /// Fewer usable markers than ``ChainOptions/minimumMarkersPerFrame``.
  case tooFewMarkers(Int)
  /// Its markers never connect to the others.
  case notLinked
  /// Its markers' outlines are smeared (the phone moved during exposure), σ in pixels.
  case motionBlur(pixels: Double)
  /// Its corners do not fit the marker map (a bad detection), RMS in mm.
  case largeResidual(millimetres: Double)
  /// Too close for depth (fewer than two stickers lifted by depth), and its stickers' pixels do
  /// not place it against the map either (no resection within 0.15 mm at the stickers'
  /// distance): its pose would be uncertain by millimetres.
  case tooLittleDepth(depthMarkers: Int)

  /// The kind of rejection without its value, for grouping in summaries.
  public var kind: String {
    switch self {
    case .noMarkers: return "no markers"
    case .tooFewMarkers: return "too few usable markers"
    case .notLinked: return "not linked to the other frames"
    case .motionBlur: return "motion blur"
    case .largeResidual: return "corner residual above the limit"
    case .tooLittleDepth: return "too little depth to place it"
    }
  }

  /// The reason in words, with its value.
  public var description: String {
    switch self {
    case .noMarkers: return "no markers"
    case .tooFewMarkers(let n): return "only \(n) usable marker\(n == 1 ? "" : "s")"
    case .notLinked: return "not linked to the other frames"
    case .motionBlur(let px): return String(format: "motion blur (edges σ %.1f px)", px)
    case .largeResidual(let mm): return String(format: "corner residual %.1f mm", mm)
    case .tooLittleDepth(let n):
      return "too little depth (\(n) sticker\(n == 1 ? "" : "s") lifted by depth) and its stickers' pixels do not fit the map"
    }
  }
}
