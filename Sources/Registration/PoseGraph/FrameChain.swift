import PointCloud

/// The chaining stage's result: frames placed one after another through markers already
/// mapped, and the markers they map, in the seed marker's frame.
public struct FrameChain: Sendable {
  /// Poses, map and frame verdicts so far (blur, not linked, outliers).
  public var solution: MapSolution
  /// The marker the chain started from (seen in most frames of the largest group of markers
  /// seen together; its own frame is the map frame).
  public var seedMarkerID: Int
  /// The options the chain ran with: ``optimiseMap(_:options:)`` places frames again against the
  /// optimised map with the same limits.
  var options = ChainOptions.default

  /// How far a marker may lie from where a frame's other markers put it, metres
  /// (``ChainOptions/misreadSides`` printed sides).
  var misreadDistance: Double { options.misreadSides * solution.context.markerSideLength }

  /// Frames placed.
  public var framesPlaced: Int { solution.mapFromCamera.count }
  /// Detections found to be outliers (misread ids or stickers lifted wrongly) and left out.
  public var outlierDetections: Int { solution.frames.reduce(0) { $0 + $1.outlierIDs.count } }
}

/// The chaining stage: screens the frames, then places them through shared markers,
/// strongest links first, starting from the most-seen marker of the largest group of markers
/// seen together.
///
/// A frame is rejected when it has no markers or is motion-blurred; one none of whose markers is
/// seen in another frame is not linked. No count of markers enters: a frame is placed through
/// whatever mapped markers it sees, one sticker's four lifted corners being enough to
/// determine a pose; how well each frame's pose is determined is judged after the optimisation
/// (``resectFrames(_:options:)``, ``FrameDiagnostics/poseUncertainty``). The chain starts from
/// the group of markers seen together (directly or through others) that holds the most markers,
/// at the marker of that group seen in most frames: frames outside the group can never be
/// linked to it. A marker
/// joins the map only when two placed frames agree on where it is (within
/// ``ChainOptions/misreadSides`` printed sides): one frame's view can be a misread id, and a
/// misplaced marker would misplace every frame chained through it. A mapped marker that lies
/// farther than that from where a frame's other markers put it is a misread in that frame. Once
/// every frame is placed, a detection whose misfit stands out from all the scan's detections
/// (``ChainOptions/outlierDeviations``, ``ScanNoise/outlierDistance``) is dropped too
/// (``FrameDiagnostics/outlierIDs``).
/// - Throws: ``ReconstructionError/notEnoughFrames(path:registered:reasons:)`` when no marker is
///   seen in two frames, or no frame that sees one is usable.
public func chainFrames(_ observations: ScanObservations, options: ChainOptions = .default) throws -> FrameChain {
  var solution = MapSolution(
    context: observations.context, frames: observations.frames.map(\.diagnostics), markers: observations.frames.map(\.lifted))
  let seen = screenFrames(&solution, options: options)
  guard let (seed, best) = seedMarker(seen: seen, usable: solution.markers) else {
    let reasons = seen.values.contains { $0 >= 2 } ? solution.rejectionSummary : "no marker is seen in two frames"
    throw ReconstructionError.notEnoughFrames(path: solution.context.path, registered: 0, reasons: reasons)
  }
  // The seed marker's corners from its best observation, in its own frame.
  solution.map[seed] = best.cameraCorners.map(best.cameraFromMarker.inverse.apply)
  solution.noise = ScanNoise(depthOf: solution.markers)
  var chain = FrameChain(solution: solution, seedMarkerID: seed, options: options)
  let misread = chain.misreadDistance
  placeFrames(&chain.solution, consistency: misread, maximumPlacementRMS: options.maximumPlacementRMS)
  diagnoseUnplaced(&chain.solution)
  dropOutliers(&chain.solution, deviations: options.outlierDeviations, misread: misread)
  return chain
}

