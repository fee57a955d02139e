/// A scan that could not be measured, for problems whose own error does not name the file
/// (a detector that cannot read the scan's dictionary, a head that gives no frame or no
/// closed layer). Prints as one line, `path: problem`.
public struct MeasureScanError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The scan.
  public var path: String
  /// What went wrong.
  public var problem: String

  public init(path: String, problem: String) {
    self.path = path
    self.problem = problem
  }

  public var description: String { "\(path): \(problem)" }
}
