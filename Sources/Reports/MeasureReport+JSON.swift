import Foundation
import _HeadScanSupport

extension MeasureReport {
  /// The report as `headscan measure --json` writes it: pretty-printed UTF-8 JSON with sorted
  /// keys and unescaped slashes; keys without a value are left out.
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(self)
  }

  /// Reads a report from JSON; `path` names the source in errors.
  /// - Throws: ``FileProblem``: `missing report key 'x'` (nested keys joined by dots), `report
  ///   key 'x' is not a number`, or `not a headscan report (invalid JSON)`.
  public init(json data: Data, path: String) throws(FileProblem) {
    do {
      self = try JSONDecoder().decode(MeasureReport.self, from: data)
    } catch DecodingError.keyNotFound(let key, let context) {
      throw FileProblem(path: path, problem: "missing report key '\(Self.keyPath(context.codingPath + [key]))'")
    } catch DecodingError.typeMismatch(let type, let context) where !context.codingPath.isEmpty {
      throw FileProblem(path: path, problem: "report key '\(Self.keyPath(context.codingPath))' \(Self.kind(type))")
    } catch DecodingError.valueNotFound(let type, let context) {
      throw FileProblem(path: path, problem: "report key '\(Self.keyPath(context.codingPath))' \(Self.kind(type))")
    } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
      throw FileProblem(path: path, problem: "report key '\(Self.keyPath(context.codingPath))' has an invalid value")
    } catch {
      throw FileProblem(path: path, problem: "not a headscan report (invalid JSON)")
    }
  }

  /// Reads a report file.
  /// - Throws: ``FileProblem`` naming the file: unreadable, not JSON, or an always-present key missing.
  public init(path: String) throws(FileProblem) {
    let data: Data
    do {
      data = try ReadOnlyFile.contents(of: path)
    } catch {
      throw FileProblem(path: path, problem: error.problem)
    }
    try self.init(json: data, path: path)
  }

  /// `registration.frames` from a decoding path.
  private static func keyPath(_ path: [any CodingKey]) -> String {
    path.map(\.stringValue).joined(separator: ".")
  }

  /// What a key's value should have been, for the error line.
  private static func kind(_ type: Any.Type) -> String {
    switch type {
    case is Double.Type, is Int.Type: return "is not a number"
    case is String.Type: return "is not a string"
    default: return "has the wrong type"
    }
  }
}