/// Rejects frames without markers and motion-blurred ones, emptying their markers; keeps in
/// every frame only the markers seen in another frame too (only those can link it), calling a
/// frame left with none not linked; returns how many frames saw each id.
private func screenFrames(_ solution: inout MapSolution, options: ChainOptions) -> [Int: Int] {
  var seen: [Int: Int] = [:]
  for frame in solution.markers { for m in frame { seen[m.id, default: 0] += 1 } }
  solution.markers = solution.markers.map { $0.filter { seen[$0.id, default: 0] >= 2 } }
  for f in solution.markers.indices {
    if solution.frames[f].detectedIDs.isEmpty {
      solution.frames[f].rejection = .noMarkers
    } else if let blur = solution.frames[f].edgeBlur, blur > options.maximumEdgeBlur {
      solution.frames[f].rejection = .motionBlur(pixels: blur)
      solution.markers[f] = []
    } else if solution.markers[f].isEmpty {
      solution.frames[f].rejection = .notLinked
    }
  }
  return seen
}

/// The marker to start the chain from, and its best observation (lifted by depth before PnP,
/// then the squarest): in the largest group of markers that usable frames connect (two
/// markers are connected when a frame sees both; the group with the most markers, then the
/// most observations), the one seen in most frames (lowest id among equals).
private func seedMarker(seen: [Int: Int], usable: [[LiftedMarker]]) -> (Int, LiftedMarker)? {
  // Union–find over the ids, joined frame by frame.
  var parent: [Int: Int] = [:]
  func root(_ id: Int) -> Int {
    var r = id
    while let p = parent[r], p != r { r = p }
    var k = id
    while let p = parent[k], p != r { parent[k] = r; k = p }
    return r
  }
  for frame in usable {
    for m in frame where parent[m.id] == nil { parent[m.id] = m.id }
    guard let first = frame.first else { continue }
    for m in frame.dropFirst() {
      let a = root(first.id), b = root(m.id)
      if a != b { parent[max(a, b)] = min(a, b) }
    }
  }
  var groups: [Int: (markers: Int, observations: Int)] = [:]
  for id in parent.keys { groups[root(id), default: (0, 0)].markers += 1 }
  for frame in usable { for m in frame { groups[root(m.id), default: (0, 0)].observations += 1 } }
  guard let group = groups.max(by: { ($0.value.markers, $0.value.observations, -$0.key) < ($1.value.markers, $1.value.observations, -$1.key) })?.key
  else { return nil }
  let candidates = seen.filter { $0.value >= 2 && parent[$0.key] != nil && root($0.key) == group }
    .sorted { ($0.value, -$0.key) > ($1.value, -$1.key) }.map(\.key)
  let observations = usable.flatMap { $0 }
  for id in candidates {
    let best = observations.filter { $0.id == id }.min {
      ($0.method == .depth ? 0 : 1, $0.residual) < ($1.method == .depth ? 0 : 1, $1.residual)
    }
    if let best { return (id, best) }
  }
  return nil
}

