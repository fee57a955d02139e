import PointCloud

/// The marker-keeping stage: the frames' final verdicts, the markers that pass `rule`, and the
/// registration re-expressed in the contract §5 world — the frame of the lowest kept marker's
/// corners (re-defined by ``defineWorld(_:cloud:)`` when the corners move, e.g. when settled).
///
/// Frames that were placed and kept get their `worldFromCamera`; frames never placed are
/// ``FrameRejection/notLinked`` (or ``FrameRejection/tooFewMarkers(_:)`` without markers left).
/// - Throws: ``ReconstructionError/notEnoughFrames(path:registered:reasons:)`` when fewer than
///   two frames were optimised; ``ReconstructionError/noWellSeenMarker(path:best:)`` when no
///   marker passes `rule`.
public func keepMarkers(_ resection: FrameResection, rule: MarkerKeepRule = .default) throws -> MarkerRegistration {
  let optimisation = resection.optimisation
  var solution = optimisation.solution
  let optimised = Set(optimisation.optimisedFrames)
  for f in solution.frames.indices where solution.frames[f].rejection == nil {
    if solution.mapFromCamera[f] == nil || !optimised.contains(f) {
      solution.frames[f].rejection = solution.markers[f].isEmpty ? .tooFewMarkers(solution.markers[f].count) : .notLinked
    }
  }
  guard optimisation.optimisedFrames.count >= 2 else {
    throw ReconstructionError.notEnoughFrames(
      path: solution.context.path, registered: optimisation.optimisedFrames.count, reasons: solution.rejectionSummary)
  }
  let keptFrames = optimisation.optimisedFrames.filter { solution.frames[$0].rejection == nil }
  let stats = markerStatistics(optimisation, map: solution.map, sideLength: solution.context.markerSideLength)
  let limits = KeepLimits(rule: rule, widthScale: solution.context.widthScale, registeredFrames: keptFrames.count)
  let kept = stats.filter { $0.observations >= limits.observations && $0.rms <= limits.rms && $0.shape <= limits.shape }
  guard let worldID = kept.map(\.id).min() else {
    throw ReconstructionError.noWellSeenMarker(path: solution.context.path, best: limits.describe(best: stats))
  }
  // Contract §6: RMS over the kept observations (those of kept markers in kept frames).
  let keptIDs = Set(kept.map(\.id))
  let all = optimisation.residuals.filter { keptIDs.contains($0.markerID) }.flatMap(\.squaredErrors)
  for f in keptFrames { solution.frames[f].worldFromCamera = solution.mapFromCamera[f] }
  let inMap = MarkerRegistration(
    context: solution.context, frames: solution.frames,
    markers: kept.compactMap { m in
      solution.map[m.id].map { RegisteredMarker(id: m.id, corners: $0, observations: m.observations, rms: m.rms) }
    },
    worldMarkerID: worldID, cornerRMS: (all.reduce(0, +) / Double(all.count)).squareRoot(),
    mappedCentres: optimisation.optimisedMarkers.compactMap { solution.map.centre(of: $0) })
  guard let worldFromMap = inMap.worldFromCurrent else { return inMap }
  return inMap.reexpressed(by: worldFromMap)
}

/// One optimised marker's fit: observations in the last round, corner RMS (metres) and the
/// largest deviation of its mapped corners from the printed square (metres).
struct MarkerStatistics {
  var id: Int
  var observations: Int
  var rms: Double
  var shape: Double
}

/// The fit of every optimised marker with observations, by ascending id.
func markerStatistics(_ optimisation: MapOptimisation, map: MarkerMap, sideLength: Double) -> [MarkerStatistics] {
  var squares: [Int: [Double]] = [:]
  for r in optimisation.residuals { squares[r.markerID, default: []] += r.squaredErrors }
  return optimisation.optimisedMarkers.compactMap { id in
    guard let s = squares[id], !s.isEmpty, let corners = map[id] else { return nil }
    return MarkerStatistics(
      id: id, observations: s.count / 4, rms: (s.reduce(0, +) / Double(s.count)).squareRoot(),
      shape: squareShapeError(corners, side: sideLength))
  }
}

/// ``MarkerKeepRule`` for one scan: the observation count for its registered frames, the
/// lengths scaled for its image width.
struct KeepLimits {
  var observations: Int
  var rms: Double
  var shape: Double

  init(rule: MarkerKeepRule, widthScale: Double, registeredFrames: Int) {
    observations = min(rule.minimumObservations, max(3, registeredFrames / 4))
    rms = rule.maximumRMS * widthScale
    shape = rule.maximumShapeError * widthScale
  }

  /// The most-observed marker against these limits, for ``ReconstructionError/noWellSeenMarker(path:best:)``.
  func describe(best stats: [MarkerStatistics]) -> String {
    stats.max { $0.observations < $1.observations }.map {
      String(
        format: "marker %d, %d observations, RMS %.2f mm, shape error %.2f mm; needs %d, %.2f mm and %.2f mm",
        $0.id, $0.observations, $0.rms * 1000, $0.shape * 1000, observations, rms * 1000, shape * 1000)
    } ?? "none"
  }
}

/// Largest deviation of a mapped sticker from the printed square: edges against `side`,
/// diagonals against `side`·√2 (same unit); infinite unless there are four corners.
func squareShapeError(_ corners: [SIMD3<Double>], side: Double) -> Double {
  guard corners.count == 4 else { return .infinity }
  func length(_ a: Int, _ b: Int) -> Double { ((corners[a] - corners[b]) * (corners[a] - corners[b])).sum().squareRoot() }
  let edges = (0..<4).map { abs(length($0, ($0 + 1) % 4) - side) }
  let diagonals = [abs(length(0, 2) - side * 2.squareRoot()), abs(length(1, 3) - side * 2.squareRoot())]
  let all = edges + diagonals
  var worst = all[0]
  for value in all.dropFirst() where worst < value { worst = value }
  return worst
}
