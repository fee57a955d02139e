/// Why the annotation server cannot start or a request cannot be served; prints as one line.
public enum AnnotationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The page may only listen on the loopback interface (127.0.0.0/8, ::1, localhost).
  case notLoopback(host: String)
  /// A port outside 0…65535.
  case invalidPort(Int)
  /// The page's own files are missing from the installed resources.
  case missingAsset(String)
  /// A request the page should not send: bad JSON, unknown landmark, frame out of range.
  case badRequest(String)

  public var description: String {
    switch self {
    case .notLoopback(let host):
      return "\(host): refusing to listen on a non-loopback address: the page serves the scan to anyone who can reach it (use 127.0.0.1, ::1 or localhost)"
    case .invalidPort(let port): return "--port \(port): not a port number (0…65535; 0 picks a free one)"
    case .missingAsset(let name): return "\(name): the annotation page's file is missing from the installed resources"
    case .badRequest(let detail): return detail
    }
  }
}
