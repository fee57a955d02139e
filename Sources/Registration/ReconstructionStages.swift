import ArucoBridge
import PointCloud
import ScanIO

// The stages of `reconstructHead` one at a time, for the benchmark package
// (`@_spi(Stages) import Registration`). Not API: names and shapes may change.

/// What pass 1 learns from one frame.
@_spi(Stages) public struct FrameObservation: Sendable {
  /// The frame's diagnostics so far (detections, lifting, blur); no pose yet.
  public var diagnostics: FrameDiagnostics
  /// Its cap markers lifted to 3D (camera frame, metres).
  public var lifted: [LiftedMarker]
  /// Detections whose id is not on the cap.
  public var offCapDetections: Int
  /// Whether any depth sample is valid.
  public var hasDepth: Bool
}

/// Pass 1 for one frame: markers detected (ids beyond `capMarkerCount` dropped), lifted to 3D
/// with the frame's depth, and the blur across their outlines measured.
@_spi(Stages) public func observeFrame(
  _ frame: ScanFrame, detector: MarkerDetector, capMarkerCount: Int?, sideLength: Double, options: ReconstructionOptions
) throws -> FrameObservation {
  // One grey conversion for both the detector and the blur index (the same BT.601 weights as OpenCV's).
  let grey = frame.color.grey()
  var found = try detector.detect(grey: grey, width: frame.color.width, height: frame.color.height)
  let before = found.count
  if let capMarkerCount { found.removeAll { $0.id >= capMarkerCount } }
  // Corners where the fitted border edges meet: whole edges for lifting and resection, the
  // parts next to each corner for triangulation (see LiftedMarker.triangulationCorners).
  let image = GreyImage(pixels: grey, width: frame.color.width, height: frame.color.height)
  let markers = found.compactMap { detected -> LiftedMarker? in
    let whole = options.refineCornersAlongEdges ? detected.refinedAlongEdges(in: image, cellsAcross: detector.cellsAcross) : detected
    guard var lifted = LiftedMarker(marker: whole, depth: frame.depth, colour: frame.color.intrinsics, sideLength: sideLength, options: options.lifting)
    else { return nil }
    if options.refineCornersAlongEdges {
      lifted.triangulationCorners = whole.refinedAlongEdges(in: image, cellsAcross: detector.cellsAcross, span: 0.6).corners
    }
    return lifted
  }
  let diagnostics = FrameDiagnostics(
    index: frame.index, timestamp: frame.timestamp, detectedIDs: found.map(\.id),
    liftedByDepth: markers.filter { $0.method == .depth }.count, liftedByPnP: markers.filter { $0.method == .pnp }.count,
    edgeBlur: found.isEmpty ? nil : edgeBlur(of: found, grey: grey, width: frame.color.width, height: frame.color.height))
  return FrameObservation(
    diagnostics: diagnostics, lifted: markers, offCapDetections: before - found.count,
    hasDepth: frame.depth.metres.contains { $0.isFinite })
}

/// Chaining and global optimisation over pass 1's observations (one per frame, in frame order).
/// - Returns: the frames with their poses or rejections, and the kept marker map (contract §5 world).
@_spi(Stages) public func registerObservations(
  _ observations: [FrameObservation], options: ReconstructionOptions, colour: CameraIntrinsics, sideLength: Double, path: String
) throws -> (frames: [FrameDiagnostics], markers: [RegisteredMarker]) {
  var diagnostics = observations.map(\.diagnostics)
  let solution = try registerFrames(
    observations.map(\.lifted), diagnostics: &diagnostics, options: options, path: path, colour: colour,
    sideLength: sideLength)
  return (diagnostics, solution.markers)
}

/// Pass 2's fusion of registered frames into per-voxel averages around a head.
@_spi(Stages) public struct FrameFusion {
  /// One frame's points inside the head's shell, with their voxels.
  public struct Points: Sendable {
    var positions: [SIMD3<Double>]
    var colours: [SIMD3<UInt8>]
    var cells: [Int32]
    /// Number of points.
    public var count: Int { positions.count }
  }

  /// Turns a registered frame into its points; a value, safe to use from several threads at once.
  public struct Projection: Sendable {
    let centre: SIMD3<Double>
    let inner: Double, outer: Double
    let lattice: VoxelLattice

    /// Back-projects one frame.
    public func points(of frame: ScanFrame, worldFromCamera: RigidTransform) -> Points {
      let (positions, colours) = headPoints(frame, worldFromCamera: worldFromCamera, centre: centre, inner: inner, outer: outer)
      return Points(positions: positions, colours: colours, cells: positions.map(lattice.cell(of:)))
    }

    /// The same points moved by `correction` (world ← world), with their new voxels.
    func moved(_ points: Points, by correction: RigidTransform) -> Points {
      let positions = points.positions.map(correction.apply)
      return Points(positions: positions, colours: points.colours, cells: positions.map(lattice.cell(of:)))
    }
  }

  public let projection: Projection
  private(set) var grid: VoxelGrid

  /// Fusion inside the shell from 5 cm below to ``ReconstructionOptions/headMargin`` above the
  /// sphere through the markers (world, metres).
  init(around sphere: Sphere, options: ReconstructionOptions) {
    let outer = sphere.radius + options.headMargin, inner = max(0, sphere.radius - 0.05)
    let lattice = VoxelLattice(centre: sphere.centre, radius: outer, voxelSize: options.voxelSize)
    projection = Projection(centre: sphere.centre, inner: inner, outer: outer, lattice: lattice)
    grid = VoxelGrid(lattice: lattice)
  }

  /// The fusion `reconstructHead` sets up for a marker map; `nil` when the markers fit no sphere.
  public init?(around markers: [RegisteredMarker], options: ReconstructionOptions) {
    guard let sphere = Sphere(fitting: markers.map(\.worldFromMarker.translation)) else { return nil }
    self.init(around: sphere, options: options)
  }

  /// Adds a frame's points to the running averages (call in frame order for a reproducible cloud).
  public mutating func add(_ points: Points) {
    grid.add(points.positions, colours: points.colours, cells: points.cells)
  }

  /// Occupied voxels so far.
  public var voxelCount: Int { grid.count }
}
