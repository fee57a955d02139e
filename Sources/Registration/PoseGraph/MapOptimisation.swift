import PointCloud
import _HeadScanSupport

/// The optimisation stage's result: every placed frame's pose and every mapped marker's four
/// corners optimised together, with the frames that did not fit rejected.
public struct MapOptimisation: Sendable {
  /// One observation of the last round: a marker's four corners in a frame.
  public struct Residual: Sendable, Hashable {
    /// The frame's position (its index in the scan).
    public var frame: Int
    /// The marker's id.
    public var markerID: Int
    /// Squared distance of each of the four lifted corners (moved to the map) from the marker's
    /// optimised corners, m².
    public var squaredErrors: [Double]
  }

  /// Poses and map after the last round; rejected frames carry
  /// ``FrameRejection/largeResidual(millimetres:)`` and every optimised frame its ``FrameDiagnostics/rms``.
  public var solution: MapSolution
  /// Frames of the last round (ascending positions), including those it rejected.
  public var optimisedFrames: [Int]
  /// Markers of the last round (ascending ids).
  public var optimisedMarkers: [Int]
  /// The frame held fixed (the gauge), `nil` when nothing was placed.
  public var fixedFrame: Int?
  /// The last round's observations, in order, with their residuals.
  public var residuals: [Residual]
  /// Rounds of optimisation run.
  public var rounds: Int

  /// Frames rejected for their residual.
  public var framesRejected: Int {
    solution.frames.filter { if case .largeResidual = $0.rejection { return true } else { return false } }.count
  }
}

/// The optimisation stage: Levenberg–Marquardt over all placed frames' poses and all mapped
/// markers' corners (Huber loss, frames eliminated by the Schur complement), then frames whose
/// corners do not fit their markers' spread (``OptimisationOptions/frameFalseRejectRate``) are rejected and the rest optimised
/// again, for at most ``OptimisationOptions/rounds`` rounds. The frame that sees the seed marker
/// first is held fixed. Frames the chain rejected because their markers did not fit its map
/// (``FrameRejection/markersDoNotFit(millimetres:)``) are then placed against the optimised map
/// where they fit it within the chain's limits, and the optimisation runs again with them.
/// - Throws: ``ReconstructionError/numerical(path:detail:)`` when a system cannot be solved.
public func optimiseMap(_ chain: FrameChain, options: OptimisationOptions = .default) throws -> MapOptimisation {
  let first = try optimiseRounds(chain, options: options)
  // Frames whose markers did not fit the chain's map (which drifts round the head) are placed
  // again against the optimised map, with the chain's limits, and everything optimised again.
  var solution = first.solution
  var added = false
  for f in solution.frames.indices {
    guard case .markersDoNotFit = solution.frames[f].rejection else { continue }
    if let (pose, rms) = placeFrame(f, in: &solution, consistency: chain.misreadDistance), rms <= chain.options.maximumPlacementRMS {
      solution.mapFromCamera[f] = pose
      solution.frames[f].rejection = nil
      added = true
    }
  }
  guard added else { return first }
  var again = chain
  again.solution = solution
  return try optimiseRounds(again, options: options)
}

/// The optimisation's rounds over the chain's placed frames that carry no rejection.
private func optimiseRounds(_ chain: FrameChain, options: OptimisationOptions) throws -> MapOptimisation {
  var solution = chain.solution
  var rejected: [Int: Double] = [:]
  var result = MapOptimisation(solution: solution, optimisedFrames: [], optimisedMarkers: [], fixedFrame: nil, residuals: [], rounds: 0)
  for round in 1...max(1, options.rounds) {
    let frames = solution.mapFromCamera.keys.filter { rejected[$0] == nil && solution.frames[$0].rejection == nil }.sorted()
    guard !frames.isEmpty else { break }
    var graph = poseGraph(solution, frames: frames, seedMarkerID: chain.seedMarkerID)
    do {
      try graph.graph.optimise(
        iterations: options.iterations, delta: options.huberThreshold, threads: threadsRunning(workers: workerCount(options.workers)))
    } catch {
      throw ReconstructionError.numerical(path: solution.context.path, detail: String(describing: error))
    }
    for (i, f) in frames.enumerated() { solution.mapFromCamera[f] = graph.graph.frames[i] }
    for (i, id) in graph.markers.enumerated() { solution.map[id] = graph.graph.markerCorners[i] }
    let residuals = zip(graph.graph.observations, graph.graph.residuals()).map { o, r in
      MapOptimisation.Residual(frame: frames[o.frame], markerID: graph.markers[o.marker], squaredErrors: r.map { ($0 * $0).sum() })
    }
    // Frame RMS over its observations, and each frame's residuals against its markers' spread.
    var errors: [Int: [Double]] = [:]
    for r in residuals { errors[r.frame, default: []] += r.squaredErrors }
    let test = FrameResidualTest(residuals, falseRejectRate: options.frameFalseRejectRate, deviations: options.frameDeviations)
    var newlyRejected = false
    for (i, f) in frames.enumerated() {
      let rms = rootMeanSquare(ofSquares: errors[f] ?? [])
      solution.frames[f].rms = rms
      if !test.accepts(frame: f) && i != graph.graph.fixedFrame {
        rejected[f] = rms
        newlyRejected = true
      }
    }
    result = MapOptimisation(
      solution: solution, optimisedFrames: frames, optimisedMarkers: graph.markers, fixedFrame: frames[graph.graph.fixedFrame],
      residuals: residuals, rounds: round)
    if !newlyRejected { break }
  }
  for (f, rms) in rejected { result.solution.frames[f].rejection = .largeResidual(millimetres: rms * 1000) }
  return result
}

