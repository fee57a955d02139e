import Registration
import PointCloud

/// Which voxel of a cube a point falls in: the world grid `floor((p + offset) / voxelSize)`
/// (metres), numbered by 8×8×8-voxel block and position inside the block. A value, safe to use
/// from the threads that back-project frames.
struct VoxelLattice: Sendable {
  /// Voxel edge, metres.
  let voxelSize: Double
  /// World voxel key of the cube's first voxel.
  let originKey: SIMD3<Int>
  /// The grid's shift against the world (metres): voxel k spans `k · voxelSize − offset` to
  /// `(k + 1) · voxelSize − offset` along each axis (``FusionOptions/latticeOffset``).
  let offset: SIMD3<Double>
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
  init?(centre: SIMD3<Double>, radius: Double, voxelSize: Double, offset: SIMD3<Double> = .zero) {
    guard voxelSize.isFinite, voxelSize > 0, radius.isFinite, radius > 0, 2 * radius <= Self.widest(voxelSize: voxelSize),
      (centre * centre).sum() <= 1e6
    else { return nil }
    self.voxelSize = voxelSize
    self.offset = offset
    let low = ((centre - radius + offset) / voxelSize).rounded(.down)
    // Finite and within ±1 km / voxelSize: far inside Int's range.
    guard low.x.magnitude < 1e15, low.y.magnitude < 1e15, low.z.magnitude < 1e15 else { return nil }
    originKey = SIMD3(Int(low.x), Int(low.y), Int(low.z))
    blocksPerSide = (Int((2 * radius / voxelSize).rounded(.up)) + 1 + 7) / 8
  }

  /// `block × 512 + voxel in block` for a point (world, metres), −1 outside the cube (or not finite).
  func cell(of p: SIMD3<Double>) -> Int {
    let key = ((p + offset) / voxelSize).rounded(.down) - SIMD3<Double>(originKey)
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
