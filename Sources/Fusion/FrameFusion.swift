import Registration
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
    /// The radius of the sphere through the markers where it is head-sized (`nil` for markers on
    /// a much flatter surface), metres.
    var headRadius: Double? = nil

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
  /// - Throws: `ReconstructionError/numerical(path:detail:)` when the centres place no head
  ///   (fewer than 4, or all on one plane),
  ///   `ReconstructionError/invalidOption(path:detail:)` for a voxel size or margin that is not
  ///   a positive length, `ReconstructionError/voxelGridTooLarge(path:across:voxelSize:limit:)`.
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
  /// `markerCentres` (world, metres), in voxels of ``FusionOptions/voxelSize``, within the
  /// sphere's ball — or, for markers on a surface much flatter than a head, the margin on either
  /// side of the sphere within the cube around the markers grown by the margin; the errors of
  /// ``FrameFusion/init(aroundMarkerCentres:options:path:)``.
  init(aroundMarkerCentres markerCentres: [SIMD3<Double>], options: FusionOptions, path: String) throws(ReconstructionError) {
    guard options.voxelSize.isFinite, options.voxelSize > 0, options.headMargin.isFinite, options.headMargin >= 0 else {
      throw .invalidOption(path: path, detail: "the fusion voxel size must be a positive length and the head margin not negative")
    }
    // The head region from every mapped sticker: on a coarse scan only a few are well enough
    // seen to be kept, too few to place a sphere.
    guard let sphere = Sphere(fitting: markerCentres) else {
      throw .numerical(
        path: path, detail:
          "\(markerCentres.count) mapped marker\(markerCentres.count == 1 ? " does" : "s do") not place the head (a sphere needs 4 not on one plane)")
    }
    // The voxels: the sphere's ball for a head (down to 5 cm inside the sphere: the face below
    // the cap). Markers on a much flatter surface (a calibration board: the sphere through them
    // is metres wide) get only the cube around them and the margin on both sides — never a room.
    let centroid = markerCentres.reduce(SIMD3<Double>.zero, +) / Double(markerCentres.count)
    let extent = markerCentres.map { ($0 - centroid).length }.max() ?? 0
    let headSized = sphere.radius <= extent + 0.05
    let outer = sphere.radius + options.headMargin
    let inner = max(0, sphere.radius - (headSized ? 0.05 : options.headMargin))
    let (latticeCentre, latticeRadius) = headSized ? (sphere.centre, outer) : (centroid, extent + options.headMargin)
    let offset = options.latticeOffset
    guard (0..<3).allSatisfy({ offset[$0].isFinite && offset[$0] >= 0 && offset[$0] < options.voxelSize }) else {
      throw .invalidOption(path: path, detail: "the lattice offset must lie within one voxel (each axis from 0 to under the voxel size)")
    }
    guard let lattice = VoxelLattice(centre: latticeCentre, radius: latticeRadius, voxelSize: options.voxelSize, offset: offset) else {
      throw .voxelGridTooLarge(
        path: path, across: 2 * latticeRadius, voxelSize: options.voxelSize, limit: VoxelLattice.widest(voxelSize: options.voxelSize))
    }
    self.init(centre: sphere.centre, inner: inner, outer: outer, lattice: lattice, headRadius: headSized ? sphere.radius : nil)
  }
}

/// The small rigid motion (world ← world) that ICP finds for one frame's points against the
/// voxel model so far, if it converges, lowers their mean squared distance to the model by
/// at least a fifth, and moves them by no more than 3 mm and 1°; otherwise `nil`.
func icpCorrection(_ points: [SIMD3<Double>], model: VoxelGrid, voxelSize: Double) -> RigidTransform? {
  let source = stride(from: 0, to: points.count, by: 16).map { SIMD3<Float>(points[$0]) }
  // The model only where this frame can reach it: its bounding box and the search margin.
  let reach = Float(3 * voxelSize)
  let low = source.reduce(SIMD3<Float>(repeating: .infinity)) { pointwiseMin($0, $1) } - reach
  let high = source.reduce(SIMD3<Float>(repeating: -.infinity)) { pointwiseMax($0, $1) } + reach
  let target = model.means(inside: low, high)
  guard target.count >= 500 else { return nil }
  guard let fit = try? NativeGeometry.icp(source, onto: target, maxDistance: 3 * voxelSize, iterations: 30),
    fit.converged, fit.after < 0.8 * fit.before
  else { return nil }
  let (angle, distance) = fit.transform.difference(to: .identity)
  guard angle <= .pi / 180, distance <= 0.003 else { return nil }
  return fit.transform
}
