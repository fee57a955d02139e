import ArucoBridge
import Foundation
import Registration
import ScanIO
import _HeadScanSupport

/// Replays ``LiveCoverage`` over a whole scan, frame by frame in recording order, as a recorder
/// app would have run it: each frame's markers are detected in the whole image and lifted with
/// the observation stage's defaults, then fed to the tracker.
/// - Parameters:
///   - options: the tracker's settings.
///   - workers: worker threads for reading and observing (`nil`: one a core this process may
///     use); the tracker itself takes the frames one after another.
///   - progress: called with (frames done, total).
/// - Returns: the state after every frame.
/// - Throws: `ScanIOError` or `ArucoError`.
public func replayCoverage(
  in scan: any ScanReader, options: LiveCoverage.Options = .init(), workers: Int? = nil,
  progress: ((Int, Int) -> Void)? = nil
) throws -> [CoverageState] {
  let observation = ObservationOptions.default
  let detector = try MarkerDetector(dictionary: scan.header.markers.dictionary, parameters: observation.detector)
  let side = scan.header.markers.sideLength, cap = scan.header.capMarkerCount
  var tracker = LiveCoverage(sideLength: side, options: options)
  var states: [CoverageState] = []
  states.reserveCapacity(scan.frameCount)
  try forEachInParallelBatches(
    Array(0..<scan.frameCount), workers: workers,
    work: { index in
      let frame = try scan.frame(at: index)
      return (frame, try observeFrame(frame, detector: detector, capMarkerCount: cap, sideLength: side, options: observation))
    },
    consume: { states.append(tracker.update(frame: $0.0, observation: $0.1)) },
    progress: { progress?($0, $1) })
  return states
}

/// When each part of the head was first covered during a replay, and what was still missing at the end.
public struct CoverageTimeline: Sendable, Hashable, Codable {
  /// One part (a sector of the band, "face", "left ear" or "right ear") and the frame and time,
  /// seconds, at which it was first covered (`nil` when it never was).
  public struct Part: Sendable, Hashable, Codable {
    public var name: String
    public var frame: Int?
    public var timestamp: Double?
  }
  public var parts: [Part]
  /// The state after the last frame.
  public var final: CoverageState?
  /// The first frame at which each part still missing at the end was named as missing with the
  /// head already found (what an app would have said while the recording went on).
  public var firstNamedMissing: [String: Int]

  /// The timeline of `states` (in recording order).
  public init(states: [CoverageState]) {
    let names = LiveCoverage.Sector.allCases.map(\.description) + ["face", "left ear", "right ear"]
    var first: [String: CoverageState] = [:]
    var named: [String: Int] = [:]
    for s in states where s.headFound {
      let missing = Set(s.missingNames)
      for name in names where !missing.contains(name) && first[name] == nil { first[name] = s }
      for name in missing where named[name] == nil { named[name] = s.frame }
    }
    parts = names.map { Part(name: $0, frame: first[$0]?.frame, timestamp: first[$0]?.timestamp) }
    final = states.last
    let stillMissing = Set(states.last?.missingNames ?? [])
    firstNamedMissing = named.filter { stillMissing.contains($0.key) }
  }
}
