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
