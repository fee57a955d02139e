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

  /// Largest cube edge in blocks (2048 voxels): a 16.8-million-entry block index (64 MB) at most.
  static let maximumBlocksPerSide = 256

  /// The widest cube (metres) a lattice of `voxelSize` takes.
  static func widest(voxelSize: Double) -> Double { Double(8 * maximumBlocksPerSide - 1) * voxelSize }

  /// The cube of half-edge `radius` around `centre` (metres); `nil` unless the sizes are positive
  /// and finite, the centre within 1 km of the origin, and the cube at most ``widest(voxelSize:)``.
  init?(centre: SIMD3<Double>, radius: Double, voxelSize: Double) {
    guard voxelSize.isFinite, voxelSize > 0, radius.isFinite, radius > 0, 2 * radius <= Self.widest(voxelSize: voxelSize),
      (centre * centre).sum() <= 1e6
    else { return nil }
    self.voxelSize = voxelSize
    let low = ((centre - radius) / voxelSize).rounded(.down)
    // Finite and within ±1 km / voxelSize: far inside Int's range.
    guard low.x.magnitude < 1e15, low.y.magnitude < 1e15, low.z.magnitude < 1e15 else { return nil }
    originKey = SIMD3(Int(low.x), Int(low.y), Int(low.z))
    blocksPerSide = (Int((2 * radius / voxelSize).rounded(.up)) + 1 + 7) / 8
  }

  /// `block × 512 + voxel in block` for a point (world, metres), −1 outside the cube (or not finite).
  func cell(of p: SIMD3<Double>) -> Int {
    let key = (p / voxelSize).rounded(.down) - SIMD3<Double>(originKey)
    // Compared as doubles first, so a far or non-finite point never reaches Int(_:).
    let limit = Double(side)
    guard key.x >= 0, key.y >= 0, key.z >= 0, key.x < limit, key.y < limit, key.z < limit else { return -1 }
    let x = Int(key.x), y = Int(key.y), z = Int(key.z)
    let block = ((x >> 3) * blocksPerSide + (y >> 3)) * blocksPerSide + (z >> 3)
    return block << 9 | ((x & 7) << 6) | ((y & 7) << 3) | (z & 7)
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
