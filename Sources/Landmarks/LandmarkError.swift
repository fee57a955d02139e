import CVAI

/// Why a landmark could not be placed in 3D or give a head frame; each names the landmarks
/// file (and the landmark where there is one).
public enum LandmarkError: Error, Sendable, Equatable, CustomStringConvertible {
  case frameOutOfRange(path: String, name: String, frame: Int, frameCount: Int)
  case frameNotRegistered(path: String, name: String, frame: Int, reason: String)
  case pixelOutsideImage(path: String, name: String, frame: Int)
  case noDepth(path: String, name: String, frame: Int)
  /// The lifted points do not make a head frame (`HeadFrameError` says why).
  case noHeadFrame(path: String, HeadFrameError)

  public var description: String {
    switch self {
    case .frameOutOfRange(let path, let name, let frame, let count):
      return "\(path): landmark '\(name)' refers to frame \(frame), but the scan has \(count) frames"
    case .frameNotRegistered(let path, let name, let frame, let reason):
      return "\(path): landmark '\(name)' is in frame \(frame), which has no pose (\(reason)); mark it in another frame"
    case .pixelOutsideImage(let path, let name, let frame):
      return "\(path): landmark '\(name)' lies outside frame \(frame)'s image"
    case .noDepth(let path, let name, let frame):
      return "\(path): landmark '\(name)' has no depth at its pixel in frame \(frame), nor a fused point along its ray"
    case .noHeadFrame(let path, let error):
      return "\(path): \(error)"
    }
  }
}
