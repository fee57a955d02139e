import Foundation
import ScanIO
import Testing
import _TestSupport

/// Every malformed stream gives a typed error whose one-line text names the file and the problem.
struct BadStreamTests {
  func open(_ bytes: [UInt8]) throws -> (String, Result<RGBDScanReader, ScanIOError>) {
    try TestFiles.withTemporaryFolder { folder in
      let path = try StreamFixtures.write(bytes, in: folder)
      do throws(ScanIOError) {
        return (path, .success(try RGBDScanReader(path: path)))
      } catch {
        return (path, .failure(error))
      }
    }
  }

  func expectError(_ bytes: [UInt8], _ check: (ScanIOError, String) -> Bool, containing text: String) throws {
    let (path, result) = try open(bytes)
    guard case .failure(let error) = result else {
      Issue.record("expected an error containing '\(text)'")
      return
    }
    #expect(check(error, path), "unexpected error \(error)")
    #expect(error.description.hasPrefix(path + ": "), "message must name the file: \(error)")
    #expect(error.description.contains(text), "message must say '\(text)': \(error)")
    #expect(!error.description.contains("\n"))
  }

  @Test func wrongMagic() throws {
    try expectError(StreamFixtures.stream(magic: "RGBDSCAM"), { e, _ in if case .badMagic = e { true } else { false } }, containing: "wrong magic")
  }

  @Test func emptyAndTinyFiles() throws {
    try expectError([], { e, _ in if case .badMagic = e { true } else { false } }, containing: "wrong magic")
    try expectError(Array("RGBDSCAN".utf8) + [1, 0], { e, _ in if case .sizeMismatch = e { true } else { false } }, containing: "preamble")
  }

  @Test func unknownVersion() throws {
    try expectError(StreamFixtures.stream(version: 2), { $0 == .unsupportedVersion(path: $1, version: 2) }, containing: "version 2")
  }

  @Test func headerLengthPastEnd() throws {
    let bytes = StreamFixtures.preamble(headerLength: 5000) + Array("{}".utf8)
    try expectError(bytes, { $0 == .headerPastEnd(path: $1, headerLength: 5000, fileSize: 18) }, containing: "past the end")
  }

  /// A length field that the file's size allows but no header needs is refused before the
  /// header is read (a damaged length in a multi-gigabyte scan would otherwise be allocated).
  @Test func headerLengthOverTheBound() throws {
    let length = RGBDScanReader.maximumHeaderLength + 1
    let bytes = StreamFixtures.preamble(headerLength: length) + [UInt8](repeating: 0x20, count: length)
    try expectError(
      bytes, { e, _ in if case .unsupportedContent = e { true } else { false } }, containing: "header length \(length) bytes is over")
    // At the bound itself the header is read (and here is not JSON).
    let atBound = StreamFixtures.preamble(headerLength: length - 1) + [UInt8](repeating: 0x20, count: length - 1)
    try expectError(atBound, { e, _ in if case .invalidJSON = e { true } else { false } }, containing: "not valid JSON")
  }

  @Test func invalidJSON() throws {
    let json = Array("{\"depth\": {\"width\": 4,".utf8)
    try expectError(StreamFixtures.preamble(headerLength: json.count) + json, { e, _ in if case .invalidJSON = e { true } else { false } }, containing: "not valid JSON")
  }

