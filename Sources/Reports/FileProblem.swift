/// A file that cannot be used, whose own error would not name it: a scan that cannot be
/// measured, a report that cannot be read, a batch's bookkeeping file that is damaged.
/// Prints as one line, `path: problem`.
public struct FileProblem: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file (or folder) concerned.
  public var path: String
  /// What is wrong with it, e.g. `missing report key 'cvai'`.
  public var problem: String

  /// The problem `problem` (one line, no path) of the file or folder at `path`.
  public init(path: String, problem: String) {
    self.path = path
    self.problem = problem
  }

  /// `path: problem`, one line.
  public var description: String { "\(path): \(problem)" }
}
