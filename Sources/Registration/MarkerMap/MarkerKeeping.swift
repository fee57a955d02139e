import Foundation
import PointCloud
import _HeadScanSupport

/// The marker-keeping stage: the frames' final verdicts, the markers that pass `rule`, and the
/// registration re-expressed in the world frame — the frame of the lowest kept marker's
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
  let fits = markerFits(
    optimisation, map: solution.map, sideLength: solution.context.markerSideLength, rule: rule, registeredFrames: keptFrames.count)
  let kept = fits.filter(\.kept)
  guard let worldID = kept.map(\.id).min() else {
    throw ReconstructionError.noWellSeenMarker(path: solution.context.path, best: describeBest(fits))
  }
  // The report's cornerRMS: RMS over the kept observations (those of kept markers in kept frames).
  let keptIDs = Set(kept.map(\.id))
  let all = optimisation.residuals.filter { keptIDs.contains($0.markerID) }.flatMap(\.squaredErrors)
  for f in keptFrames { solution.frames[f].worldFromCamera = solution.mapFromCamera[f] }
  let inMap = MarkerRegistration(
    context: solution.context, frames: solution.frames,
    markers: kept.compactMap { m in
      solution.map[m.id].map { RegisteredMarker(id: m.id, corners: $0, observations: m.observations, rms: m.rms) }
    },
    markerFits: fits, noise: solution.noise,
    worldMarkerID: worldID, cornerRMS: (all.reduce(0, +) / Double(all.count)).squareRoot(),
    mappedCentres: optimisation.optimisedMarkers.compactMap { solution.map.centre(of: $0) })
  guard let worldFromMap = inMap.worldFromCurrent else { return inMap }
  return inMap.reexpressed(by: worldFromMap)
}

/// Every optimised marker with observations, by ascending id, with its fit and the keep rule's
/// limits for it: observations against `rule`'s count (a quarter of `registeredFrames` on short
/// scans, at least 3); RMS and shape error against the markers with enough observations
/// (``PeerTest``, linear scale: the markers' RMS values cluster, and one misfit stands out by
/// its distance from them, not its ratio).
func markerFits(
  _ optimisation: MapOptimisation, map: MarkerMap, sideLength: Double, rule: MarkerKeepRule, registeredFrames: Int
) -> [MarkerFit] {
  var squares: [Int: [Double]] = [:]
  for r in optimisation.residuals { squares[r.markerID, default: []] += r.squaredErrors }
  let observationLimit = min(rule.minimumObservations, max(3, registeredFrames / 4))
  var fits: [MarkerFit] = optimisation.optimisedMarkers.compactMap { id in
    guard let s = squares[id], !s.isEmpty, let corners = map[id] else { return nil }
    return MarkerFit(
      id: id, observations: s.count / 4, rms: rootMeanSquare(ofSquares: s),
      shapeError: squareShapeError(corners, side: sideLength), rmsLimit: .infinity, shapeLimit: .infinity,
      observationLimit: observationLimit)
  }
  let peers = fits.filter { $0.observations >= observationLimit }
  let rmsTest = PeerTest(peers: peers.map(\.rms), deviations: rule.rmsDeviations, logarithmic: false)
  let shapeTest = PeerTest(peers: peers.map(\.shapeError), deviations: rule.shapeDeviations, logarithmic: false)
  for i in fits.indices {
    let n = Double(max(1, fits[i].observations))
    // The RMS of 4n corner residuals in 3D (12n squares) is uncertain by 1/√(24n) of itself.
    // A mapped corner is uncertain by between rms/√n (errors independent from view to view) and
    // rms (one error every view shares, e.g. depth bent where the sticker bends): the shape test
    // takes the cautious end.
    fits[i].rmsLimit = rmsTest.limit(ownSpread: rmsTest.median / (24 * n).squareRoot())
    fits[i].shapeLimit = shapeTest.limit(ownSpread: fits[i].rms)
  }
  return fits
}

/// The most-observed marker against its limits, for ``ReconstructionError/noWellSeenMarker(path:best:)``.
func describeBest(_ fits: [MarkerFit]) -> String {
  guard let best = fits.max(by: { $0.observations < $1.observations }) else { return "none" }
  return String(
    format: "marker %d, %d observations, RMS %.2f mm, shape error %.2f mm; needs %d, %.2f mm and %.2f mm",
    best.id, best.observations, best.rms * 1000, best.shapeError * 1000, best.observationLimit, best.rmsLimit * 1000,
    best.shapeLimit * 1000)
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

/// Which optimised markers are kept in the registered map (``keepMarkers(_:rule:)``) and so may
/// define the world. Markers that miss the rule still link frames; they are just not reported,
/// nor the world.
///
/// The rule holds no lengths: each marker's corner RMS and shape error are tested against the
/// other markers of the same scan (``PeerTest``), so a scan from a noisier sensor, a farther
/// camera or a softer cap keeps its markers as long as none stands out from the rest. A sticker
/// the detector misplaced in many frames, or one lifted off the cap, stands out; the sensor's
/// noise, shared by all, does not.
public struct MarkerKeepRule: Sendable, Hashable {
  /// A marker is kept only with this many observations (or a quarter of the registered frames
  /// on short scans, at least 3): a count, not a noise level…
  public var minimumObservations = 10
  /// …a corner RMS no more than this many robust standard deviations above the scan's median
  /// marker RMS (the marker's own sampling spread included)…
  public var rmsDeviations = 3.0
  /// …and four mapped corners that form the printed square as well as the scan's markers do:
  /// the largest deviation of an edge from the side or a diagonal from side·√2 no more than this
  /// many robust standard deviations above the scan's median, the corners' own uncertainty
  /// (the marker's RMS) included. The median carries what all markers share — the detector's
  /// corner bias, a decal's curvature; what stands out is one marker's misplaced corner.
  public var shapeDeviations = 3.0

  /// The defaults: the false-reject rate of either test is 0.13 % a marker when its value is
  /// normally distributed about the scan's median (``PeerTest``).
  public static let `default` = MarkerKeepRule()

  public init() {}
}

/// How one optimised marker fits, and the keep rule's verdict on it (``MarkerKeepRule``).
public struct MarkerFit: Sendable, Hashable {
  /// Marker id.
  public var id: Int
  /// Observations in the last optimisation round.
  public var observations: Int
  /// RMS of its observations' 3D corner residuals, metres.
  public var rms: Double
  /// Largest deviation of its mapped corners from the printed square (edges against the side,
  /// diagonals against side·√2), metres.
  public var shapeError: Double
  /// The largest RMS the keep rule accepted for it, metres.
  public var rmsLimit: Double
  /// The largest shape error the keep rule accepted for it, metres.
  public var shapeLimit: Double
  /// The fewest observations the keep rule accepted.
  public var observationLimit: Int

  /// Whether the marker is kept.
  public var kept: Bool { observations >= observationLimit && rms <= rmsLimit && shapeError <= shapeLimit }

  /// Why it is not kept, in words; `nil` when it is.
  public var rejection: String? {
    var reasons: [String] = []
    if observations < observationLimit { reasons.append("\(observations) observations of \(observationLimit) needed") }
    if !(rms <= rmsLimit) { reasons.append(millimetres("corner RMS", rms, rmsLimit)) }
    if !(shapeError <= shapeLimit) { reasons.append(millimetres("shape error", shapeError, shapeLimit)) }
    return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
  }

  private func millimetres(_ what: String, _ value: Double, _ limit: Double) -> String {
    String(format: "%@ %.2f mm above the scan's limit %.2f mm", what, value * 1000, limit * 1000)
  }
}
