/// Why a file could not be read or written; prints as one line, `path: problem`.
///
/// The texts match `ScanIOError`'s for the same failures, so a message does not depend on
/// which module opened the file.
package struct FileAccessError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong.
  package enum Failure: Sendable, Equatable {
    /// The file cannot be opened or read (`reason` from the system).
    case cannotOpen(reason: String)
    /// The file ended before the bytes asked for.
    case truncated(detail: String)
    /// Writing failed (`reason` from the system).
    case cannotWrite(reason: String)
  }

  /// The file concerned.
  package var path: String
  /// What went wrong.
  package var failure: Failure

  package init(path: String, _ failure: Failure) {
    self.path = path
    self.failure = failure
  }

  /// What is wrong, without the path.
  package var problem: String {
    switch failure {
    case .cannotOpen(let reason): return "cannot open: \(reason)"
    case .truncated(let detail): return detail
    case .cannotWrite(let reason): return "cannot write: \(reason)"
    }
  }

  /// One line: `path: problem`.
  package var description: String { "\(path): \(problem)" }
}
