import Registration
import PointCloud
import ScanIO
import _HeadScanSupport

/// The fusion stage's result: the registered frames' depth averaged per voxel (world, metres).
public struct FusedCloud: Sendable {
  /// The scan, named by errors of later stages.
  public var path: String
  /// Every occupied voxel's mean position (world, metres) and mean colour, in world-key order.
  public var points: PointSet
  /// Centre of the sphere through the markers (world, metres): the cleaned cloud's normals point away from it.
  public var headCentre: SIMD3<Double>
  /// Frames fused.
  public var framesFused: Int
  /// `worldFromCamera` of the frames ICP moved (``FusionOptions/icpRefinement``), by frame index.
  public var refinedPoses: [Int: RigidTransform]
  /// Signed-distance fusion: the band's half-width used (``FusionOptions/truncation(for:)``),
  /// metres; `nil` for voxel-mean fusion.
  public var truncation: Double?
}

/// The fusion stage: reads the registered frames again (in parallel batches) and averages their
/// depth inside the head region — the shell from 5 cm below to ``FusionOptions/headMargin``
/// above the sphere through every optimised marker — per voxel, in frame order.
///
/// Frames held by fewer than ``FusionOptions/minimumMarkersToFuse`` depth-lifted markers are left
/// out, unless fewer than a quarter of the registered frames qualify; of the rest at most
/// ``FusionOptions/maximumFrames`` are fused, spread evenly over the recording. With
/// ``FusionOptions/icpRefinement`` each frame is first aligned by ICP to the model fused so far
/// and moved where that lowers its distance to the model.
/// - Parameter progress: called on the calling thread with (frames done, frames) after each batch.
/// - Throws: the errors of ``FrameFusion/init(aroundMarkerCentres:options:path:)``; `ScanIOError`
///   from reading.
public func fuseFrames(
  _ scan: any ScanReader, registration: MarkerRegistration, options: FusionOptions = .default,
  progress: ((Int, Int) -> Void)? = nil
) throws -> FusedCloud {
  let projection = try FrameFusion.Projection(aroundMarkerCentres: registration.mappedCentres, options: options, path: scan.path)
  let registered = registration.frames.compactMap { d in d.worldFromCamera.map { (index: d.index, pose: $0, depth: d.liftedByDepth) } }
  let wellHeld = registered.filter { $0.depth >= options.minimumMarkersToFuse }
  let fused = evenlySpread(4 * wellHeld.count >= registered.count ? wellHeld : registered, atMost: options.maximumFrames)
  if options.method == .signedDistance {
    return try fuseSignedDistance(
      scan, frames: fused.map { ($0.index, $0.pose) }, projection: projection, truncation: options.truncation(for: registration.noise),
      options: options, progress: progress)
  }
  var fusion = FrameFusion(projection: projection)
  var refined: [Int: RigidTransform] = [:]
  var done = 0
  try forEachInParallelBatches(
    fused, workers: options.workers,
    work: { [projection = fusion.projection] d in
      (d, projection.points(of: try scan.frame(at: d.index), worldFromCamera: d.pose))
    },
    consume: { d, framePoints in
      var points = framePoints
      done += 1
      if options.icpRefinement, done > 3, fusion.voxelCount >= 2000, points.count >= 500,
        let correction = icpCorrection(points.positions, model: fusion.grid, voxelSize: options.voxelSize)
      {
        points = fusion.projection.moved(points, by: correction)
        refined[d.index] = correction * d.pose
      }
      fusion.add(points)
    },
    progress: { progress?($0, $1) })
  return FusedCloud(
    path: scan.path, points: fusion.means(), headCentre: fusion.headCentre, framesFused: fused.count, refinedPoses: refined)
}

/// At most `count` of `items` (all of them without a count), spread evenly: the first, then
/// every (n / count)-th in order.
func evenlySpread<Item>(_ items: [Item], atMost count: Int?) -> [Item] {
  guard let count, count >= 1, items.count > count else { return items }
  return (0..<count).map { items[$0 * items.count / count] }
}

/// The cleaning stage: outliers removed (``CleaningOptions/outlierFactor``), then each point projected onto the
/// plane of its ``CleaningOptions/neighbours`` nearest points and moved by that plane's
/// curvature offset (``CleaningOptions/curvatureNeighbours``), with the plane's normal turned
/// away from the head's centre. A cloud of no more points than the neighbours is returned as it
/// is (no normals).
/// - Returns: positions (world, metres), outward unit normals and colours.
/// - Throws: `ReconstructionError/invalidOption(path:detail:)` for no neighbours or an outlier
///   factor below 1; `ReconstructionError/numerical(path:detail:)` when PCL fails.
public func cleanCloud(_ fused: FusedCloud, options: CleaningOptions = .default) throws -> PointSet {
  guard options.neighbours >= 1, options.outlierFactor.isFinite, options.outlierFactor >= 1 else {
    throw ReconstructionError.invalidOption(
      path: fused.path, detail: "the cleaning needs at least one neighbour and an outlier factor of at least 1")
  }
  var positions = fused.points.positions, colours = fused.points.colors
  guard positions.count > options.neighbours else { return fused.points }
  do {
    let keep = try NativeGeometry.medianRelativeInliers(
      positions, neighbours: options.neighbours, factor: options.outlierFactor, workers: options.workers)
    positions = zip(positions, keep).filter(\.1).map(\.0)
    colours = zip(colours, keep).filter(\.1).map(\.0)
    guard positions.count > options.neighbours else { return PointSet(positions: positions, colors: colours) }
    let (smoothed, normals) = try NativeGeometry.projectToLocalPlanes(
      positions, neighbours: options.neighbours, curvatureNeighbours: options.curvatureNeighbours, workers: options.workers)
    let centre = SIMD3<Float>(fused.headCentre)
    let outward = zip(smoothed, normals).map { p, n in ((p - centre) * n).sum() < 0 ? -n : n }
    return PointSet(positions: smoothed, normals: outward, colors: colours)
  } catch {
    throw ReconstructionError.numerical(path: fused.path, detail: String(describing: error))
  }
}

