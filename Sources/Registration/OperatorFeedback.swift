import ArucoBridge
import Foundation
import ScanIO
import _HeadScanSupport

/// A marker's overlap state in one frame, as the recorder app showed it.
public enum OverlapState: String, Sendable, Hashable, Codable {
  /// In this frame, seen here for the first time: not yet linked to an older frame.
  case red
  /// Seen in an older frame but not in this one.
  case blue
  /// In this frame and seen in an older frame: it links this frame to the older ones.
  case green
}

/// Replays overlap states frame by frame.
public struct OverlapTracker: Sendable {
  private var seen: Set<Int> = []

  public init() {}

  /// States after a frame showing `ids`; markers never seen have no entry.
  public mutating func update(ids: [Int]) -> [Int: OverlapState] {
    var states: [Int: OverlapState] = [:]
    for id in seen { states[id] = .blue }
    for id in ids { states[id] = seen.contains(id) ? .green : .red }
    seen.formUnion(ids)
    return states
  }
}

/// Where the phone is relative to where it should be.
public enum PositionState: String, Sendable, Hashable, Codable {
  /// Markers linked and with depth.
  case ideal
  /// More than 30 % of this frame's markers have no depth at a corner (TrueDepth's near limit).
  case tooClose
  /// No marker in this frame links it to the older frames.
  case off
}

/// Which side of the image the markers sit on (5 % dead band around the centre).
public enum FeedbackDirection: String, Sendable, Hashable, Codable {
  case left, right, up, down, upLeft, upRight, downLeft, downRight
}

/// Progress milestones: share of the cap's markers seen so far.
public enum ProgressEvent: Int, Sendable, Hashable, Codable, CaseIterable {
  case quarter = 25
  case half = 50
  case complete = 100
}

/// What the operator was shown for one frame.
public struct FrameFeedback: Sendable, Hashable, Codable {
  public var frame: Int
  /// Distinct marker ids seen so far / `cap.markerCount`, 0…1; `nil` without a cap size.
  public var progress: Double?
  /// Milestones first reached in this frame.
  public var events: [ProgressEvent]
  /// The debounced position state.
  public var position: PositionState
  /// The debounced direction; `nil` when the markers are centred (or absent).
  public var direction: FeedbackDirection?
  /// Overlap state of every marker seen so far.
  public var overlap: [Int: OverlapState]
}

/// Replays the recorder app's guidance frame by frame.
///
/// Position and direction each change only after the same new value has come
/// `stableFrames` frames in a row (4), so the display does not flicker.
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

  public let capMarkerCount: Int?
  public let imageWidth: Int
  public let imageHeight: Int
  public var stableFrames = 4
  private var overlap = OverlapTracker()
  private var seen: Set<Int> = []
  private var reached: Set<ProgressEvent> = []
  private var position = Debounced<PositionState>(.off)
  private var direction = Debounced<FeedbackDirection?>(nil)
  private var linkedBefore = false

  public init(capMarkerCount: Int?, imageWidth: Int, imageHeight: Int) {
    self.capMarkerCount = capMarkerCount
    self.imageWidth = imageWidth
    self.imageHeight = imageHeight
  }

  /// Feedback after frame `index` with its markers.
  public mutating func update(frame index: Int, markers: [Sighting]) -> FrameFeedback {
    let states = overlap.update(ids: markers.map(\.id))
    seen.formUnion(markers.map(\.id))
    var events: [ProgressEvent] = []
    var progress: Double?
    if let cap = capMarkerCount, cap > 0 {
      progress = min(1, Double(seen.count) / Double(cap))
      for event in ProgressEvent.allCases where !reached.contains(event) && progress! * 100 >= Double(event.rawValue) {
        reached.insert(event)
        events.append(event)
      }
    }
    // Raw state of this frame.
    let linked = markers.contains { states[$0.id] == .green }
    let first = !linkedBefore && !markers.isEmpty
    let position: PositionState
    if !markers.isEmpty && Double(markers.filter(\.missingDepth).count) > 0.3 * Double(markers.count) {
      position = .tooClose
    } else if linked || (first && markers.count >= 2) {
      position = .ideal
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

/// Replays the guidance over a whole scan (markers detected with OpenCV's defaults).
/// - Throws: ``ScanIOError`` or `ArucoError`.
public func replayFeedback(in scan: any ScanReader, progress: ((Int, Int) -> Void)? = nil) throws -> [FrameFeedback] {
  let detector = try MarkerDetector(dictionary: scan.header.markers.dictionary)
  let sightings = try sightingsOfMarkers(in: scan, detector: detector, progress: progress)
  var tracker = FeedbackTracker(capMarkerCount: scan.header.capMarkerCount, imageWidth: scan.header.colorWidth, imageHeight: scan.header.colorHeight)
  return sightings.enumerated().map { tracker.update(frame: $0.offset, markers: $0.element) }
}

/// Markers of every frame with whether a corner pixel lacks depth.
func sightingsOfMarkers(in scan: any ScanReader, detector: MarkerDetector, progress: ((Int, Int) -> Void)?) throws -> [[FeedbackTracker.Sighting]] {
  let cap = scan.header.capMarkerCount
  var out: [[FeedbackTracker.Sighting]] = []
  try forEachInParallelBatches(
    Array(0..<scan.frameCount),
    work: { index in
      let frame = try scan.frame(at: index)
      let found = try detector.detect(bgra: frame.color.bgra, width: frame.color.width, height: frame.color.height)
      let sx = Double(frame.depth.width) / Double(frame.color.width), sy = Double(frame.depth.height) / Double(frame.color.height)
      return found.filter { cap == nil || $0.id < cap! }.map { m in
        let missing = m.corners.contains { c in
          let x = min(frame.depth.width - 1, max(0, Int(((c.x + 0.5) * sx - 0.5).rounded())))
          let y = min(frame.depth.height - 1, max(0, Int(((c.y + 0.5) * sy - 0.5).rounded())))
          return !frame.depth[x, y].isFinite
        }
        return FeedbackTracker.Sighting(id: m.id, corners: m.corners, missingDepth: missing)
      }
    },
    consume: { out.append($0) }, progress: { progress?($0, $1) })
  return out
}
