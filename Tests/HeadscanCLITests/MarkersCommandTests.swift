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

  @Test func tutorialImageGivesTheSixMarkersInContractJSON() throws {
    guard let image = TestFiles.sharedData("opencv-aruco/singlemarkersoriginal.jpg") else {
      print("SKIPPED: ../shared/data/opencv-aruco is absent; CLI image test not run")
      return
    }
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
    for command in ["inspect", "markers", "simulate"] { #expect(run.stdout.contains(command)) }
    let markers = try Headscan.run(["markers", "--help"])
    #expect(markers.stdout.contains("Examples:"))
  }
}