  @Test(arguments: [
    ("\"intrinsics\": {\"fx\": 593.0, \"fy\": 593.0, \"cx\": 319.5, \"cy\": 239.5, \"width\": 640, \"height\": 480},", "intrinsics"),
    ("\"markers\": {\"dictionary\": \"DICT_4X4_50\", \"sideLength\": 0.016},", "markers"),
    ("\"sideLength\": 0.016", "markers.sideLength"),
    ("\"fx\": 593.0, ", "intrinsics.fx"),
    ("\"encoding\": \"float32\"", "depth.encoding"),
  ])
  func missingRequiredKeyIsNamed(removed: String, key: String) throws {
    var header = StreamFixtures.headerJSON.replacingOccurrences(of: removed, with: "")
    header = header.replacingOccurrences(of: ", }", with: "}").replacingOccurrences(of: "{, ", with: "{")
    header = header.replacingOccurrences(of: "\"width\": 4, \"height\": 3, }", with: "\"width\": 4, \"height\": 3}")
    header = header.replacingOccurrences(of: "\"DICT_4X4_50\", }", with: "\"DICT_4X4_50\"}")
    try expectError(StreamFixtures.stream(header: header), { $0 == .missingKey(path: $1, key: key) }, containing: "'\(key)'")
  }

  @Test func wronglyTypedKeyIsNamed() throws {
    let header = StreamFixtures.headerJSON.replacingOccurrences(of: "\"fx\": 593.0", with: "\"fx\": \"593\"")
    try expectError(StreamFixtures.stream(header: header), { e, _ in if case .invalidValue(_, "intrinsics.fx", _) = e { true } else { false } }, containing: "'intrinsics.fx'")
    let encoding = StreamFixtures.headerJSON.replacingOccurrences(of: "\"float32\"", with: "\"int8\"")
    try expectError(StreamFixtures.stream(header: encoding), { e, _ in if case .invalidValue(_, "depth.encoding", _) = e { true } else { false } }, containing: "int8")
    // A fraction or an out-of-range number where a whole number belongs: named by its key (the
    // system's decoder alone says "not valid JSON").
    for (value, shown) in [("4.5", "4.5"), ("1e30", "1e+30")] {
      let fraction = StreamFixtures.headerJSON.replacingOccurrences(of: "\"depth\": {\"width\": 4", with: "\"depth\": {\"width\": \(value)")
      try expectError(
        StreamFixtures.stream(header: fraction), { e, _ in if case .invalidValue(_, "depth.width", _) = e { true } else { false } },
        containing: "expected a whole number, got \(shown)")
    }
  }

  @Test func sizesThatDoNotDivide() throws {
    // 5×3 is not a scaled copy of the 640×480 intrinsics.
    let header = StreamFixtures.headerJSON.replacingOccurrences(of: "\"depth\": {\"width\": 4", with: "\"depth\": {\"width\": 5")
    try expectError(StreamFixtures.stream(header: header, frames: 0), { e, _ in if case .sizeMismatch = e { true } else { false } }, containing: "not a scaled copy")
    let zero = StreamFixtures.headerJSON.replacingOccurrences(of: "\"color\": {\"width\": 4", with: "\"color\": {\"width\": 0")
    try expectError(StreamFixtures.stream(header: zero, frames: 0), { e, _ in if case .invalidValue(_, "color.width", _) = e { true } else { false } }, containing: "color.width")
  }

  @Test func trailingPartialFrameIsSkippedAndReported() throws {
    let bytes = StreamFixtures.stream(frames: 2) + StreamFixtures.frame(timestamp: 99, base: 0.5).prefix(30)
    let (path, result) = try open(bytes)
    let reader = try result.get()
    #expect(reader.frameCount == 2)
    #expect(reader.warnings == [.trailingPartialFrame(path: path, bytes: 30, frameSize: reader.frameSize)])
    #expect(reader.warnings[0].description.contains("partial frame"))
    #expect(throws: ScanIOError.frameOutOfRange(path: path, index: 2, frameCount: 2)) { try reader.frame(at: 2) }
  }

  @Test func zeroFramesOpensWithNoFrames() throws {
    let (_, result) = try open(StreamFixtures.stream(frames: 0))
    #expect(try result.get().frameCount == 0)
  }

  @Test func missingFileAndFolderAreNamed() {
    #expect(throws: ScanIOError.cannotOpen(path: "/nonexistent/x.rgbdscan", reason: "no such file or folder")) {
      try openScan(at: "/nonexistent/x.rgbdscan")
    }
  }
}
