import Foundation
internal import _HeadScanSupport

/// Why a de-identified copy cannot be made; one line, `path: problem` (or `--option: problem`).
public struct DeidentificationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file (the scan, the key file) or the option at fault.
  public let subject: String
  /// What is wrong.
  public let problem: String

  public init(_ subject: String, _ problem: String) {
    (self.subject, self.problem) = (subject, problem)
  }

  public var description: String { "\(subject): \(problem)" }
}

/// A calendar date, `YYYY-MM-DD` (proleptic Gregorian).
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let year: Int
  public let month: Int
  public let day: Int

  /// The date that `text` starts with (`YYYY-MM-DD`, as an ISO 8601 date or date-time begins),
  /// `nil` when it does not start with a valid date. With `exact`, nothing may follow.
  public init?(_ text: String, exact: Bool = true) {
    let characters = Array(text.utf8)
    guard characters.count >= 10, !exact || characters.count == 10 else { return nil }
    guard characters[4] == UInt8(ascii: "-"), characters[7] == UInt8(ascii: "-") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for c in characters[range] {
        guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(c - UInt8(ascii: "0"))
      }
      return value
    }
    guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), y >= 1 else { return nil }
    guard (1...Self.daysIn(month: m, year: y)).contains(d) else { return nil }
    // A date-time continues with `T` (or a space); anything else is not an ISO 8601 date.
    if characters.count > 10, characters[10] != UInt8(ascii: "T"), characters[10] != UInt8(ascii: " ") { return nil }
    (year, month, day) = (y, m, d)
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 (negative before it).
  public var dayNumber: Int {
    // Howard Hinnant's days_from_civil.
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

  public static func < (a: CalendarDate, b: CalendarDate) -> Bool { a.dayNumber < b.dayNumber }
}

/// The secret behind keyed pseudonyms: the bytes of a key file, shared by the sites that pool
/// scans and kept from everyone else.
public struct PseudonymKey: Sendable, Hashable {
  /// Fewest bytes a key may have: 16 (128 bits, e.g. `openssl rand -hex 16` gives 32).
  public static let minimumLength = 16
  /// Most bytes a key file may have: 4096.
  public static let maximumLength = 4096

  /// The key's bytes.
  public let bytes: [UInt8]

  /// A key of `bytes` (at least ``minimumLength``).
  public init(bytes: [UInt8]) {
    precondition(bytes.count >= Self.minimumLength, "a pseudonym key has at least 16 bytes")
    self.bytes = bytes
  }

  /// The key in a file: its bytes without trailing line breaks, spaces and tabs (so a key
  /// written by `echo` or an editor is the same key as one written without a newline).
  /// - Throws: ``DeidentificationError`` naming the file: unreadable, empty, shorter than
  ///   ``minimumLength`` or longer than ``maximumLength`` bytes.
  public init(fileAt path: String) throws(DeidentificationError) {
    let data: Data
    do {
      guard ReadOnlyFile.isRegularFile(path) else { throw DeidentificationError(path, "the key file is not a regular file (or does not exist)") }
      data = try ReadOnlyFile.contents(of: path)
    } catch let error as DeidentificationError {
      throw error
    } catch {
      throw DeidentificationError(path, "cannot read the key file: \((error as? FileAccessError)?.problem ?? "\(error)")")
    }
    guard data.count <= Self.maximumLength else { throw DeidentificationError(path, "the key file is over \(Self.maximumLength) bytes: not a key") }
    var bytes = [UInt8](data)
    while let last = bytes.last, [0x0A, 0x0D, 0x20, 0x09].contains(last) { bytes.removeLast() }
    guard bytes.count >= Self.minimumLength else {
      throw DeidentificationError(
        path, "the key has \(bytes.count) bytes; a pseudonym key needs at least \(Self.minimumLength) (e.g. openssl rand -hex 32 > \(path))")
    }
    self.bytes = bytes
  }
}

