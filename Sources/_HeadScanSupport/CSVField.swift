import Foundation

/// A text field for the CSV files the tools write, safe to open in a spreadsheet: a field that
/// starts with `=`, `+`, `-`, `@`, a tab or a carriage return (what spreadsheets read as a
/// formula) gets a leading `'`, so it shows as text; then it is quoted as RFC 4180 asks — in
/// double quotes, inner quotes doubled — when it holds a comma, a quote or a line break.
/// Numbers the tools compute are written as numbers, not through this.
package func csvField(_ text: String) -> String {
  var text = text
  if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { text = "'" + text }
  guard text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r") else { return text }
  return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
