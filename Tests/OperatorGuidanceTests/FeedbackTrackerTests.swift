import OperatorGuidance
import Testing

struct FeedbackTrackerTests {
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

  /// Feeds `frames` (ids per frame) to a tracker of a cap of `cap` markers; the milestones reached per frame.
  static func milestones(_ setting: ProgressMilestones, cap: Int = 8, frames: [[Int]]) -> [[Int]] {
    var tracker = FeedbackTracker(capMarkerCount: cap, imageWidth: 640, imageHeight: 480, milestones: setting)
    return frames.enumerated().map { index, ids in
      tracker.update(frame: index, markers: ids.map { Self.sighting($0, at: [319.5, 239.5]) }).events.map(\.percent)
    }
  }

  @Test func everyQuarterAnnouncesEachQuarterOnce() {
    var tracker = FeedbackTracker(capMarkerCount: 8, imageWidth: 640, imageHeight: 480)
    #expect(tracker.milestones == .everyQuarter)
    let centre = SIMD2(319.5, 239.5)
    let f0 = tracker.update(frame: 0, markers: [Self.sighting(0, at: centre), Self.sighting(1, at: centre)])
    #expect(f0.progress == 0.25 && f0.events == [ProgressEvent(percent: 25)])
    let f1 = tracker.update(frame: 1, markers: [Self.sighting(1, at: centre), Self.sighting(2, at: centre)])
    #expect(f1.progress == 0.375 && f1.events.isEmpty)
    // 2 → 8 of 8 markers in one frame: 50, 75 and 100 % all reached at once, in order.
    let f2 = tracker.update(frame: 2, markers: (2..<8).map { Self.sighting($0, at: centre) })
    #expect(f2.progress == 1 && f2.events.map(\.percent) == [50, 75, 100])
    #expect(tracker.update(frame: 3, markers: [Self.sighting(0, at: centre)]).events.isEmpty)
    var unknownCap = FeedbackTracker(capMarkerCount: nil, imageWidth: 640, imageHeight: 480)
    #expect(unknownCap.update(frame: 0, markers: [Self.sighting(0, at: centre)]).progress == nil)
  }

  @Test func milestonesFollowTheChosenSetting() {
    // 40-marker cap, 10 new markers a frame: 25, 50, 75, 100 % after frames 0, 1, 2, 3.
    let frames = (0..<4).map { k in Array(10 * k..<10 * (k + 1)) }
    #expect(Self.milestones(.everyQuarter, cap: 40, frames: frames) == [[25], [50], [75], [100]])
    #expect(Self.milestones(.everyHalf, cap: 40, frames: frames) == [[], [50], [], [100]])
    #expect(Self.milestones(.completion, cap: 40, frames: frames) == [[], [], [], [100]])
    // 13 of 40 (32.5 %) is past a quarter but not a half; a marker seen twice counts once.
    #expect(Self.milestones(.everyQuarter, cap: 40, frames: [Array(0..<13), Array(0..<13)]) == [[25], []])
    #expect(Self.milestones(.everyHalf, cap: 40, frames: [Array(0..<13), Array(0..<20)]) == [[], [50]])
    #expect(ProgressMilestones.allCases.map(\.percents) == [[25, 50, 75, 100], [50, 100], [100]])
  }

  @Test func positionChangesOnlyAfterFourEqualFrames() {
    var tracker = FeedbackTracker(capMarkerCount: 30, imageWidth: 640, imageHeight: 480)
    let centre = SIMD2(319.5, 239.5)
    // The first frame with two markers is ideal — but shown only after four in a row.
    var shown: [PositionState] = []
    for i in 0..<5 { shown.append(tracker.update(frame: i, markers: [Self.sighting(1, at: centre), Self.sighting(2, at: centre)]).position) }
    #expect(shown == [.off, .off, .off, .ideal, .ideal])
    // Frames of only new markers (no overlap), two of three without depth (> 30 %): too close, after four frames.
    var close: [PositionState] = []
    for i in 5..<10 {
      let ids = [10 + 3 * i, 11 + 3 * i, 12 + 3 * i]
      let markers = [Self.sighting(ids[0], at: centre, missingDepth: true), Self.sighting(ids[1], at: centre, missingDepth: true), Self.sighting(ids[2], at: centre)]
      close.append(tracker.update(frame: i, markers: markers).position)
    }
    #expect(close == [.ideal, .ideal, .ideal, .tooClose, .tooClose])
    // One frame of something else does not flip it back.
    #expect(tracker.update(frame: 10, markers: [Self.sighting(1, at: centre)]).position == .tooClose)
  }

  @Test func tooCloseOnlyWhenTheOverlapIsInsufficient() {
    let centre = SIMD2(319.5, 239.5)
    func raw(_ frames: [[FeedbackTracker.Sighting]]) -> [PositionState] {
      var tracker = FeedbackTracker(capMarkerCount: 30, imageWidth: 640, imageHeight: 480)
      tracker.stableFrames = 1
      return frames.enumerated().map { tracker.update(frame: $0.offset, markers: $0.element).position }
    }
    let start = [Self.sighting(1, at: centre), Self.sighting(2, at: centre)]
    // Linked through marker 2 while two of three markers lack depth (67 % > 30 %): still ideal.
    let linkedButNoDepth = [Self.sighting(2, at: centre, missingDepth: true), Self.sighting(3, at: centre, missingDepth: true), Self.sighting(4, at: centre)]
    #expect(raw([start, linkedButNoDepth]) == [.ideal, .ideal])
    // Not linked (all new) with the same missing depth: too close.
    let newAndNoDepth = [Self.sighting(7, at: centre, missingDepth: true), Self.sighting(8, at: centre, missingDepth: true), Self.sighting(9, at: centre)]
    #expect(raw([start, newAndNoDepth]) == [.ideal, .tooClose])
    // Not linked, one of four without depth (25 %, not above 30 %): off, not too close.
    let newWithDepth = [Self.sighting(7, at: centre, missingDepth: true), Self.sighting(8, at: centre), Self.sighting(9, at: centre), Self.sighting(10, at: centre)]
    #expect(raw([start, newWithDepth]) == [.ideal, .off])
    // The first frame with markers: two or more are ideal whatever the depth; one without depth is too close.
    #expect(raw([[Self.sighting(1, at: centre, missingDepth: true), Self.sighting(2, at: centre, missingDepth: true)]]) == [.ideal])
    #expect(raw([[Self.sighting(1, at: centre, missingDepth: true)]]) == [.tooClose])
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
}