/// RMS distance between corresponding points (same unit).
func cornerRMS(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> Double {
  (zip(a, b).map { ($0 - $1).dot($0 - $1) }.reduce(0, +) / Double(a.count)).squareRoot()
}

/// Places frames through markers already mapped, strongest links first, until none can be
/// added; maps each new marker once two placed frames agree on it.
///
/// A marker that depth lifts in some frame is mapped from depth-lifted views only: a
/// pixel-lifted (PnP) square is uncertain along its ray by centimetres when it is small and far,
/// and consecutive frames err alike, so two of them can agree on a wrong position. Only where the
/// chain stalls, because the frames that lift such a marker by depth cannot be placed without it,
/// are the markers still unmapped mapped from two agreeing pixel-lifted views, and the chain goes on.
private func placeFrames(_ solution: inout MapSolution, consistency: Double, maximumPlacementRMS: Double) {
  var pending: [Int: [[SIMD3<Double>]]] = [:]
  var pendingPixelLifted: [Int: [[SIMD3<Double>]]] = [:]
  let liftedByDepth = Set(solution.markers.flatMap { $0.filter { $0.method == .depth }.map(\.id) })
  var progressed = true
  while progressed {
    progressed = false
    let candidates = solution.markers.indices.filter { solution.mapFromCamera[$0] == nil && !solution.markers[$0].isEmpty }
      .map { f in (f, solution.markers[f].filter { solution.map[$0.id] != nil }.count) }
      .filter { $0.1 > 0 }
      .sorted { ($0.1, -$0.0) > ($1.1, -$1.0) }
    for (f, _) in candidates {
      guard let (pose, fitRMS) = placeFrame(f, in: &solution, consistency: consistency), fitRMS <= maximumPlacementRMS
      else { continue }
      solution.mapFromCamera[f] = pose
      for m in solution.markers[f] where solution.map[m.id] == nil {
        let corners = m.cameraCorners.map(pose.apply)
        if m.method != .depth && liftedByDepth.contains(m.id) {
          pendingPixelLifted[m.id, default: []].append(corners)
        } else if let agreeing = pending[m.id, default: []].first(where: { cornerRMS($0, corners) <= consistency }) {
          solution.map[m.id] = zip(agreeing, corners).map { ($0 + $1) / 2 }
        } else {
          pending[m.id, default: []].append(corners)
        }
      }
      progressed = true
    }
    if !progressed {
      for (id, views) in pendingPixelLifted.sorted(by: { $0.key < $1.key }) where solution.map[id] == nil {
        guard let pair = agreeingPair(views, within: consistency) else { continue }
        solution.map[id] = zip(pair.0, pair.1).map { ($0 + $1) / 2 }
        progressed = true
      }
    }
  }
}

/// The first two of `views` (in order) whose corners agree within `consistency` (RMS, metres).
private func agreeingPair(_ views: [[SIMD3<Double>]], within consistency: Double) -> ([SIMD3<Double>], [SIMD3<Double>])? {
  for j in views.indices.dropFirst() {
    if let i = views[..<j].firstIndex(where: { cornerRMS($0, views[j]) <= consistency }) { return (views[i], views[j]) }
  }
  return nil
}

/// Frames left unplaced although some of their markers are mapped: rejected as
/// ``FrameRejection/markersDoNotFit(millimetres:)`` with the corner RMS of their mapped markers'
/// rigid fit onto the map (frames with none mapped stay for ``keepMarkers(_:rule:)`` to call not
/// linked). The chain's map drifts as it goes round the head (each marker mapped from frames
/// placed through earlier ones), so a frame that closes the loop can misfit it by millimetres;
/// ``optimiseMap(_:options:)`` places these frames again against the optimised map.
private func diagnoseUnplaced(_ solution: inout MapSolution) {
  for f in solution.markers.indices where solution.mapFromCamera[f] == nil && solution.frames[f].rejection == nil {
    let known = solution.markers[f].filter { solution.map[$0.id] != nil }
    guard !known.isEmpty, let fit = fitToMap(known, solution.map) else { continue }
    solution.frames[f].rejection = .markersDoNotFit(millimetres: fit.rms * 1000)
  }
}

/// The rigid fit (`mapFromCamera`) of `markers`' lifted corners onto their corners in `map`, and
/// its corner RMS, metres; `nil` when it cannot be solved.
private func fitToMap(_ markers: [LiftedMarker], _ map: MarkerMap) -> (transform: RigidTransform, rms: Double)? {
  try? NativeGeometry.rigidFit(from: markers.flatMap(\.cameraCorners), to: markers.flatMap { map[$0.id] ?? [] })
}

/// `mapFromCamera` of frame `f` from its mapped markers (rigid fit) and the fit's RMS, after
/// removing, one at a time, the marker that lies farthest (over `consistency`) from where the
/// others put it — which can only be told with three or more; `nil` when no fit is consistent.
/// A frame with a depth-lifted mapped marker is placed from its depth-lifted markers alone: a
/// pixel-lifted (PnP) square can lie centimetres astray along its ray and would pull the fit.
func placeFrame(_ f: Int, in solution: inout MapSolution, consistency: Double) -> (RigidTransform, Double)? {
  var known = solution.markers[f].filter { solution.map[$0.id] != nil }
  if known.contains(where: { $0.method == .depth }) { known.removeAll { $0.method != .depth } }
  while !known.isEmpty {
    let mapped = known.map { solution.map[$0.id] ?? [] }
    guard let fit = fitToMap(known, solution.map) else { break }
    let misfits = zip(known, mapped).map { cornerRMS($0.cameraCorners.map(fit.transform.apply), $1) }
    guard let worst = misfits.indices.max(by: { misfits[$0] < misfits[$1] }) else { break }
    if misfits[worst] <= consistency { return fit }
    guard known.count >= 3 else { break }
    let misread = known.remove(at: worst)
    solution.markers[f].removeAll { $0.id == misread.id }
    solution.frames[f].outlierIDs.append(misread.id)
  }
  return nil
}

/// Drops, in every placed frame, the observations whose misfit — their corners' RMS distance
/// from the map after the frame's pose — stands out from all placed observations' (`deviations`
/// robust standard deviations above the median, logarithmic scale; never beyond `misread`, the
/// distance that marks a misread while placing), listing them as the frame's
/// outliers; records the median and the limit in the solution's noise.
private func dropOutliers(_ solution: inout MapSolution, deviations: Double, misread: Double) {
  var misfits: [(frame: Int, id: Int, distance: Double)] = []
  for (f, pose) in solution.mapFromCamera.sorted(by: { $0.key < $1.key }) {
    for m in solution.markers[f] {
      guard let mapped = solution.map[m.id] else { continue }
      misfits.append((f, m.id, cornerRMS(m.cameraCorners.map(pose.apply), mapped)))
    }
  }
  let test = PeerTest(peers: misfits.map(\.distance), deviations: deviations, logarithmic: true)
  solution.noise.typicalMisfit = misfits.isEmpty ? nil : test.median
  // A spread so wide that its limit passes a printed side would let misreads through.
  let limit = min(test.limit(), misread)
  solution.noise.outlierDistance = limit
  var worst: [Int: Double] = [:]
  for misfit in misfits where !(misfit.distance <= limit) {
    solution.frames[misfit.frame].outlierIDs.append(misfit.id)
    solution.markers[misfit.frame].removeAll { $0.id == misfit.id }
    worst[misfit.frame] = max(worst[misfit.frame] ?? 0, misfit.distance)
  }
  // A frame all of whose markers were outliers holds no pose any more.
  for (f, distance) in worst where solution.markers[f].isEmpty {
    solution.mapFromCamera[f] = nil
    solution.frames[f].rejection = .markersDoNotFit(millimetres: distance * 1000)
  }
}

/// Settings of the chaining stage (``chainFrames(_:options:)``): which frames take part and how
/// far a marker may lie from where a frame's other markers put it. Lengths in metres.
public struct ChainOptions: Sendable, Hashable {
  /// Frames whose marker outlines are blurred more than this (``edgeBlur(of:grey:width:height:)``,
  /// σ in pixels) are rejected as motion-blurred: their corners are off by a good part of a
  /// pixel, along the motion. Sharp frames measure 0.7–1.1 px.
  public var maximumEdgeBlur = 1.6
  /// While frames are placed, a marker joins the map only when two placed frames put it within
  /// this many printed sides of each other, and a detection farther than that from where its
  /// frame's other markers put it is taken as misread. A misread id lies where another sticker
  /// is — a side or more away (DICT_4X4_50 reads a sticker seen at a grazing angle as another id
  /// now and then): a fact of the cap's geometry, not of the sensor's noise.
  public var misreadSides = 1.0
  /// Once placed, a detection is an outlier (``FrameDiagnostics/outlierIDs``) when its corners
  /// lie farther from where its frame's other markers put them than this many robust standard
  /// deviations above the median over all placed detections (logarithmic scale, ``PeerTest``),
  /// or farther than ``misreadSides`` printed sides where that is nearer: a sticker lifted
  /// wrongly, or a misread that got past placing.
  public var outlierDeviations = 3.5
  /// A frame is placed only when its markers' rigid fit to the map leaves at most this corner
  /// RMS: a gross gate against a wrong placement (over half a 16 mm sticker), not a noise level;
  /// the optimisation judges the frames against each other afterwards.
  public var maximumPlacementRMS = 3 * 0.003

  /// The defaults.
  public static let `default` = ChainOptions()

  public init() {}
}