/// The signed-distance fusion (``FusionMethod/signedDistance``) of `frames` (index,
/// `worldFromCamera`) inside `projection`'s head shell and lattice, with a band of ± `truncation` metres.
func fuseSignedDistance(
  _ scan: any ScanReader, frames: [(index: Int, pose: RigidTransform)], projection: FrameFusion.Projection, truncation: Double,
  options: FusionOptions,
  progress: ((Int, Int) -> Void)?
) throws -> FusedCloud {
  guard !options.icpRefinement else {
    throw ReconstructionError.invalidOption(path: scan.path, detail: "ICP refinement works with voxel-mean fusion only")
  }
  guard options.minimumObservations >= 1,
    var volume = SignedDistanceVolume(lattice: projection.lattice, truncation: truncation)
  else {
    throw ReconstructionError.invalidOption(
      path: scan.path, detail: "the signed-distance truncation must be a positive length and at least one observation required")
  }
  let region = SignedDistanceVolume.Region(
    centre: projection.centre, inner: projection.inner, outer: projection.outer, headRadius: projection.headRadius)
  // Up to 4 running threads march a frame each; above that, one frame is read and updated at
  // once for every 4 threads (rounded up), its strips shared among the frame workers' threads
  // (never more threads than run), so that the frames in flight (each a frame read and its
  // update, about 6 MB at 640×480) grow with a quarter of the threads. The update is the same
  // either way.
  let workers = workerCount(options.workers)
  let threads = threadsRunning(workers: workers)
  let frameWorkers = threads <= 4 ? threads : (threads + 3) / 4
  let stripThreads = threads / frameWorkers
  // Each frame worker's frame, the strips' sums tables, and the integrated updates' chunks serve
  // the next frames.
  let spares = SparePool<ScanFrame>(limit: frameWorkers)
  let tables = FrameUpdateScratch(limit: threads)
  let integrated = FrameUpdateChunks(limit: .max)
  // The updates are added in frame order on this thread, a frame's blocks split among this many
  // threads: a frame takes a thread about five times as long to compute as to add, so a quarter
  // of the running threads keeps up with them.
  let stripes = max(1, threads / 4)
  try forEachInParallelBatches(
    frames, workers: frameWorkers, inFlight: 2 * frameWorkers,
    work: { [band = volume.band] frame in
      var buffer = spares.take()
      defer { if let buffer { spares.put(buffer) } }
      let read = try scan.frame(at: frame.index, reusing: &buffer)
      return band.frameUpdate(
        read, worldFromCamera: frame.pose, region: region, scratch: tables, chunks: integrated, stripThreads: stripThreads)
    },
    consume: {
      volume.integrate($0, stripes: stripes)
      integrated.recycle($0)
    },
    progress: { progress?($0, $1) })
  spares.drain()
  tables.drain()
  integrated.drain()
  return FusedCloud(
    path: scan.path, points: volume.surface(minimumWeight: Float(options.minimumObservations)), headCentre: projection.centre,
    framesFused: frames.count, refinedPoses: [:], truncation: truncation)
}

/// Settings of the cleaning stage (``cleanCloud(_:options:)``).
public struct CleaningOptions: Sendable, Hashable {
  /// Neighbours for the outlier test and the local-plane smoothing.
  public var neighbours = 20
  /// A point whose mean distance to its ``neighbours`` nearest points is more than this many
  /// times the median point's is removed: 2. The fused surface is sampled where it crosses the
  /// voxel edges, so a point on it has its neighbours at the surface's own spacing (for 20
  /// neighbours and 1 mm voxels the median is about 1.45 mm, and 99.9 % of a head's points lie
  /// within 1.75 times it); a point twice as far from its neighbours as the median one is off
  /// the sampled surface. The median is the surface's while the head is most of the cloud, so the
  /// verdict on a point of the head does not change when stray points or a face are added or
  /// removed elsewhere (a limit from the cloud's mean and standard deviation moves with them).
  /// Must be at least 1 (a smaller factor would remove most of the surface).
  public var outlierFactor = 2.0
  /// Nearest points of the wider patch whose least-squares quadratic gives the surface's
  /// curvature for the smoothing: a point projected onto its neighbours' plane is moved by the
  /// plane's offset from that curved surface (about E[s²]/(2R) inside a convex surface of
  /// radius R, s the neighbours' spread). The plane's few points fix where the surface is,
  /// the wider patch only how it bends, so the correction adds no noise of note. 0 (or no more
  /// than ``neighbours``): the plane's projection as it is.
  public var curvatureNeighbours = 100

  /// Worker threads (`nil`: one a core this process may use). The result does not depend on it.
  public var workers: Int?

  /// The defaults.
  public static let `default` = CleaningOptions()

  public init() {}
}
