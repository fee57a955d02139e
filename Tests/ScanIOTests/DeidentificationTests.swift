import Foundation
import ScanIO
import Testing
import _TestSupport

/// The header side of de-identified copies: keyed pseudonyms, dates reduced to a date or an age,
/// key files.
struct DeidentificationTests {
  static let key = PseudonymKey(bytes: Array("0123456789abcdef0123456789abcdef".utf8))

  @Test func thePseudonymIsAKeyedHMACOfThePatientID() {
    let same = HeaderDeidentification(key: Self.key)
    // HMAC-SHA256(key, "patient-42"), first 16 hex digits (Python's hmac module gives the same).
    #expect(same.pseudonym(of: "patient-42") == "hs-d01debe6b4b6209f")
    // The same ID and key give the same pseudonym at every site; white space around the ID does not count.
    #expect(HeaderDeidentification(key: Self.key).pseudonym(of: " patient-42\n") == "hs-d01debe6b4b6209f")
    // Another key, another pseudonym; another ID, another pseudonym.
    let other = HeaderDeidentification(key: PseudonymKey(bytes: Array("0123456789abcdef0123456789abcdef!".utf8)))
    #expect(other.pseudonym(of: "patient-42") == "hs-fb3229d4ffd92494")
    #expect(same.pseudonym(of: "patient-43") != same.pseudonym(of: "patient-42"))
    // A pseudonym stays itself: de-identifying a de-identified copy changes nothing.
    #expect(other.pseudonym(of: "hs-d01debe6b4b6209f") == "hs-d01debe6b4b6209f" && HeaderDeidentification.isPseudonym("hs-d01debe6b4b6209f"))
    #expect(!HeaderDeidentification.isPseudonym("hs-D01DEBE6B4B6209F") && !HeaderDeidentification.isPseudonym("hs-d01debe6"))
  }

  /// "date/age", "-" for nil.
  static func text(_ reduced: (date: String?, ageInDays: Int?)) -> String {
    (reduced.date ?? "-") + "/" + (reduced.ageInDays.map(String.init) ?? "-")
  }

  @Test func theRecordingTimeBecomesADateOrAnAge() throws {
    let byDate = HeaderDeidentification(key: Self.key)
    #expect(Self.text(try byDate.reduce(recordedAt: "2026-11-21T10:15:00Z", path: "s")) == "2026-11-21/-")
    #expect(Self.text(try byDate.reduce(recordedAt: "2026-11-21T23:59:00-05:00", path: "s")) == "2026-11-21/-", "the date as written")
    #expect(Self.text(try byDate.reduce(recordedAt: nil, path: "s")) == "-/-")
    let byAge = HeaderDeidentification(key: Self.key, birthDate: CalendarDate("2026-05-01"))
    #expect(Self.text(try byAge.reduce(recordedAt: "2026-11-21T10:15:00Z", path: "s")) == "-/204")
    #expect(Self.text(try HeaderDeidentification(key: Self.key, birthDate: CalendarDate("2023-03-01")).reduce(recordedAt: "2024-03-01", path: "s")) == "-/366")
    // Not a date, or before the birth: refused, naming the scan.
    #expect(throws: DeidentificationError.self) { try byDate.reduce(recordedAt: "21/11/2026", path: "s") }
    do {
      _ = try byAge.reduce(recordedAt: "2026-04-30T08:00:00Z", path: "scan.rgbdscan")
      Issue.record("a scan before the birth date was accepted")
    } catch {
      #expect(error.description == "scan.rgbdscan: recorded on 2026-04-30, before the birth date 2026-05-01 given")
    }
    // Calendar dates are checked.
    #expect(CalendarDate("2024-02-29") != nil && CalendarDate("2023-02-29") == nil && CalendarDate("2024-13-01") == nil)
    #expect(CalendarDate("2024-02-29T10:00") == nil && CalendarDate("2024-02-29T10:00", exact: false) != nil)
    #expect(CalendarDate("1970-01-02")?.dayNumber == 1)
  }

  @Test func theHeaderKeepsItsCameraAndLosesItsIdentity() throws {
    let header = ScanHeader(
      depthWidth: 640, depthHeight: 480, colorWidth: 640, colorHeight: 480,
      intrinsics: CameraIntrinsics(fx: 593, fy: 593, cx: 319.5, cy: 239.5, width: 640, height: 480),
      markers: .init(dictionary: "DICT_4X4_50", sideLength: 0.016), capMarkerCount: 30, recordedAt: "2026-11-21T10:15:00Z",
      patientID: "patient-42")
    let copy = try header.deidentified(by: HeaderDeidentification(key: Self.key, birthDate: CalendarDate("2026-05-01")), path: "s")
    #expect(copy.patientID == "hs-d01debe6b4b6209f" && copy.recordedAt == nil && copy.ageAtScanDays == 204)
    var expected = header
    (expected.patientID, expected.recordedAt, expected.ageAtScanDays) = (copy.patientID, nil, 204)
    #expect(copy == expected)
    // The age travels in the stream's header.
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("copy.rgbdscan").path
      let writer = try RGBDScanWriter(path: path, header: copy, layout: RGBDStreamLayout(depthEncoding: .float32))
      let k = copy.colorIntrinsics
      try writer.append(
        ScanFrame(
          index: 0, timestamp: 0, depth: DepthMap(width: 640, height: 480, metres: .init(repeating: 0.3, count: 640 * 480), intrinsics: k),
          color: ColorImage(width: 640, height: 480, bgra: .init(repeating: 100, count: 640 * 480 * 4), intrinsics: k)))
      try writer.finish()
      let read = try openScan(at: path).header
      #expect(read.ageAtScanDays == 204 && read.patientID == "hs-d01debe6b4b6209f" && read.recordedAt == nil)
    }
  }

  @Test func keyFilesAreCheckedAndTheirLineBreaksIgnored() throws {
    try TestFiles.withTemporaryFolder { folder in
      let withNewline = folder.appendingPathComponent("key.txt").path, without = folder.appendingPathComponent("key2.txt").path
      try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: URL(fileURLWithPath: withNewline))
      try Data("0123456789abcdef0123456789abcdef".utf8).write(to: URL(fileURLWithPath: without))
      #expect(try PseudonymKey(fileAt: withNewline) == PseudonymKey(fileAt: without))
      #expect(try PseudonymKey(fileAt: without) == Self.key)
      let short = folder.appendingPathComponent("short.txt").path
      try Data("secret\n".utf8).write(to: URL(fileURLWithPath: short))
      #expect(throws: DeidentificationError(short, "the key has 6 bytes; a pseudonym key needs at least 16 (e.g. openssl rand -hex 32 > \(short))")) {
        try PseudonymKey(fileAt: short)
      }
      let missing = folder.appendingPathComponent("missing.txt").path
      #expect(throws: DeidentificationError(missing, "the key file is not a regular file (or does not exist)")) { try PseudonymKey(fileAt: missing) }
    }
  }
}
