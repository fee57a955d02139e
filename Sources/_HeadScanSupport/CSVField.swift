import Foundation

/// A CSV field quoted as RFC 4180 asks: in double quotes, inner quotes doubled, when it holds
/// a comma, a quote or a line break; as it is otherwise.
package func csvField(_ text: String) -> String {
  guard text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r") else { return text }
  return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