/// What a de-identified copy does to a scan's header (docs/formats.md, "De-identified copies"):
/// the patient ID becomes a keyed pseudonym, the recording time a date or, with a birth date, the
/// age at the scan in days.
public struct HeaderDeidentification: Sendable, Hashable {
  /// Prefix of every pseudonym.
  public static let pseudonymPrefix = "hs-"
  /// Hexadecimal digits of the HMAC kept in a pseudonym (64 bits).
  public static let pseudonymDigits = 16

  /// The shared key.
  public var key: PseudonymKey
  /// The child's birth date: the copy then says the age at the scan instead of the date.
  public var birthDate: CalendarDate?

  public init(key: PseudonymKey, birthDate: CalendarDate? = nil) {
    (self.key, self.birthDate) = (key, birthDate)
  }

  /// The pseudonym of `patientID`: `hs-` and the first 16 hexadecimal digits (lower case) of
  /// HMAC-SHA256(key, the ID's UTF-8 bytes without leading and trailing white space). The same
  /// ID and key give the same pseudonym at every site; without the key it cannot be computed
  /// or reversed. An ID that already is a pseudonym (`hs-` and 16 lower-case hexadecimal digits,
  /// e.g. from a de-identified copy) is kept, so de-identifying twice changes nothing.
  public func pseudonym(of patientID: String) -> String {
    let id = patientID.trimmingCharacters(in: .whitespacesAndNewlines)
    if Self.isPseudonym(id) { return id }
    let mac = SHA256.hmac(key: key.bytes, message: Array(id.utf8))
    return Self.pseudonymPrefix + String(SHA256.hex(mac).prefix(Self.pseudonymDigits))
  }

  /// Whether `text` has the form of a pseudonym: `hs-` and 16 lower-case hexadecimal digits.
  public static func isPseudonym(_ text: String) -> Bool {
    guard text.hasPrefix(pseudonymPrefix) else { return false }
    let digits = text.dropFirst(pseudonymPrefix.count)
    return digits.count == pseudonymDigits && digits.allSatisfy { "0123456789abcdef".contains($0) }
  }

  /// The recording time reduced: (the date `YYYY-MM-DD` as written, `nil`) without a birth date;
  /// (`nil`, age in days) with one. (`nil`, `nil`) when the time is not recorded.
  /// - Throws: ``DeidentificationError`` naming `path` when `recordedAt` does not start with an
  ///   ISO 8601 date, or lies before the birth date.
  public func reduce(recordedAt: String?, path: String) throws(DeidentificationError) -> (date: String?, ageInDays: Int?) {
    guard let recordedAt else { return (nil, nil) }
    guard let date = CalendarDate(recordedAt, exact: false) else {
      throw DeidentificationError(path, "recordedAt '\(recordedAt)' does not start with an ISO 8601 date (YYYY-MM-DD): cannot reduce it to a date")
    }
    guard let birthDate else { return (date.description, nil) }
    let age = date.dayNumber - birthDate.dayNumber
    guard age >= 0 else { throw DeidentificationError(path, "recorded on \(date), before the birth date \(birthDate) given") }
    return (nil, age)
  }
}

extension ScanHeader {
  /// The header of a de-identified copy: the patient ID pseudonymised, the recording time reduced
  /// (``HeaderDeidentification``); camera, sizes, fps and cap unchanged.
  /// - Throws: ``DeidentificationError`` naming `path` (the scan) when `recordedAt` cannot be reduced.
  public func deidentified(by deidentification: HeaderDeidentification, path: String) throws(DeidentificationError) -> ScanHeader {
    var header = self
    header.patientID = patientID.map(deidentification.pseudonym(of:))
    (header.recordedAt, header.ageAtScanDays) = try deidentification.reduce(recordedAt: recordedAt, path: path)
    if recordedAt == nil { header.ageAtScanDays = ageAtScanDays }
    return header
  }
}
