import Fusion
import Registration
import Foundation
import PointCloud
import _HeadScanSupport

/// Times the stages of ``reconstructHead(_:options:progress:)`` and collects their reports.
struct StageLog {
  var timings = ReconstructionTimings()
  var reports: [StageReport] = []

  /// Runs one stage, adding its time to its ``ReconstructionTimings`` bucket and its report.
  mutating func run<T>(_ stage: String, counts: (T) -> [StageReport.Count], _ body: () throws -> T) rethrows -> T {
    let start = ContinuousClock.now, startCPU = processorSeconds()
    let result = try body()
    let elapsed = seconds(since: start)
    let endCPU = processorSeconds()
    let cpu = startCPU.flatMap { before in endCPU.map { $0 - before } }
    reports.append(StageReport(stage: stage, seconds: elapsed, processorSeconds: cpu, counts: counts(result)))
    switch stage {
    case "observe": timings.detection += elapsed
    case "fuse": timings.fusion += elapsed
    case "clean": timings.cleaning += elapsed
    case "settle": timings.settling += elapsed
    default: timings.registration += elapsed
    }
    return result
  }

  mutating func run<T: StageCounting>(_ stage: String, _ body: () throws -> T) rethrows -> T {
    try run(stage, counts: \.stageCounts, body)
  }
}

/// A stage result that sums itself up in counts for its ``StageReport``.
/// The process's processor time so far (user + system, every thread), seconds; `nil` where the
/// clock is not available.
private func processorSeconds() -> Double? {
  var time = timespec()
  guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return nil }
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

protocol StageCounting {
  var stageCounts: [StageReport.Count] { get }
}

/// Frames rejected, by kind (`FrameRejection/kind`), sorted by kind.
func rejectionCounts(_ frames: [FrameDiagnostics]) -> [StageReport.Count] {
  Dictionary(grouping: frames.compactMap(\.rejection?.kind), by: { $0 })
    .map { StageReport.Count("frames rejected: \($0.key)", $0.value.count) }.sorted { $0.label < $1.label }
}

extension ScanObservations: StageCounting {
  var stageCounts: [StageReport.Count] {
    [
      .init("frames read", frames.count), .init("frames with depth", framesWithDepth),
      .init("cap ids detected", markersDetected.count), .init("markers lifted by depth", lifted.depth),
      .init("markers lifted by PnP", lifted.pnp), .init("off-cap detections dropped", offCapDetections),
      .init("frames searched whole", wholeImageSearches),
    ]
      + (thresholdWindow.map {
        [.init("threshold window, px", $0.window), .init("frames searched again with every window", $0.framesSearchedAgain)]
      } ?? [])
  }
}

extension FrameChain: StageCounting {
  var stageCounts: [StageReport.Count] {
    [.init("frames placed", framesPlaced), .init("markers mapped", solution.map.count), .init("outlier detections", outlierDetections)]
      + rejectionCounts(solution.frames)
  }
}

extension MapOptimisation: StageCounting {
  var stageCounts: [StageReport.Count] {
    [
      .init("rounds", rounds), .init("frames optimised", optimisedFrames.count), .init("markers optimised", optimisedMarkers.count),
      .init("frames rejected: corner residual above the limit", framesRejected),
    ]
  }
}

extension FrameResection: StageCounting {
  var stageCounts: [StageReport.Count] {
    [
      .init("frames resected", resectedFrames.count), .init("frames rejected: pose not determined or no depth", rejectedFrames.count),
      .init("markers triangulated", markersTriangulated ? optimisation.solution.map.count : 0),
    ]
  }
}

extension MarkerRegistration: StageCounting {
  var stageCounts: [StageReport.Count] {
    [.init("frames registered", framesRegistered), .init("markers kept", markers.count), .init("world marker id", worldMarkerID)]
      + rejectionCounts(frames)
  }
}

extension FusedCloud: StageCounting {
  var stageCounts: [StageReport.Count] {
    [.init("frames fused", framesFused), .init("voxels", points.count), .init("frames moved by ICP", refinedPoses.count)]
  }
}

extension PointSet: StageCounting {
  var stageCounts: [StageReport.Count] { [.init("points", count)] }
}

/// What one stage of ``reconstructHead(_:options:progress:)`` did: its wall-clock and processor
/// time and its diagnostics as counts, in the order the stage reports them (for logs: `headscan -v`).
public struct StageReport: Sendable, Hashable {
  /// One counted quantity, e.g. ("frames rejected: motion blur", 3).
  public struct Count: Sendable, Hashable {
    /// What is counted.
    public var label: String
    /// How many.
    public var value: Int

    /// A count.
    public init(_ label: String, _ value: Int) {
      self.label = label
      self.value = value
    }
  }

  /// The stage's name: "observe", "chain", "optimise", "resect", "keep markers", "fuse", "clean", "settle".
  public var stage: String
  /// Wall-clock seconds.
  public var seconds: Double
  /// Processor seconds of the whole process (user + system, every thread) while the stage ran:
  /// on a shared machine the measure of its cost that does not depend on the load; `nil` where
  /// the system does not say.
  public var processorSeconds: Double?
  /// Its diagnostics counts.
  public var counts: [Count]

  /// A report.
  public init(stage: String, seconds: Double, processorSeconds: Double? = nil, counts: [Count]) {
    self.stage = stage
    self.seconds = seconds
    self.processorSeconds = processorSeconds
    self.counts = counts
  }
}
