import PointCloud
import Registration
import Testing

struct OperatorFeedbackTests {
  static func sighting(_ id: Int, at centre: SIMD2<Double>, missingDepth: Bool = false) -> FeedbackTracker.Sighting {
    let h = 10.0
    return .init(id: id, corners: [centre + [-h, -h], centre + [h, -h], centre + [h, h], centre + [-h, h]], missingDepth: missingDepth)
  }

  @Test func overlapStatesFollowTheRecorderApp() {
    var tracker = OverlapTracker()
    #expect(tracker.update(ids: [1, 2]) == [1: .red, 2: .red])
    #expect(tracker.update(ids: [2, 3]) == [1: .blue, 2: .green, 3: .red])
    #expect(tracker.update(ids: []) == [1: .blue, 2: .blue, 3: .blue])
    #expect(tracker.update(ids: [1]) == [1: .green, 2: .blue, 3: .blue])
  }

  @Test func progressEventsFireOnceAtTheirThresholds() {
    var tracker = FeedbackTracker(capMarkerCount: 8, imageWidth: 640, imageHeight: 480)
    let centre = SIMD2(319.5, 239.5)
    let f0 = tracker.update(frame: 0, markers: [Self.sighting(0, at: centre), Self.sighting(1, at: centre)])
    #expect(f0.progress == 0.25 && f0.events == [.quarter])
    let f1 = tracker.update(frame: 1, markers: [Self.sighting(1, at: centre), Self.sighting(2, at: centre)])
    #expect(f1.progress == 0.375 && f1.events.isEmpty)
    let f2 = tracker.update(frame: 2, markers: (2..<8).map { Self.sighting($0, at: centre) })
    #expect(f2.progress == 1 && f2.events == [.half, .complete])
    #expect(tracker.update(frame: 3, markers: [Self.sighting(0, at: centre)]).events.isEmpty)
    var unknownCap = FeedbackTracker(capMarkerCount: nil, imageWidth: 640, imageHeight: 480)
    #expect(unknownCap.update(frame: 0, markers: [Self.sighting(0, at: centre)]).progress == nil)
  }

  @Test func positionChangesOnlyAfterFourEqualFrames() {
    var tracker = FeedbackTracker(capMarkerCount: 30, imageWidth: 640, imageHeight: 480)
    let centre = SIMD2(319.5, 239.5)
    // The first frame with two markers is ideal — but shown only after four in a row.
    var shown: [PositionState] = []
    for i in 0..<5 { shown.append(tracker.update(frame: i, markers: [Self.sighting(1, at: centre), Self.sighting(2, at: centre)]).position) }
    #expect(shown == [.off, .off, .off, .ideal, .ideal])
    // Two of three markers without depth (> 30 %): too close, after four frames.
    var close: [PositionState] = []
    for i in 5..<10 {
      let markers = [Self.sighting(1, at: centre, missingDepth: true), Self.sighting(2, at: centre, missingDepth: true), Self.sighting(3, at: centre)]
      close.append(tracker.update(frame: i, markers: markers).position)
    }
    #expect(close == [.ideal, .ideal, .ideal, .tooClose, .tooClose])
    // One frame of something else does not flip it back.
    #expect(tracker.update(frame: 10, markers: [Self.sighting(1, at: centre)]).position == .tooClose)
  }

  @Test func directionHasAFivePercentDeadBand() {
    func direction(_ dx: Double, _ dy: Double) -> FeedbackDirection? {
      var tracker = FeedbackTracker(capMarkerCount: 30, imageWidth: 640, imageHeight: 480)
      tracker.stableFrames = 1
      return tracker.update(frame: 0, markers: [Self.sighting(1, at: [319.5 + dx * 640, 239.5 + dy * 480])]).direction
    }
    #expect(direction(0.04, -0.04) == nil)
    #expect(direction(-0.06, 0) == .left)
    #expect(direction(0.2, 0) == .right)
    #expect(direction(0, -0.1) == .up)
    #expect(direction(0, 0.3) == .down)
    #expect(direction(-0.2, -0.2) == .upLeft)
    #expect(direction(0.2, 0.2) == .downRight)
  }

  @Test func plyRoundTripsPositionsNormalsAndColours() {
    let points = PointSet(
      positions: [[0.1, -0.2, 0.3], [1e-3, 2e-3, -3e-3]], normals: [[0, 0, 1], [0.6, 0.8, 0]], colors: [[255, 0, 7], [1, 2, 3]])
    let data = PLYFormat.encode(points, comment: "test")
    #expect(String(decoding: data.prefix(80), as: UTF8.self).hasPrefix("ply\nformat binary_little_endian 1.0\ncomment test\nelement vertex 2\n"))
    #expect(PLYFormat.decode(data) == points)
    #expect(PLYFormat.decode(Data("not a ply".utf8)) == nil)
  }
}

import Foundation
