/// A report file that cannot be used: prints as one line, `path: problem`.
public struct ReportError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The report file.
  public var path: String
  /// What is wrong with it, e.g. `missing report key 'cvai'`.
  public var problem: String

  public init(path: String, problem: String) {
    self.path = path
    self.problem = problem
  }

  public var description: String { "\(path): \(problem)" }
}
