import ArucoBridge
import Testing

@testable import Registration

/// The box a tracked frame is searched in (`MarkerTracker`): it reaches one sticker spacing
/// beyond the markers seen, grows with the camera's movement, and is not offered where the
/// spacing is unknown.
struct MarkerTrackerBoxTests {
  /// A 20 px square marker centred at (x, y), corners clockwise from the top-left.
  static func marker(_ id: Int, _ x: Double, _ y: Double, side: Double = 20) -> DetectedMarker {
    let h = side / 2
    return DetectedMarker(id: id, corners: [[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])
  }

  @Test func oneMarkerGivesNoBox() {
    var tracker = MarkerTracker()
    tracker.record([Self.marker(1, 300, 200)], frame: 0)
    #expect(!tracker.canPredict)
    #expect(tracker.region(frame: 1, contextMargin: 10, width: 640, height: 480) == nil)
  }

  @Test func theBoxReachesOneSpacingBeyondTheMarkers() throws {
    var tracker = MarkerTracker()
    // Three markers in a row 60 px apart: spacing 60 px; largest side 20 px, the allowance
    // before any movement is measured.
    tracker.record([Self.marker(1, 200, 200), Self.marker(2, 260, 200), Self.marker(3, 320, 200)], frame: 0)
    #expect(tracker.spacing == 60)
    #expect(tracker.allowance == 20)
    let box = try #require(tracker.region(frame: 1, contextMargin: 10, width: 640, height: 480))
    // Corners span x 190…330, y 190…210; grown by 10 + 60 + 20 = 90 px.
    #expect(box == PixelRegion(x: 100, y: 100, width: 321, height: 21 + 180))
    // A neighbour one spacing to the right lies inside with its detector margin; one three
    // spacings away does not.
    let inside = Self.marker(4, 380, 200), outside = Self.marker(5, 500, 200)
    #expect(inside.corners.allSatisfy { box.contains($0, margin: 10) })
    #expect(!outside.corners.allSatisfy { box.contains($0, margin: 0) })
  }

  @Test func theBoxGrowsWithMovementAndFramesSinceSeen() throws {
    var tracker = MarkerTracker()
    tracker.record([Self.marker(1, 200, 200), Self.marker(2, 260, 200)], frame: 0)
    // Both moved 5 px right: allowance 10 px a frame.
    tracker.record([Self.marker(1, 205, 200), Self.marker(2, 265, 200)], frame: 1)
    #expect(tracker.allowance == 10)
    #expect(tracker.reach == 70)
    let next = try #require(tracker.region(frame: 2, contextMargin: 0, width: 640, height: 480))
    #expect(next.x == Int((195.0 - 70).rounded(.down)))
    // Three frames on, the allowance counts three times.
    let later = try #require(tracker.region(frame: 4, contextMargin: 0, width: 640, height: 480))
    #expect(later.x == Int((195.0 - 60 - 30).rounded(.down)))
    // Clipped to the image.
    let small = try #require(tracker.region(frame: 2, contextMargin: 0, width: 300, height: 240))
    #expect(small.x + small.width <= 300 && small.y + small.height <= 240)
  }
}

extension PixelRegion {
  /// Whether `p` lies in the region at least `margin` pixels from its edges.
  fileprivate func contains(_ p: SIMD2<Double>, margin: Double) -> Bool {
    p.x - margin >= Double(x) && p.x + margin <= Double(x + width - 1) && p.y - margin >= Double(y)
      && p.y + margin <= Double(y + height - 1)
  }
}
