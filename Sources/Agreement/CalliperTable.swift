import Foundation
import _HeadScanSupport

/// Calliper measurements, one row per scan (docs/formats.md, "Calliper table"), millimetres.
public struct CalliperTable: Sendable, Hashable {
  /// One infant's calliper measures.
  public struct Row: Sendable, Hashable {
    /// The scan's name: a report's file name without `.json`.
    public var scan: String
    /// 1-based line in the file.
    public var line: Int
    public var diagonalA: Double
    public var diagonalB: Double
    public var length: Double?
    public var width: Double?
    public var circumference: Double?
  }

  /// The file read.
  public var path: String
  /// Rows in file order.
  public var rows: [Row]

  /// Required columns.
  public static let requiredColumns = ["scan", "diagonalA", "diagonalB"]
  /// The largest value a measure column may hold, millimetres: a head's circumference is under
  /// 700 mm even for an adult, so a larger number is a typing or unit error (and far larger ones
  /// overflow the agreement statistics).
  public static let largestMillimetres = 1000.0
  /// Optional measure columns.
  public static let optionalColumns = ["length", "width", "circumference"]

  /// Reads and checks a calliper CSV (header row; comma-separated; RFC 4180 quotes allowed).
  /// - Throws: ``CalliperError`` naming the file, line and column.
  public init(path: String) throws {
    let data: Data
    do {
      data = try ReadOnlyFile.contents(of: path)
    } catch {
      throw CalliperError(path: path, line: nil, problem: error.problem)
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw CalliperError(path: path, line: nil, problem: "not UTF-8 text")
    }
    try self.init(text: text, path: path)
  }

  /// Parses CSV text; `path` names it in errors.
  public init(text: String, path: String) throws(CalliperError) {
    self.path = path
    let records = try parseCSV(text, path: path)
    guard let (headerLine, header) = records.first else { throw CalliperError(path: path, line: nil, problem: "empty file (a header row is needed)") }
    let names = header.map { $0.trimmingCharacters(in: .whitespaces) }
    var column: [String: Int] = [:]
    for (i, name) in names.enumerated() {
      if column[name] != nil { throw CalliperError(path: path, line: headerLine, problem: "column '\(name)' appears twice") }
      column[name] = i
    }
    let missing = Self.requiredColumns.filter { column[$0] == nil }
    guard missing.isEmpty else {
      throw CalliperError(path: path, line: headerLine, problem: "missing column\(missing.count > 1 ? "s" : "") \(missing.map { "'\($0)'" }.joined(separator: ", ")) (needs scan,diagonalA,diagonalB)")
    }
    var seen: [String: Int] = [:]
    var rows: [Row] = []
    for (line, fields) in records.dropFirst() {
      if fields.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
      guard fields.count == names.count else {
        throw CalliperError(path: path, line: line, problem: "\(fields.count) fields, the header has \(names.count)")
      }
      func field(_ name: String) -> String? { column[name].map { fields[$0].trimmingCharacters(in: .whitespaces) } }
      func number(_ name: String, required: Bool) throws(CalliperError) -> Double? {
        guard let raw = field(name), !raw.isEmpty else {
          if required { throw CalliperError(path: path, line: line, problem: "'\(name)' is empty") }
          return nil
        }
        guard let value = Double(raw), value.isFinite, value > 0 else {
          throw CalliperError(path: path, line: line, problem: "'\(name)' is not a positive number: '\(raw)'")
        }
        guard value <= Self.largestMillimetres else {
          throw CalliperError(path: path, line: line, problem: "'\(name)' is \(raw) mm, more than \(Int(Self.largestMillimetres)) mm: not a head's measure")
        }
        return value
      }
      let scan = field("scan") ?? ""
      guard !scan.isEmpty else { throw CalliperError(path: path, line: line, problem: "'scan' is empty") }
      if let first = seen[scan] {
        throw CalliperError(path: path, line: line, problem: "scan '\(scan)' appears twice (first on line \(first))")
      }
      seen[scan] = line
      rows.append(Row(
        scan: scan, line: line, diagonalA: try number("diagonalA", required: true)!, diagonalB: try number("diagonalB", required: true)!,
        length: try number("length", required: false), width: try number("width", required: false),
        circumference: try number("circumference", required: false)))
    }
    guard !rows.isEmpty else { throw CalliperError(path: path, line: nil, problem: "no data rows after the header") }
    self.rows = rows
  }
}

/// A calliper file that cannot be used.
public struct CalliperError: Error, Sendable, Hashable, CustomStringConvertible {
  public var path: String
  public var line: Int?
  public var problem: String

  public var description: String { line.map { "\(path):\($0): \(problem)" } ?? "\(path): \(problem)" }
}

/// RFC 4180 records with the 1-based line each starts on. Fields may be quoted (`""` is a quote
/// inside quotes); records end at LF or CRLF.
func parseCSV(_ text: String, path: String) throws(CalliperError) -> [(line: Int, fields: [String])] {
  var records: [(Int, [String])] = []
  var fields: [String] = [], field = ""
  var quoted = false, afterQuote = false, fieldStarted = false
  var line = 1, recordLine = 1
  var characters = text.unicodeScalars.makeIterator()
  var pending: Unicode.Scalar? = characters.next()
  func endRecord() {
    fields.append(field)
    if !(fields.count == 1 && fields[0].isEmpty && !fieldStarted) { records.append((recordLine, fields)) }
    fields = []
    field = ""
    fieldStarted = false
    afterQuote = false
  }
  while let c = pending {
    pending = characters.next()
    if quoted {
      if c == "\"" {
        if pending == "\"" {
          field.unicodeScalars.append("\"")
          pending = characters.next()
        } else {
          quoted = false
          afterQuote = true
        }
      } else {
        if c == "\n" { line += 1 }
        field.unicodeScalars.append(c)
      }
      continue
    }
    switch c {
    case "\"":
      guard field.isEmpty, !afterQuote else { throw CalliperError(path: path, line: line, problem: "a quote inside an unquoted field") }
      quoted = true
      fieldStarted = true
    case ",":
      fields.append(field)
      field = ""
      afterQuote = false
      fieldStarted = true
    case "\r" where pending == "\n":
      continue
    case "\n":
      endRecord()
      line += 1
      recordLine = line
    default:
      guard !afterQuote || c == " " else { throw CalliperError(path: path, line: line, problem: "text after a closing quote") }
      field.unicodeScalars.append(c)
      fieldStarted = true
    }
  }
  if quoted { throw CalliperError(path: path, line: recordLine, problem: "a quoted field is not closed") }
  if fieldStarted || !field.isEmpty || !fields.isEmpty { endRecord() }
  return records
}
