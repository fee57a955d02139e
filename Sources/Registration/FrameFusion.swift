import PointCloud
import ScanIO

/// The fusion of registered frames into per-voxel averages around a head (pass 2), one frame at
/// a time: what ``fuseFrames(_:registration:options:progress:)`` does, for a caller that reads
/// and fuses frames itself.
public struct FrameFusion: Sendable {
  /// One frame's points inside the head's shell, with their voxels.
  public struct Points: Sendable {
    var positions: [SIMD3<Double>]
    var colours: [SIMD3<UInt8>]
    var cells: [Int]
    /// Number of points.
    public var count: Int { positions.count }
  }

  /// Turns a registered frame into its points; a value, safe to use from several threads at once.
  public struct Projection: Sendable {
    let centre: SIMD3<Double>
    let inner: Double, outer: Double
    let lattice: VoxelLattice

    /// Back-projects one frame (`worldFromCamera` in metres).
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

  /// The back-projection every frame goes through.
  public let projection: Projection
  private(set) var grid: VoxelGrid
  /// The head's centre (world, metres): normals point away from it.
  public let headCentre: SIMD3<Double>

  /// Fusion inside the shell from 5 cm below to ``FusionOptions/headMargin`` above the sphere
  /// through `markerCentres` (world, metres), in voxels of ``FusionOptions/voxelSize``.
  /// - Parameter path: the scan, named by errors.
  /// - Throws: ``ReconstructionError/numerical(path:detail:)`` when the centres place no head
  ///   (fewer than 4, all on one plane, or a sphere over 0.5 m in radius: a wrong map),
  ///   ``ReconstructionError/invalidOption(path:detail:)`` for a voxel size or margin that is not
  ///   a positive length, ``ReconstructionError/voxelGridTooLarge(path:across:voxelSize:limit:)``.
  public init(aroundMarkerCentres markerCentres: [SIMD3<Double>], options: FusionOptions, path: String) throws(ReconstructionError) {
    self.init(projection: try Projection(aroundMarkerCentres: markerCentres, options: options, path: path))
  }

  /// Fusion into a new voxel grid over `projection`'s lattice.
  init(projection: Projection) {
    self.projection = projection
    grid = VoxelGrid(lattice: projection.lattice)
    headCentre = projection.centre
  }

  /// Adds a frame's points to the running averages (call in frame order for a reproducible cloud).
  public mutating func add(_ points: Points) {
    grid.add(points.positions, colours: points.colours, cells: points.cells)
  }

  /// Occupied voxels so far.
  public var voxelCount: Int { grid.count }

  /// Every occupied voxel's mean position (world, metres) and rounded mean colour, in world-key order.
  public func means() -> PointSet {
    let (positions, colours) = grid.means()
    return PointSet(positions: positions, colors: colours)
  }
}

extension FrameFusion.Projection {
  /// The shell from 5 cm below to ``FusionOptions/headMargin`` above the sphere through
  /// `markerCentres` (world, metres), in voxels of ``FusionOptions/voxelSize``; the errors of
  /// ``FrameFusion/init(aroundMarkerCentres:options:path:)``.
  init(aroundMarkerCentres markerCentres: [SIMD3<Double>], options: FusionOptions, path: String) throws(ReconstructionError) {
    guard options.voxelSize.isFinite, options.voxelSize > 0, options.headMargin.isFinite, options.headMargin >= 0 else {
      throw .invalidOption(path: path, detail: "the fusion voxel size must be a positive length and the head margin not negative")
    }
    // The head region from every mapped sticker: on a coarse scan only a few are well enough
    // seen to be kept, too few to place a sphere.
    guard let sphere = Sphere(fitting: markerCentres) else {
      throw .numerical(
        path: path, detail: "\(markerCentres.count) mapped markers do not place the head (a sphere needs 4 not on one plane)")
    }
    // A sphere far larger than a head means the marker map is wrong: stop rather than fuse a room.
    guard sphere.radius <= 0.5 else {
      throw .numerical(path: path, detail: String(format: "the markers do not lie on a head-sized sphere (radius %.0f mm)", sphere.radius * 1000))
    }
    let outer = sphere.radius + options.headMargin, inner = max(0, sphere.radius - 0.05)
    guard let lattice = VoxelLattice(centre: sphere.centre, radius: outer, voxelSize: options.voxelSize) else {
      throw .voxelGridTooLarge(
        path: path, across: 2 * outer, voxelSize: options.voxelSize, limit: VoxelLattice.widest(voxelSize: options.voxelSize))
    }
    self.init(centre: sphere.centre, inner: inner, outer: outer, lattice: lattice)
  }
}
