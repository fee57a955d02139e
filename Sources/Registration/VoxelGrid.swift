import PointCloud

/// Which voxel of a cube a point falls in: the world grid `floor(p / voxelSize)` (metres),
/// numbered by 8×8×8-voxel block and position inside the block. A value, safe to use from
/// the threads that back-project frames.
struct VoxelLattice: Sendable {
  /// Voxel edge, metres.
  let voxelSize: Double
  /// World voxel key of the cube's first voxel.
  let originKey: SIMD3<Int>
  /// Blocks along each edge of the cube.
  let blocksPerSide: Int
  /// Voxels along each edge of the cube.
  var side: Int { 8 * blocksPerSide }

  /// The cube of half-edge `radius` around `centre` (metres).
  init(centre: SIMD3<Double>, radius: Double, voxelSize: Double) {
    precondition(voxelSize > 0 && radius > 0, "a voxel lattice needs a positive size")
    self.voxelSize = voxelSize
    let low = ((centre - radius) / voxelSize).rounded(.down)
    originKey = SIMD3(Int(low.x), Int(low.y), Int(low.z))
    blocksPerSide = (Int((2 * radius / voxelSize).rounded(.up)) + 1 + 7) / 8
  }

  /// `block × 512 + voxel in block` for a point (world, metres), −1 outside the cube.
  func cell(of p: SIMD3<Double>) -> Int32 {
    let key = (p / voxelSize).rounded(.down)
    let x = Int(key.x) - originKey.x, y = Int(key.y) - originKey.y, z = Int(key.z) - originKey.z
    guard x >= 0, y >= 0, z >= 0, x < side, y < side, z < side else { return -1 }
    let block = ((x >> 3) * blocksPerSide + (y >> 3)) * blocksPerSide + (z >> 3)
    return Int32(block << 9 | ((x & 7) << 6) | ((y & 7) << 3) | (z & 7))
  }

  /// The voxel's offset from the cube's first voxel, for a cell number from ``cell(of:)``.
  func voxel(ofCell cell: Int) -> SIMD3<Int> {
    let block = cell >> 9, v = cell & 511
    let bx = block / (blocksPerSide * blocksPerSide), by = (block / blocksPerSide) % blocksPerSide, bz = block % blocksPerSide
    return SIMD3(bx * 8 + (v >> 6), by * 8 + ((v >> 3) & 7), bz * 8 + (v & 7))
  }
}

/// Running sums of the points that fall in each voxel of a ``VoxelLattice``, for fusion.
///
/// Storage comes in 8×8×8-voxel blocks allocated when a point first lands in them, so
/// memory follows the head's surface, not the cube's volume, and adding a point costs
/// two array indexings instead of a hash lookup. Sums are in `Double` and added in call
/// order, so the result does not depend on which thread back-projected the points.
struct VoxelGrid {
  private struct Cell {
    var position = SIMD3<Double>.zero
    var colour = SIMD3<UInt32>.zero
    var count: UInt32 = 0
  }

  let lattice: VoxelLattice
  /// Block number → first cell of its storage, −1 where nothing has landed.
  private var storage: [Int32]
  /// Per storage block: its block number.
  private var blocks: [Int32] = []
  private var cells: [Cell] = []
  /// Voxels with at least one point.
  private(set) var count = 0

  /// Largest cube edge in blocks: a 0.5 m head radius at 1 mm voxels.
  static let maximumBlocksPerSide = 126

  init(lattice: VoxelLattice) {
    precondition(lattice.blocksPerSide <= Self.maximumBlocksPerSide, "voxel cube too large")
    self.lattice = lattice
    storage = [Int32](repeating: -1, count: lattice.blocksPerSide * lattice.blocksPerSide * lattice.blocksPerSide)
  }

  /// Adds points (world, metres) with their colours (r, g, b) and cells from the lattice's
  /// ``VoxelLattice/cell(of:)``; points outside the cube (cell −1) are skipped.
  mutating func add(_ positions: [SIMD3<Double>], colours: [SIMD3<UInt8>], cells located: [Int32]) {
    precondition(positions.count == colours.count && positions.count == located.count, "one cell per point")
    for i in located.indices where located[i] >= 0 {
      let block = Int(located[i] >> 9)
      if storage[block] < 0 {
        storage[block] = Int32(cells.count)
        blocks.append(Int32(block))
        cells.append(contentsOf: repeatElement(Cell(), count: 512))
      }
    }
    cells.withUnsafeMutableBufferPointer { cells in
      storage.withUnsafeBufferPointer { storage in
        for i in located.indices where located[i] >= 0 {
          let c = Int(storage[Int(located[i] >> 9)]) + Int(located[i] & 511)
          if cells[c].count == 0 { count += 1 }
          cells[c].position += positions[i]
          cells[c].colour &+= SIMD3<UInt32>(truncatingIfNeeded: colours[i])
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
        let voxel = lattice.voxel(ofCell: Int(block) << 9 | v)
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
