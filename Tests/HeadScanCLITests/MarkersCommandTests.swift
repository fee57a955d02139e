import ArucoBridge
import Foundation
import ScanIO
import Testing
import _TestSupport

struct MarkersCommandTests {
  struct Report: Decodable {
    struct Frame: Decodable {
      struct Marker: Decodable {
        var id: Int
        var corners: [[Double]]
      }
      var frame: Int
      var markers: [Marker]
    }
    var frames: [Frame]
  }

  /// OpenCV's tutorial image, from `../shared/data` beside the repository (skipped without it).
  static let tutorialImage = TestFiles.sharedData("opencv-aruco/singlemarkersoriginal.jpg")

  @Test(.enabled(if: tutorialImage != nil, "../shared/data/opencv-aruco is absent"))
  func tutorialImageGivesTheSixMarkersInTheMarkersJSON() throws {
    let image = try #require(Self.tutorialImage)
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.appendingPathComponent("m.json").path
      let run = try Headscan.run(["markers", image.path, "--json", out, "--dictionary", "DICT_6X6_250"])
      #expect(run.status == 0, "\(run.stderr)")
      let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
      #expect(report.frames.count == 1 && report.frames[0].frame == 0)
      #expect(report.frames[0].markers.map(\.id).sorted() == [23, 40, 62, 98, 124, 203])
      #expect(report.frames[0].markers.allSatisfy { $0.corners.count == 4 && $0.corners.allSatisfy { $0.count == 2 } })
      #expect(run.stdout.contains("6 detections of 6 distinct markers"))
    }
  }

  @Test func scanGivesOneEntryPerFrameMatchingTheLibrary() throws {
    let scanPath = TestFiles.fixture("scans/tiny.rgbdscan").path
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.appendingPathComponent("m.json").path
      let run = try Headscan.run(["markers", scanPath, "--json", out, "--quiet"])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr.isEmpty, "quiet prints nothing on stderr: \(run.stderr)")
      let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
      let scan = try openScan(at: scanPath)
      #expect(report.frames.map(\.frame) == [0, 1, 2])
      let detector = try MarkerDetector(dictionary: scan.header.markers.dictionary)
      for frame in report.frames {
        let image = try scan.frame(at: frame.frame).color
        let expected = try detector.detect(bgra: image.bgra, width: image.width, height: image.height)
        #expect(frame.markers.map(\.id) == expected.map(\.id))
        for (got, want) in zip(frame.markers, expected) {
          #expect(got.corners.map { SIMD2($0[0], $0[1]) } == want.corners)
        }
      }
    }
  }

  @Test func orbitFixtureSeesMostOfTheCap() throws {
    let run = try Headscan.run(["inspect", "fixtures/scans/orbit-small", "--quiet"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("frames      36 over 11.67 s"))
    #expect(run.stdout.contains("TUM folder"))
    // 30 stickers on the cap; the 320×240 fixture must still see at least 25 of them.
    let seen = run.stdout.split(separator: "\n").first { $0.hasPrefix("seen") }.map(String.init) ?? ""
    let count = Int(seen.split(separator: " ").dropFirst().first ?? "") ?? 0
    #expect(count >= 25, "\(seen)")
  }

  @Test func helpListsEveryCommandWithExamples() throws {
    let run = try Headscan.run(["--help"])
    #expect(run.status == 0)
    let commands = ["inspect", "markers", "reconstruct", "measure", "validate", "batch", "convert", "simulate", "simulate-calliper", "evaluate"]
    for command in commands {
      #expect(run.stdout.contains(command))
      let help = try Headscan.run([command, "--help"])
      #expect(help.status == 0 && help.stdout.contains("Examples:") && help.stdout.contains("--quiet"), "\(command) --help")
    }
  }
}

struct ReconstructCommandTests {
  @Test func fixtureReconstructsToABinaryPLYWithASummary() throws {
    try TestFiles.withTemporaryFolder { folder in
      let ply = folder.appendingPathComponent("head.ply").path, json = folder.appendingPathComponent("r.json").path
      let run = try Headscan.run(["reconstruct", "fixtures/scans/orbit-small", "-o", ply, "--json", json, "--quiet"])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.contains("registered") && run.stdout.contains("corner RMS"))
      let data = try Data(contentsOf: URL(fileURLWithPath: ply))
      #expect(String(decoding: data.prefix(40), as: UTF8.self).hasPrefix("ply\nformat binary_little_endian 1.0"))
      let header = String(decoding: data.prefix(400), as: UTF8.self)
      for property in ["property float x", "property float nx", "property uchar red"] { #expect(header.contains(property)) }
      struct Summary: Decodable {
        var frames: Int
        var framesRegistered: Int
        var markers: Int
        var markersRegistered: Int
        var cornerRMS: Double
        var points: Int
      }
      let summary = try JSONDecoder().decode(Summary.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
      #expect(summary.frames == 36)
      #expect(summary.framesRegistered >= 20)
      // 320×240, 36 frames 30° apart: only a few markers are seen by depth often enough (8 frames)
      // to keep: 3 since a marker joins the map only when two frames agree on it (4 before).
      #expect(summary.markersRegistered >= 3)
      #expect(summary.framesRegistered >= 30)
      #expect(summary.points > 10_000)
    }
  }

  @Test func scanWithoutMarkersFailsInOneLine() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = folder.appendingPathComponent("bare.rgbdscan").path
      let simulate = try Headscan.run(["simulate", scan, "--markers", "0", "--frames", "3", "--size", "160x120", "--quiet"])
      #expect(simulate.status == 0, "\(simulate.stderr)")
      let ply = folder.appendingPathComponent("out.ply").path
      let run = try Headscan.run(["reconstruct", scan, "-o", ply, "--quiet"])
      #expect(run.status == 1)
      #expect(run.stderr == "headscan: error: \(scan): no cap markers detected in any frame (wrong dictionary, or no cap?)\n")
      #expect(!FileManager.default.fileExists(atPath: ply))
    }
  }
}

