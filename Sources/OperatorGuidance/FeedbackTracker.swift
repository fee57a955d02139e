/// Replays the recorder app's guidance frame by frame.
///
/// Position and direction each change only after the same new value has come
/// `stableFrames` frames in a row (4), so the display does not flicker. As in the app, a
/// frame whose markers link it to the older frames is ideal even when some of them lack
/// depth: "too close" is shown only while the overlap is insufficient.
public struct FeedbackTracker: Sendable {
  /// One marker as the tracker needs it.
  public struct Sighting: Sendable, Hashable {
    public var id: Int
    public var corners: [SIMD2<Double>]
    /// Whether any of its corner pixels has no depth.
    public var missingDepth: Bool

    public init(id: Int, corners: [SIMD2<Double>], missingDepth: Bool) {
      self.id = id
      self.corners = corners
      self.missingDepth = missingDepth
    }
  }

  /// How many markers the cap carries (`cap.markerCount`); `nil`: progress unknown.
  public let capMarkerCount: Int?
  /// The colour image's size, pixels.
  public let imageWidth: Int
  public let imageHeight: Int
  /// When progress is announced.
  public let milestones: ProgressMilestones
  /// Frames a new position or direction must last before it is shown.
  public var stableFrames = 4
  private var overlap = OverlapTracker()
  private var seen: Set<Int> = []
  private var reached: Set<Int> = []
  private var position = Debounced<PositionState>(.off)
  private var direction = Debounced<FeedbackDirection?>(nil)
  private var linkedBefore = false

  public init(capMarkerCount: Int?, imageWidth: Int, imageHeight: Int, milestones: ProgressMilestones = .everyQuarter) {
    self.capMarkerCount = capMarkerCount
    self.imageWidth = imageWidth
    self.imageHeight = imageHeight
    self.milestones = milestones
  }

  /// Feedback after frame `index` with its markers.
  public mutating func update(frame index: Int, markers: [Sighting]) -> FrameFeedback {
    let states = overlap.update(ids: markers.map(\.id))
    seen.formUnion(markers.map(\.id))
    var events: [ProgressEvent] = []
    var progress: Double?
    if let cap = capMarkerCount, cap > 0 {
      let share = min(1, Double(seen.count) / Double(cap))
      progress = share
      for percent in milestones.percents where !reached.contains(percent) && share * 100 >= Double(percent) {
        reached.insert(percent)
        events.append(ProgressEvent(percent: percent))
      }
    }
    // Raw state of this frame: the overlap decides; missing depth explains a lost overlap.
    let linked = markers.contains { states[$0.id] == .green }
    let first = !linkedBefore && !markers.isEmpty
    let position: PositionState
    if linked || (first && markers.count >= 2) {
      position = .ideal
    } else if !markers.isEmpty && Double(markers.filter(\.missingDepth).count) > 0.3 * Double(markers.count) {
      position = .tooClose
    } else {
      position = .off
    }
    if !markers.isEmpty { linkedBefore = true }
    let direction = Self.direction(of: markers, width: imageWidth, height: imageHeight)
    let shownPosition = self.position.update(position, after: stableFrames)
    let shownDirection = self.direction.update(direction, after: stableFrames)
    return FrameFeedback(frame: index, progress: progress, events: events, position: shownPosition, direction: shownDirection, overlap: states)
  }

  /// The side of the image the markers' bounding box centre sits on, outside a 5 % dead band.
  static func direction(of markers: [Sighting], width: Int, height: Int) -> FeedbackDirection? {
    let corners = markers.flatMap(\.corners)
    guard let minX = corners.map(\.x).min(), let maxX = corners.map(\.x).max(),
      let minY = corners.map(\.y).min(), let maxY = corners.map(\.y).max()
    else { return nil }
    let dx = ((minX + maxX) / 2 - Double(width - 1) / 2) / Double(width)
    let dy = ((minY + maxY) / 2 - Double(height - 1) / 2) / Double(height)
    let h = dx < -0.05 ? -1 : (dx > 0.05 ? 1 : 0), v = dy < -0.05 ? -1 : (dy > 0.05 ? 1 : 0)
    switch (h, v) {
    case (-1, 0): return .left
    case (1, 0): return .right
    case (0, -1): return .up
    case (0, 1): return .down
    case (-1, -1): return .upLeft
    case (1, -1): return .upRight
    case (-1, 1): return .downLeft
    case (1, 1): return .downRight
    default: return nil
    }
  }
}

/// A shown value that changes only after the same new value came `n` times in a row.
struct Debounced<Value: Equatable & Sendable>: Sendable {
  private(set) var shown: Value
  private var candidate: Value?
  private var run = 0

  init(_ initial: Value) { shown = initial }

  mutating func update(_ value: Value, after n: Int) -> Value {
    if value == shown {
      candidate = nil
      run = 0
    } else if let c = candidate, c == value {
      run += 1
    } else {
      candidate = value
      run = 1
    }
    if run >= n, let c = candidate {
      shown = c
      candidate = nil
      run = 0
    }
    return shown
  }
}