/// The pose graph over `frames` (positions) and the mapped markers they see, and the marker ids
/// in graph order; the first frame that sees the seed marker is held fixed.
private func poseGraph(_ solution: MapSolution, frames: [Int], seedMarkerID: Int) -> (graph: PoseGraph, markers: [Int]) {
  var counts: [Int: Int] = [:]
  for f in frames { for m in solution.markers[f] where solution.map[m.id] != nil { counts[m.id, default: 0] += 1 } }
  let markers = counts.filter { $0.value >= 1 }.keys.sorted()
  let markerIndex = Dictionary(uniqueKeysWithValues: markers.enumerated().map { ($1, $0) })
  var observations: [PoseGraph.Observation] = []
  for (i, f) in frames.enumerated() {
    for (m, weight) in poseHolders(solution.markers[f], isMapped: { markerIndex[$0] != nil }) {
      guard let k = markerIndex[m.id] else { continue }
      observations.append(.init(frame: i, marker: k, corners: m.cameraCorners, weight: weight))
    }
  }
  let fixed = frames.firstIndex { f in solution.markers[f].contains { $0.id == seedMarkerID } } ?? 0
  let graph = PoseGraph(
    frames: frames.map { solution.mapFromCamera[$0] ?? .identity }, markerCorners: markers.map { solution.map[$0] ?? [] },
    observations: observations, fixedFrame: fixed)
  return (graph, markers)
}

/// The markers of a frame that hold its pose, with their weights, as the optimisation uses
/// them: PnP places a sticker's depth only to a few per cent (and a curved sticker is not the
/// flat square PnP assumes), so where depth lifted two or more mapped stickers they alone hold
/// the frame and PnP stickers hold only frames with too little depth. Squarely seen,
/// square-looking observations count most: a snapped corner shows as a poor square fit (a
/// weight, not a verdict: a 0.2 mm misfit counts half); PnP stickers count a twentieth.
func poseHolders(_ markers: [LiftedMarker], isMapped: (Int) -> Bool) -> [(marker: LiftedMarker, weight: Double)] {
  let depthLifted = markers.filter { $0.method == .depth && isMapped($0.id) }.count
  return markers.compactMap { m in
    guard isMapped(m.id), m.method == .depth || depthLifted < 2 else { return nil }
    let shape = 1 / (1 + (m.residual / 0.0002) * (m.residual / 0.0002))
    return (m, (m.method == .depth ? 1 : 0.05) * m.facing * m.facing * shape)
  }
}

/// Settings of the global optimisation (``optimiseMap(_:options:)``). Lengths in metres.
public struct OptimisationOptions: Sendable, Hashable {
  /// Huber threshold of the robust loss.
  public var huberThreshold = 0.0005
  /// Levenberg–Marquardt iterations at most, per round.
  public var iterations = 40
  /// A frame is rejected (``FrameRejection/largeResidual(millimetres:)``) and the rest optimised
  /// again when its corners' residuals after a round are larger than its markers' own spread
  /// allows: a χ² test of the frame's squared residuals, each against its marker's mean squared
  /// residual in the round, at this false-reject rate for a frame that fits as well as the rest.
  public var frameFalseRejectRate = 0.001
  /// …and when that frame's residuals per degree of freedom also lie more than this many robust
  /// standard deviations above the other frames' median (logarithmic scale, ``PeerTest``): real
  /// frames differ from each other more than independent noise would.
  public var frameDeviations = 3.5
  /// Rounds of optimisation and rejection at most.
  public var rounds = 3
  /// Worker threads the reduced normal equations are formed on (`nil`: one a core this process
  /// may use). The result does not depend on it.
  public var workers: Int?

  /// The defaults.
  public static let `default` = OptimisationOptions()

  public init() {}
}

/// Frame poses and the marker map they were solved with, as the registration stages
/// (``chainFrames(_:options:)``, ``optimiseMap(_:options:)``, ``resectFrames(_:options:)``)
/// hand them on. Everything is in the *map frame*: the gauge the chain starts from (the seed
/// marker's frame) and the optimisation keeps; ``keepMarkers(_:rule:)`` re-expresses it in
/// the world frame (the lowest kept marker's own frame).
public struct MapSolution: Sendable {
  /// The scan's path, colour intrinsics and marker side.
  public var context: ScanContext
  /// One per frame read, in frame order: detections, outliers, residual and verdict so far
  /// (their `worldFromCamera` stays `nil` until ``keepMarkers(_:rule:)``).
  public var frames: [FrameDiagnostics]
  /// Per frame (same positions), the lifted markers in use: those of frames that were rejected,
  /// and detections found to be outliers, are removed.
  public var markers: [[LiftedMarker]]
  /// Marker corners, map frame, metres.
  public var map: MarkerMap
  /// `mapFromCamera` by frame position, metres, for the frames placed so far.
  public var mapFromCamera: [Int: RigidTransform]
  /// The scan's noise as estimated so far, and the limits derived from it.
  public var noise = ScanNoise()

  /// A solution with nothing placed: the frames as observed.
  public init(context: ScanContext, frames: [FrameDiagnostics], markers: [[LiftedMarker]]) {
    self.context = context
    self.frames = frames
    self.markers = markers
    map = MarkerMap()
    mapFromCamera = [:]
  }

  /// "N × reason" for every rejected frame, sorted, for error messages.
  var rejectionSummary: String {
    Dictionary(grouping: frames.compactMap(\.rejection?.description), by: { $0 })
      .map { "\($0.value.count) × \($0.key)" }.sorted().joined(separator: ", ")
  }
}