struct MeasureCommandTests {
  static let reportKeys = ["cvai", "cva", "diagonalA", "diagonalB", "ci", "length", "width", "circumference", "measurementLevel", "severity", "registration"]

  @Test func measureWritesEveryReportKeyCloseToTheTruth() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = folder.appendingPathComponent("m.rgbdscan").path
      let simulate = try Headscan.run(["simulate", scan, "--frames", "36", "--cvai", "8", "--side", "left", "--seed", "3", "--quiet"])
      #expect(simulate.status == 0, "\(simulate.stderr)")
      let report = folder.appendingPathComponent("report.json").path, plots = folder.appendingPathComponent("figures").path
      let run = try Headscan.run(["measure", scan, "--json", report, "--plots", plots, "--quiet"])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.hasPrefix("CVAI"))
      for name in ["contour.svg", "layers.svg", "perimeter.svg"] {
        let svg = try String(contentsOfFile: plots + "/" + name, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"), "\(name) is not a whole SVG")
      }
      let contour = try String(contentsOfFile: plots + "/contour.svg", encoding: .utf8)
      for label in ["length", "width", "+30°", "−30°", "CVAI", "anterior"] { #expect(contour.contains(label), "contour.svg lacks '\(label)'") }
      let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as! [String: Any]
      for key in Self.reportKeys { #expect(json[key] != nil, "report lacks '\(key)'") }
      let registration = json["registration"] as! [String: Any]
      for key in ["frames", "framesRegistered", "markers", "markersRegistered", "cornerRMS"] { #expect(registration[key] != nil) }
      let truth = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.appendingPathComponent("m.truth.json").path))) as! [String: Any])["measures"] as! [String: Any]
      #expect(abs((json["cvai"] as! Double) - (truth["cvai"] as! Double)) <= 0.3)
      #expect(json["severity"] as! Int == truth["severity"] as! Int)
    }
  }

  /// The orbit fixture's landmarks file with the nasion's entry given by `nasion` (JSON members).
  static func orbitLandmarks(nasion: String) -> String {
    let data = (try? Data(contentsOf: TestFiles.fixture("scans/orbit-small.landmarks.json"))) ?? Data()
    let document = (try? JSONSerialization.jsonObject(with: data)) as? [String: [[String: Any]]] ?? [:]
    let others = (document["landmarks"] ?? []).filter { $0["name"] as? String != "nasion" }
    let text = others.compactMap { try? JSONSerialization.data(withJSONObject: $0) }.map { String(decoding: $0, as: UTF8.self) }
    precondition(text.count == 3, "the fixture has four landmarks")
    return #"{"landmarks": [{"name": "nasion", "# + nasion + "}, " + text.joined(separator: ", ") + "]}"
  }

  @Test func badLandmarksFailInOneLineNamingTheFile() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = TestFiles.fixture("scans/tiny.rgbdscan").path
      let cases: [(String, String)] = [
        (#"{"landmarks": [{"name": "nasion", "frame": 0, "u": 1, "v": 1}]}"#, "landmark 'noseTip' is missing"),
        (#"{"landmarks": [{"name": "nose", "frame": 0, "u": 1, "v": 1}]}"#, "unknown landmark 'nose'"),
        (#"{"landmarks": [{"name": "nasion", "u": 1, "v": 1}, {"name": "noseTip", "frame": 0, "u": 1, "v": 1}, {"name": "leftEar", "frame": 0, "u": 1, "v": 1}, {"name": "rightEar", "frame": 0, "u": 1, "v": 1}]}"#, "landmark 'nasion' needs either frame, u and v, or x, y and z"),
        (#"{"landmarks": [ {"name": "#, "not valid JSON"),
      ]
      let orbit = TestFiles.fixture("scans/orbit-small").path
      let placed: [(String, String)] = [
        (Self.orbitLandmarks(nasion: #""frame": 99, "u": 80, "v": 80"#), "landmark 'nasion' refers to frame 99, but the scan has 36 frames"),
        (Self.orbitLandmarks(nasion: #""frame": 2, "u": 0, "v": 0"#), "landmark 'nasion' has no depth at its pixel in frame 2, nor a fused point along its ray"),
        (Self.orbitLandmarks(nasion: #""frame": 2, "u": 400, "v": 80"#), "landmark 'nasion' lies outside frame 2's image"),
      ]
      for (scan, (text, problem)) in cases.map({ (scan, $0) }) + placed.map({ (orbit, $0) }) {
        let landmarks = folder.appendingPathComponent("l.landmarks.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: landmarks))
        let run = try Headscan.run(["measure", scan, "--landmarks", landmarks, "--quiet"])
        #expect(run.status == 1)
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains(landmarks) && run.stderr.contains(problem), "\(run.stderr)")
      }
    }
  }
}
