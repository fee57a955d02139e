import Foundation
import PointCloud
import _HeadScanSupport

/// The marker-keeping stage: the frames' final verdicts, the markers that pass `rule`, and the
/// registration re-expressed in the world frame — the frame of the lowest kept marker's
/// corners (re-defined by ``defineWorld(_:cloud:)`` when the corners move, e.g. when settled).
///
/// Frames that were placed and kept get their `worldFromCamera`; frames never placed are
/// ``FrameRejection/notLinked``.
/// - Throws: ``ReconstructionError/notEnoughFrames(path:registered:reasons:)`` when fewer than
///   two frames were optimised; ``ReconstructionError/noWellSeenMarker(path:best:)`` when no
///   marker passes `rule`.
public func keepMarkers(_ resection: FrameResection, rule: MarkerKeepRule = .default) throws -> MarkerRegistration {
  let optimisation = resection.optimisation
  var solution = optimisation.solution
  let optimised = Set(optimisation.optimisedFrames)
  for f in solution.frames.indices where solution.frames[f].rejection == nil {
    if solution.mapFromCamera[f] == nil || !optimised.contains(f) {
      solution.frames[f].rejection = .notLinked
    }
  }
  guard optimisation.optimisedFrames.count >= 2 else {
    throw ReconstructionError.notEnoughFrames(
      path: solution.context.path, registered: optimisation.optimisedFrames.count, reasons: solution.rejectionSummary)
  }
  let keptFrames = optimisation.optimisedFrames.filter { solution.frames[$0].rejection == nil }
  let fits = markerFits(
    optimisation.residuals, markers: optimisation.optimisedMarkers, map: solution.map, sideLength: solution.context.markerSideLength,
    rule: rule)
  let kept = fits.filter(\.kept)
  guard let worldID = kept.map(\.id).min() else {
    throw ReconstructionError.noWellSeenMarker(path: solution.context.path, best: describeBest(fits))
  }
  // The report's cornerRMS: RMS over the kept observations (those of kept markers in kept frames).
  let keptIDs = Set(kept.map(\.id))
  let all = optimisation.residuals.filter { keptIDs.contains($0.markerID) }.flatMap(\.squaredErrors)
  for f in keptFrames {
    solution.frames[f].worldFromCamera = solution.mapFromCamera[f]
    if !solution.frames[f].placedByResection {
      solution.frames[f].poseJackknife = poseJackknife(solution.markers[f], map: solution.map, kept: keptIDs)
    }
  }
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

/// A frame's pose refitted with each of its markers left out in turn (a jackknife over its
/// stickers): the rigid fits of the depth-lifted corners of `markers` that `kept` holds to their
/// corners in `map`, as `full⁻¹ · without_j` (camera frame) for the fit `full` to all of them.
/// Empty for fewer than three such markers or a fit that fails.
func poseJackknife(_ markers: [LiftedMarker], map: MarkerMap, kept: Set<Int>) -> [RigidTransform] {
  let used = markers.compactMap { m -> (camera: [SIMD3<Double>], map: [SIMD3<Double>])? in
    guard m.method == .depth, kept.contains(m.id), let corners = map[m.id], corners.count == m.cameraCorners.count else { return nil }
    return (m.cameraCorners, corners)
  }
  guard used.count >= 3 else { return [] }
  func fit(leaving left: Int?) -> RigidTransform? {
    let subset = used.indices.filter { $0 != left }.map { used[$0] }
    return try? NativeGeometry.rigidFit(from: subset.flatMap(\.camera), to: subset.flatMap(\.map)).0
  }
  guard let full = fit(leaving: nil) else { return [] }
  let inverse = full.inverse
  var deltas: [RigidTransform] = []
  for j in used.indices {
    guard let without = fit(leaving: j) else { return [] }
    deltas.append(inverse * without)
  }
  return deltas
}

/// Every optimised marker with observations, by ascending id, with its fit and the keep rule's
/// limits for it. RMS and shape error are tested against the scan's markers (``PeerTest``, linear
/// scale: the markers' RMS values cluster, and one misfit stands out by its distance from them,
/// not its ratio), each marker weighing in the scan's median and spread by the degrees of freedom
/// of its residuals, 12(n − 1) for n observations. A marker's RMS limit is also the limit on its
/// position's uncertainty: the RMS error of its corners' mean from its own residuals, rms/√(n − 1)
/// (3D, like `rms`), times Student's t₀.₉₇₅ for 12(n − 1) degrees of freedom, may be no larger
/// than the scan's RMS limit, so a marker seen in few frames must fit
/// proportionally better; one seen once has no residual to estimate it from and is not kept.
func markerFits(
  _ residuals: [MapOptimisation.Residual], markers: [Int], map: MarkerMap, sideLength: Double, rule: MarkerKeepRule
) -> [MarkerFit] {
  var squares: [Int: [Double]] = [:]
  for r in residuals { squares[r.markerID, default: []] += r.squaredErrors }
  var fits: [MarkerFit] = markers.compactMap { id in
    guard let s = squares[id], !s.isEmpty, let corners = map[id] else { return nil }
    return MarkerFit(
      id: id, observations: s.count / 4, rms: rootMeanSquare(ofSquares: s),
      shapeError: squareShapeError(corners, side: sideLength), rmsLimit: .infinity, shapeLimit: .infinity)
  }
  let freedom = fits.map { 12 * Double($0.observations - 1) }
  let rmsTest = PeerTest(peers: fits.map(\.rms), weights: freedom, deviations: rule.rmsDeviations, logarithmic: false)
  let shapeTest = PeerTest(peers: fits.map(\.shapeError), weights: freedom, deviations: rule.shapeDeviations, logarithmic: false)
  for i in fits.indices {
    // A mapped corner is uncertain by between rms/√n (errors independent from view to view) and
    // rms (one error every view shares, e.g. depth bent where the sticker bends): the shape test
    // takes the cautious end.
    fits[i].shapeLimit = shapeTest.limit(ownSpread: fits[i].rms)
    let n = Double(fits[i].observations)
    guard n >= 2 else {
      fits[i].rmsLimit = 0
      continue
    }
    // The RMS of 4n corner residuals in 3D (12n squares) is uncertain by 1/√(24n) of itself.
    let limit = rmsTest.limit(ownSpread: rmsTest.median / (24 * n).squareRoot())
    let halfWidthPerRMS = tQuantile(0.975, degreesOfFreedom: freedom[i]) / (n - 1).squareRoot()
    fits[i].rmsLimit = min(limit, limit / halfWidthPerRMS)
  }
  return fits
}

/// The most-observed marker against its limits, for ``ReconstructionError/noWellSeenMarker(path:best:)``.
func describeBest(_ fits: [MarkerFit]) -> String {
  guard let best = fits.max(by: { $0.observations < $1.observations }) else { return "none" }
  if best.observations < 2 { return String(format: "marker %d, seen in one frame; needs two or more", best.id) }
  return String(
    format: "marker %d, %d observations, RMS %.2f mm, shape error %.2f mm; needs two or more observations, RMS at most %.2f mm and shape error at most %.2f mm",
    best.id, best.observations, best.rms * 1000, best.shapeError * 1000, best.rmsLimit * 1000, best.shapeLimit * 1000)
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
  /// A marker is kept only with a corner RMS no more than this many robust standard deviations
  /// above the scan's median marker RMS (the marker's own sampling spread included), and only
  /// when its position's uncertainty from its own residuals (t₀.₉₇₅ times the RMS error of its
  /// corners' mean) is within that limit too (so never from one observation)…
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
  /// The largest RMS the keep rule accepted for it, metres: the scan's RMS limit, lowered for a
  /// marker with few observations so that its position's uncertainty stays within it; zero for
  /// a marker seen once.
  public var rmsLimit: Double
  /// The largest shape error the keep rule accepted for it, metres.
  public var shapeLimit: Double
  /// Whether the marker is kept.
  public var kept: Bool { observations >= 2 && rms <= rmsLimit && shapeError <= shapeLimit }

  /// Why it is not kept, in words; `nil` when it is.
  public var rejection: String? {
    var reasons: [String] = []
    if observations < 2 { reasons.append("seen in one frame, so its position's uncertainty is unknown") }
    else if !(rms <= rmsLimit) { reasons.append(millimetres("corner RMS", rms, rmsLimit)) }
    if !(shapeError <= shapeLimit) { reasons.append(millimetres("shape error", shapeError, shapeLimit)) }
    return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
  }

  private func millimetres(_ what: String, _ value: Double, _ limit: Double) -> String {
    String(format: "%@ %.2f mm above its limit %.2f mm", what, value * 1000, limit * 1000)
  }
}
