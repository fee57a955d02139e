import ArucoBridge
import Foundation
import ScanIO
import Testing
import _TestSupport

/// OpenCV's own tutorial image, with the ids and corners OpenCV's regression test expects.
/// The image lives in `../shared/data/opencv-aruco` beside the repository, never in it: without
/// that folder these tests show as skipped.
struct ReferenceImageTests {
  static let image = TestFiles.sharedData("opencv-aruco/singlemarkersoriginal.jpg")
  static let truth = TestFiles.sharedData("opencv-aruco/singlemarkersoriginal.json")

  struct Expected: Decodable {
    struct Marker: Decodable {
      var id: Int
      var corners: [[Double]]
    }
    var dictionary: String
    var tolerancePixels: Double
    var markers: [Marker]
  }

  @Test(.enabled(if: image != nil && truth != nil, "../shared/data/opencv-aruco is absent"))
  func tutorialImageYieldsTheSixKnownMarkers() throws {
    let image = try #require(Self.image), truth = try #require(Self.truth)
    let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: truth))
    let decoded = try ImageFiles.readColor(at: image.path)
    let detector = try MarkerDetector(dictionary: expected.dictionary)
    let found = try detector.detect(bgra: decoded.bytes, width: decoded.width, height: decoded.height)

    #expect(found.map(\.id).sorted() == expected.markers.map(\.id).sorted())
    for marker in expected.markers {
      let match = try #require(found.first { $0.id == marker.id }, "marker \(marker.id) not found")
      for k in 0..<4 {
        // Per coordinate, as OpenCV's test does (EXPECT_NEAR on x and on y).
        let dx = abs(match.corners[k].x - marker.corners[k][0]), dy = abs(match.corners[k].y - marker.corners[k][1])
        #expect(dx <= expected.tolerancePixels && dy <= expected.tolerancePixels, "marker \(marker.id) corner \(k) off by (\(dx), \(dy)) px")
      }
    }
  }

  @Test(.enabled(if: image != nil, "../shared/data/opencv-aruco is absent"))
  func greyAndColourInputsAgree() throws {
    let image = try #require(Self.image)
    let decoded = try ImageFiles.readColor(at: image.path)
    let grey = ColorImage(
      width: decoded.width, height: decoded.height, bgra: decoded.bytes,
      intrinsics: CameraIntrinsics(fx: 1, fy: 1, cx: 0, cy: 0, width: decoded.width, height: decoded.height)
    ).grey()
    let detector = try MarkerDetector(dictionary: "DICT_6X6_250")
    let fromColour = try detector.detect(bgra: decoded.bytes, width: decoded.width, height: decoded.height)
    let fromGrey = try detector.detect(grey: grey, width: decoded.width, height: decoded.height)
    #expect(fromColour == fromGrey)
  }
}
