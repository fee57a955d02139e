/// Errors from marker detection and drawing; each prints as one line.
public enum ArucoError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The name is not one of OpenCV's predefined dictionaries.
  case unknownDictionary(String)
  /// An argument the detector cannot use (empty image, bad parameters, id out of range).
  case invalidArgument(String)
  /// OpenCV raised an error; the text is OpenCV's.
  case openCV(String)

  public var description: String {
    switch self {
    case .unknownDictionary(let name):
      return "unknown ArUco dictionary '\(name)' (expected an OpenCV name such as DICT_4X4_50)"
    case .invalidArgument(let text): return text
    case .openCV(let text): return text
    }
  }
}
