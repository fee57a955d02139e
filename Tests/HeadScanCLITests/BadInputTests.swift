import Foundation
import ScanIO
import Testing
import _TestSupport

/// Every bad input: exit status 1, one line on stderr naming the file and the problem, no output left behind.
struct BadInputTests {
  static let goodHeader = """
    {"depth": {"width": 4, "height": 3, "encoding": "float32"}, "color": {"width": 4, "height": 3, "encoding": "bgra8"},
     "intrinsics": {"fx": 593.0, "fy": 593.0, "cx": 319.5, "cy": 239.5, "width": 640, "height": 480},
     "markers": {"dictionary": "DICT_4X4_50", "sideLength": 0.016}}
    """

  static func stream(header: String = goodHeader, magic: String = "RGBDSCAN", frames: Int = 1, extra: Int = 0) -> Data {
    var bytes = Array(magic.utf8)
    withUnsafeBytes(of: UInt32(1).littleEndian) { bytes += $0 }
    withUnsafeBytes(of: UInt32(header.utf8.count).littleEndian) { bytes += $0 }
    bytes += Array(header.utf8)
    bytes += [UInt8](repeating: 0, count: frames * (8 + 12 * 4 + 48) + extra)
    return Data(bytes)
  }

  func expectFailure(_ name: String, _ data: Data?, arguments: (String, String) -> [String], says problem: String) throws {
    try TestFiles.withTemporaryFolder { folder in
      let input = folder.appendingPathComponent(name).path
      if let data { try data.write(to: URL(fileURLWithPath: input)) }
      let output = folder.appendingPathComponent("out.json").path
      let run = try Headscan.run(arguments(input, output))
      #expect(run.status == 1, "exit status \(run.status) for \(name)")
      let lines = run.stderr.split(separator: "\n")
      #expect(lines.count == 1, "expected one line, got: \(run.stderr)")
      #expect(run.stderr.contains(input), "must name \(input): \(run.stderr)")
      #expect(run.stderr.contains(problem), "must say '\(problem)': \(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: output), "no output after a failure")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }
      #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }
  }

  static let markers: @Sendable (String, String) -> [String] = { ["markers", $0, "--json", $1, "--quiet"] }
  static let inspect: @Sendable (String, String) -> [String] = { ["inspect", $0, "--json", $1, "--quiet"] }

  @Test func wrongMagic() throws {
    try expectFailure("a.rgbdscan", Self.stream(magic: "RGBDSCAX"), arguments: Self.markers, says: "wrong magic")
    try expectFailure("a.rgbdscan", Self.stream(magic: "RGBDSCAX"), arguments: Self.inspect, says: "wrong magic")
  }

  @Test func missingHeaderKeyIsNamed() throws {
    let header = Self.goodHeader.replacingOccurrences(of: "\"sideLength\": 0.016", with: "\"side\": 0.016")
    try expectFailure("k.rgbdscan", Self.stream(header: header), arguments: Self.markers, says: "'markers.sideLength'")
  }

  /// A recording time that is not ISO 8601 is left out where the scan is read, with a warning
  /// naming the key, rather than copied into reports that `history` would then refuse or making
  /// the whole scan unreadable; a patient ID written as a number reads as its digits.
  @Test func anUnusableRecordedAtIsLeftOutAndANumericPatientIDRead() throws {
    let header = Self.goodHeader.replacingOccurrences(
      of: "\"markers\":", with: "\"recordedAt\": \"21/11/2026 10:15\", \"patientID\": 17, \"markers\":")
    try TestFiles.withTemporaryFolder { folder in
      let scan = folder.appendingPathComponent("d.rgbdscan").path
      try Data(Self.stream(header: header)).write(to: URL(fileURLWithPath: scan))
      let inspect = try Headscan.run(["inspect", scan, "--json", folder.appendingPathComponent("d.json").path])
      #expect(inspect.status == 0, "\(inspect.stderr)")
      #expect(inspect.stderr.contains("headscan: warning: \(scan): 'recordedAt' ignored: '21/11/2026 10:15' is not an ISO 8601 date"), "\(inspect.stderr)")
      let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("d.json"))) as? [String: Any]
      #expect(summary?["patientID"] as? String == "17" && summary?["recordedAt"] == nil, "\(String(describing: summary))")
      // A warning that quotes the header's text stays one line; a patient ID that is neither
      // text nor a whole number is named.
      let lines = Self.goodHeader.replacingOccurrences(of: "\"markers\":", with: "\"recordedAt\": \"nope\\nline2\\u2028x\", \"markers\":")
      try Data(Self.stream(header: lines)).write(to: URL(fileURLWithPath: scan))
      let warned = try Headscan.run(["inspect", scan])
      #expect(warned.status == 0 && warned.stderr.split(whereSeparator: \.isNewline).filter { $0.contains("warning") }.count == 1, "\(warned.stderr)")
      #expect(warned.stderr.contains("'nope line2 x' is not an ISO 8601"), "\(warned.stderr)")
      let fraction = Self.goodHeader.replacingOccurrences(of: "\"markers\":", with: "\"patientID\": 1.5, \"markers\":")
      try Data(Self.stream(header: fraction)).write(to: URL(fileURLWithPath: scan))
      let named = try Headscan.run(["inspect", scan])
      #expect(named.status == 1 && named.stderr.contains("invalid value for 'patientID'"), "\(named.stderr)")
    }
    let run = try Headscan.run(["simulate", "/tmp/never-written.rgbdscan", "--recorded-at", "yesterday"])
    #expect(run.status == 64 && run.stderr.contains("--recorded-at must be an ISO 8601 date or time"), "\(run.stderr)")
  }

  /// A file where a folder of reports or scans belongs is called that, not a system error code.
  @Test func aFileWhereAFolderBelongs() throws {
    try TestFiles.withTemporaryFolder { folder in
      let file = folder.appendingPathComponent("cal.csv").path
      try Data("scan,diagonalA,diagonalB\np1,130,120\n".utf8).write(to: URL(fileURLWithPath: file))
      for arguments in [["validate", file, "--reports", file], ["batch", file, "--out", folder.appendingPathComponent("o").path]] {
        let run = try Headscan.run(arguments + ["--quiet"])
        #expect(run.status == 1 && run.stderr.hasPrefix("headscan: error: \(file): cannot list the") && run.stderr.hasSuffix("folder: not a folder\n"), "\(arguments): \(run.stderr)")
      }
    }
  }

  /// A file named like an image that is none is called that, not a scan with the wrong magic.
  @Test func aFileNamedLikeAnImageThatIsNotOne() throws {
    try expectFailure("photo.jpg", Data("not an image".utf8), arguments: Self.markers, says: "not a PNG or JPEG image")
  }

  @Test func truncatedHeader() throws {
    let data = Self.stream().prefix(40)
    try expectFailure("t.rgbdscan", Data(data), arguments: Self.inspect, says: "past the end")
  }

  @Test func zeroFrames() throws {
    try expectFailure("z.rgbdscan", Self.stream(frames: 0), arguments: Self.markers, says: "no complete frame")
    try expectFailure("z.rgbdscan", Self.stream(frames: 0), arguments: Self.inspect, says: "no complete frame")
  }

  @Test func unknownDictionaryInTheHeaderNamesTheFile() throws {
    let header = Self.goodHeader.replacingOccurrences(of: "DICT_4X4_50", with: "DICT_4X4_51")
    try expectFailure("d.rgbdscan", Self.stream(header: header), arguments: Self.markers, says: "unknown ArUco dictionary 'DICT_4X4_51'")
  }

  @Test func missingInput() throws {
    try expectFailure("absent.rgbdscan", nil, arguments: Self.markers, says: "no such file")
  }

  @Test func corruptImage() throws {
    var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    png.append(Data(repeating: 7, count: 100))
    try expectFailure("broken.png", png, arguments: Self.markers, says: "unreadable image")
  }

  @Test func outputEqualToInputIsRefused() throws {
    try TestFiles.withTemporaryFolder { folder in
      let input = folder.appendingPathComponent("s.rgbdscan").path
      let bytes = Self.stream()
      try bytes.write(to: URL(fileURLWithPath: input))
      let run = try Headscan.run(["markers", input, "--json", input])
      #expect(run.status == 1)
      #expect(run.stderr.contains("refusing to overwrite the input"))
      #expect(try sameContents(Data(contentsOf: URL(fileURLWithPath: input)), bytes))
    }
  }

  @Test func trailingPartialFrameWarnsAndSucceeds() throws {
    try TestFiles.withTemporaryFolder { folder in
      let input = folder.appendingPathComponent("p.rgbdscan").path
      try Self.stream(frames: 2, extra: 17).write(to: URL(fileURLWithPath: input))
      let output = folder.appendingPathComponent("m.json").path
      let run = try Headscan.run(["markers", input, "--json", output])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr.contains("warning: \(input): trailing partial frame skipped (17 of"))
      #expect(run.stdout.hasPrefix("2 frames"))
      #expect(FileManager.default.fileExists(atPath: output))
    }
  }

  /// The bundled tiny scan with every depth sample NaN, or with its header naming another dictionary.
  static func alteredTiny(nanDepth: Bool = false, dictionary: String? = nil) throws -> Data {
    let path = TestFiles.fixture("scans/tiny.rgbdscan").path
    let reader = try RGBDScanReader(path: path)
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    if nanDepth {
      #expect(reader.layout.depthEncoding == .float16)
      let samples = reader.header.depthWidth * reader.header.depthHeight
      for f in 0..<reader.frameCount {
        let depth = reader.firstFrameOffset + f * reader.frameSize + 8
        for i in 0..<samples { (bytes[depth + 2 * i], bytes[depth + 2 * i + 1]) = (0x00, 0x7E) }  // float16 NaN
      }
    }
    if let dictionary {
      let header = String(decoding: bytes[16..<reader.firstFrameOffset], as: UTF8.self)
        .replacingOccurrences(of: reader.header.markers.dictionary, with: dictionary)
      var length = UInt32(header.utf8.count).littleEndian
      bytes = Array(bytes[0..<12]) + withUnsafeBytes(of: &length) { Array($0) } + Array(header.utf8) + Array(bytes[reader.firstFrameOffset...])
    }
    return Data(bytes)
  }

  static let reconstruct: @Sendable (String, String) -> [String] = { ["reconstruct", $0, "-o", $1, "--quiet"] }
  static let measure: @Sendable (String, String) -> [String] = {
    ["measure", $0, "--landmarks", TestFiles.fixture("scans/tiny.landmarks.json").path, "--json", $1, "--quiet"]
  }

  @Test func allNaNDepthIsNamed() throws {
    let scan = try Self.alteredTiny(nanDepth: true)
    try expectFailure("nan.rgbdscan", scan, arguments: Self.reconstruct, says: "no frame has any valid depth")
    try expectFailure("nan.rgbdscan", scan, arguments: Self.measure, says: "no frame has any valid depth")
  }

  @Test func stickersOfAnotherDictionaryAreNotMarkers() throws {
    let scan = try Self.alteredTiny(dictionary: "DICT_5X5_50")
    try expectFailure("other.rgbdscan", scan, arguments: Self.reconstruct, says: "no cap markers detected in any frame")
    try expectFailure("other.rgbdscan", scan, arguments: Self.measure, says: "no cap markers detected in any frame")
  }

  /// Every command that writes refuses an output that is one of its inputs, and leaves the input as it was.
  @Test func everyCommandRefusesToOverwriteItsInputs() throws {
    try TestFiles.withTemporaryFolder { folder in
      func copy(_ fixture: String, to name: String) throws -> String {
        let target = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: TestFiles.fixture(fixture), to: target)
        return target.path
      }
      let scan = try copy("scans/tiny.rgbdscan", to: "s.rgbdscan")
      let landmarks = try copy("scans/tiny.landmarks.json", to: "s.landmarks.json")
      let truth = try copy("scans/tiny.truth.json", to: "s.truth.json")
      let tum = try copy("scans/orbit-small", to: "orbit")
      let calliper = try copy("calliper/example.csv", to: "calliper.csv")
      let reports = folder.appendingPathComponent("reports").path
      try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
      let report = reports + "/tiny.json"
      try Data("{}".utf8).write(to: URL(fileURLWithPath: report))
      let cases: [([String], String)] = [
        (["markers", scan, "--json", scan], scan),
        (["inspect", scan, "--json", scan], scan),
        (["reconstruct", scan, "-o", scan], scan),
        (["reconstruct", tum, "-o", tum + "/rgb.txt"], tum + "/rgb.txt"),
        (["measure", scan, "--landmarks", landmarks, "--json", landmarks], landmarks),
        (["measure", scan, "--cloud", scan], scan),
        (["validate", calliper, "--reports", reports, "--json", calliper], calliper),
        (["validate", calliper, "--reports", reports, "--json", report], report),
        (["simulate-calliper", "--reports", reports, "-o", report], report),
        (["evaluate", scan, "--json", truth], truth),
      ]
      for (arguments, protected) in cases {
        let before = try Data(contentsOf: URL(fileURLWithPath: protected))
        let run = try Headscan.run(arguments + ["--quiet"])
        #expect(run.status == 1, "\(arguments)")
        #expect(run.stderr.hasPrefix("headscan: error: \(protected): refusing to overwrite"), "\(arguments): \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(try sameContents(Data(contentsOf: URL(fileURLWithPath: protected)), before), "\(arguments) changed \(protected)")
      }
    }
  }

  /// Two outputs of one command naming the same path (also through another spelling of it): the
  /// second write would replace the first, so the command refuses before any work, names both
  /// options and leaves a file already there as it was.
  @Test func twoOutputsNamingOneFileAreRefused() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = folder.appendingPathComponent("s.rgbdscan")
      try FileManager.default.copyItem(at: TestFiles.fixture("scans/tiny.rgbdscan"), to: scan)
      let reports = folder.appendingPathComponent("reports").path
      try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
      try Data("{}".utf8).write(to: URL(fileURLWithPath: reports + "/tiny.json"))
      let existing = folder.appendingPathComponent("keep.ply").path
      let contents = Data("a file of the user's".utf8)
      let other = folder.appendingPathComponent("sub/../keep.ply").path
      try FileManager.default.createDirectory(atPath: folder.appendingPathComponent("sub").path, withIntermediateDirectories: true)
      let cases: [([String], String, String)] = [
        (["reconstruct", scan.path, "-o", existing, "--json", existing], "--output", "--json"),
        (["reconstruct", scan.path, "-o", existing, "--mesh", other], "--output", "--mesh"),
        (["measure", scan.path, "--json", existing, "--html", other], "--json", "--html"),
        (["measure", scan.path, "--cloud", existing, "--json", existing], "--json", "--cloud"),
        (["inspect", scan.path, "--json", existing, "--snapshot", existing], "--json", "--snapshot"),
        (["history", reports, "--html", existing, "--csv", other], "--html", "--csv"),
        (["measure", scan.path, "--json", existing, "--plots", other], "--json", "--plots"),
      ]
      for (arguments, first, second) in cases {
        try contents.write(to: URL(fileURLWithPath: existing))
        let run = try Headscan.run(arguments + ["--quiet"])
        #expect(run.status == 1, "\(arguments)")
        #expect(run.stderr.hasPrefix("headscan: error: "), "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("named by both \(first) and \(second)"), "\(arguments): \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
        #expect(try sameContents(Data(contentsOf: URL(fileURLWithPath: existing)), contents), "\(arguments) changed the file")
      }
      // A figures folder where a file is: refused before the measurement writes its report.
      let report = folder.appendingPathComponent("report.json").path
      let run = try Headscan.run(["measure", scan.path, "--json", report, "--plots", existing, "--quiet"])
      #expect(run.status == 1 && run.stderr == "headscan: error: \(existing): cannot write: not a folder\n", "\(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: report), "report written before the refusal")
    }
  }

  @Test func badCommandLineIsAUsageError() throws {
    let run = try Headscan.run(["markers"])
    #expect(run.status == 64)
    let size = try Headscan.run(["simulate", "/tmp/x.rgbdscan", "--size", "100x100"])
    #expect(size.status == 64)
    #expect(size.stderr.contains("4:3"))
    for budget in ["0", "many"] {
      let fuse = try Headscan.run(["reconstruct", TestFiles.fixture("scans/tiny.rgbdscan").path, "-o", "/tmp/never.ply", "--fuse-frames", budget])
      #expect(fuse.status == 64)
      #expect(fuse.stderr.contains("--fuse-frames must be a positive number of frames or all"), "\(fuse.stderr)")
    }
  }
}
