import Registration
import PointCloud

/// Running sums of the points that fall in each voxel of a ``VoxelLattice``, for fusion.
///
/// Storage comes in 8×8×8-voxel blocks allocated when a point first lands in them, so
/// memory follows the head's surface, not the cube's volume, and adding a point costs
/// two array indexings instead of a hash lookup. Sums are in `Double` and added in call
/// order, so the result does not depend on which thread back-projected the points.
struct VoxelGrid {
  /// Scalars, not `SIMD3` vectors (padded to 32 and 16 bytes): 40 bytes a cell instead of 64.
  private struct Cell {
    var x = 0.0, y = 0.0, z = 0.0
    var red: UInt32 = 0, green: UInt32 = 0, blue: UInt32 = 0
    var count: UInt32 = 0
    var position: SIMD3<Double> { SIMD3(x, y, z) }
    var colour: SIMD3<UInt32> { SIMD3(red, green, blue) }
  }

  let lattice: VoxelLattice
  /// Block number → its slot in ``cells`` (512 cells a slot), −1 where nothing has landed.
  /// Fewer than 2²⁴ blocks (``VoxelLattice/maximumBlocksPerSide``), so slots fit `Int32`.
  private var storage: [Int32]
  /// Per slot: its block number.
  private var blocks: [Int] = []
  private var cells: [Cell] = []
  /// Voxels with at least one point.
  private(set) var count = 0

  init(lattice: VoxelLattice) {
    self.lattice = lattice
    storage = [Int32](repeating: -1, count: lattice.blocksPerSide * lattice.blocksPerSide * lattice.blocksPerSide)
  }

  /// Adds points (world, metres) with their colours (r, g, b) and cells from the lattice's
  /// ``VoxelLattice/cell(of:)``; points outside the cube (cell −1) are skipped.
  mutating func add(_ positions: [SIMD3<Double>], colours: [SIMD3<UInt8>], cells located: [Int]) {
    precondition(positions.count == colours.count && positions.count == located.count, "one cell per point")
    for i in located.indices where located[i] >= 0 {
      let block = located[i] >> 9
      if storage[block] < 0 {
        storage[block] = Int32(blocks.count)
        blocks.append(block)
        cells.append(contentsOf: repeatElement(Cell(), count: 512))
      }
    }
    cells.withUnsafeMutableBufferPointer { cells in
      storage.withUnsafeBufferPointer { storage in
        for i in located.indices where located[i] >= 0 {
          let c = Int(storage[located[i] >> 9]) * 512 + (located[i] & 511)
          if cells[c].count == 0 { count += 1 }
          cells[c].x += positions[i].x
          cells[c].y += positions[i].y
          cells[c].z += positions[i].z
          cells[c].red &+= UInt32(colours[i].x)
          cells[c].green &+= UInt32(colours[i].y)
          cells[c].blue &+= UInt32(colours[i].z)
          cells[c].count += 1
        }
      }
    }
  }

  /// Every occupied voxel's mean position (world, metres) and rounded mean colour, in
  /// world-key order (x, then y, then z).
  func means() -> (positions: [SIMD3<Float>], colours: [SIMD3<UInt8>]) {
    var occupied: [(key: Int, index: Int)] = []
    occupied.reserveCapacity(count)
    let side = lattice.side
    for (slot, block) in blocks.enumerated() {
      for v in 0..<512 where cells[slot * 512 + v].count > 0 {
        let voxel = lattice.voxel(ofCell: block << 9 | v)
        occupied.append(((voxel.x * side + voxel.y) * side + voxel.z, slot * 512 + v))
      }
    }
    occupied.sort { $0.key < $1.key }
    let positions = occupied.map { SIMD3<Float>(cells[$0.index].position / Double(cells[$0.index].count)) }
    let colours = occupied.map {
      SIMD3<UInt8>(clamping: SIMD3<Int>((SIMD3<Double>(cells[$0.index].colour) / Double(cells[$0.index].count)).rounded(.toNearestOrEven)))
    }
    return (positions, colours)
  }

  /// Mean positions (world, metres) of the occupied voxels whose mean lies in the box `low…high`.
  func means(inside low: SIMD3<Float>, _ high: SIMD3<Float>) -> [SIMD3<Float>] {
    cells.compactMap { cell in
      guard cell.count > 0 else { return nil }
      let p = SIMD3<Float>(cell.position / Double(cell.count))
      return all(p .>= low) && all(p .<= high) ? p : nil
    }
  }
}
