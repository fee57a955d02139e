import Dispatch
import Registration
import PointCloud
import ScanIO

/// A truncated signed-distance volume (Curless and Levoy 1996; KinectFusion, Newcombe et al. 2011)
/// over the 8×8×8-voxel blocks of a ``VoxelLattice``.
///
/// Each depth pixel (or every few, ``SignedDistanceBand/pixelStep(for:worldFromCamera:region:)``)
/// updates the voxels whose centres lie within ± ``truncation`` of its surface point along its ray,
/// with the signed distance (metres, positive in front of the surface, on the camera's side) from
/// the voxel centre's projection on the ray to the measured surface, clamped to ± ``truncation``;
/// each voxel keeps the sum and the count, so its mean is the average of every update. The zero level of the mean is the fused
/// surface: it averages every observation along the ray direction, so per-pixel depth noise σ
/// leaves the surface off by about σ/√(observations), where a per-voxel mean of the points keeps a
/// shell as thick and as rough as one frame's noise.
///
/// Blocks are allocated where a frame first reaches them, so memory follows the surface. Updates
/// are computed per frame off the owning thread (``SignedDistanceBand/frameUpdate(_:worldFromCamera:region:pixelStep:jumpLimit:scratch:chunks:stripThreads:)``, a pure
/// function) and applied in frame order (``integrate(_:)``), so the result does not depend on
/// which thread computed which frame.
struct SignedDistanceVolume {
  struct Cell {
    /// Sum of the signed distances, in units of the truncation (each −1…1).
    var distanceSum: Double = 0
    /// Updates summed.
    var weight: Float = 0
    /// Colour sums (three scalars, not a 16-byte vector, so a cell takes 24 bytes).
    var red: Float = 0, green: Float = 0, blue: Float = 0
    /// Mean signed distance, in units of the truncation (−1…1).
    var distance: Float { weight > 0 ? Float(distanceSum / Double(weight)) : 0 }
    /// Mean colour (r, g, b).
    var colour: SIMD3<Float> { weight > 0 ? SIMD3(red, green, blue) / weight : .zero }
  }

  /// One frame's contributions (``SignedDistanceBand/frameUpdate(_:worldFromCamera:region:pixelStep:jumpLimit:scratch:chunks:stripThreads:)``),
  /// summed per voxel within each strip of rays: a voxel cell; its signed distances' sum (truncation units) and colour sums
  /// (r, g, b); and how many updates they sum. A cell may appear more than once.
  ///
  /// The entries lie in chunks of at most ``chunkCapacity``, in order: a frame's update holds
  /// what it needs to the nearest chunk, and the chunks handed back after integration serve the
  /// next frames' updates whatever their sizes (arrays that grow by doubling and are reused
  /// whole would each keep the capacity of the largest frame they ever held).
  struct FrameUpdate: Sendable {
    /// A run of entries, in order.
    struct Chunk: Sendable {
      var cells: [Int] = []
      var sums: [SIMD4<Float>] = []
      var weights: [Float] = []
    }
    /// Entries a chunk holds: 4096 (112 KiB of cells, sums and weights). Strips marched on
    /// several threads start a chunk each, so a frame's update then holds a partly filled chunk
    /// a strip: small chunks keep that small beside the strip's own entries.
    static let chunkCapacity = 1 << 12
    var chunks: [Chunk] = []
    var count: Int { chunks.reduce(0) { $0 + $1.cells.count } }
    /// The entries' cells, sums and weights in order, each as one array (for inspection).
    var cells: [Int] { chunks.flatMap(\.cells) }
    var sums: [SIMD4<Float>] { chunks.flatMap(\.sums) }
    var weights: [Float] { chunks.flatMap(\.weights) }
  }

  /// The sphere shell outside which depth is ignored (world, metres).
  struct Region: Sendable {
    var centre: SIMD3<Double>
    var inner: Double
    var outer: Double
    /// The head sphere's radius (the sphere through the markers), where it is head-sized.
    var headRadius: Double? = nil
  }

  let lattice: VoxelLattice
  /// Half-width of the band around each measured surface point, metres.
  let truncation: Double
  /// Block number → first cell of its storage, −1 where nothing has landed.
  private var storage: [Int32]
  /// Per storage slot: its block number.
  private var blocks: [Int32] = []
  private var cells = CellPages()

  /// `nil` unless `truncation` is a positive length.
  init?(lattice: VoxelLattice, truncation: Double) {
    guard truncation.isFinite, truncation > 0 else { return nil }
    self.lattice = lattice
    self.truncation = truncation
    storage = [Int32](repeating: -1, count: lattice.blocksPerSide * lattice.blocksPerSide * lattice.blocksPerSide)
  }

  /// Voxels that have been observed.
  var observedCount: Int { (0..<cells.count).reduce(0) { cells[$1].weight > 0 ? $0 + 1 : $0 } }

  /// What computes a frame's updates: the lattice and the band, a value safe to use from the
  /// threads that read frames.
  var band: SignedDistanceBand { SignedDistanceBand(lattice: lattice, truncation: truncation) }

  /// Applies one frame's updates (call in frame order for a reproducible volume).
  ///
  /// With `stripes` above 1, that many threads add the updates, each those of the blocks whose
  /// number is its stripe modulo `stripes` (the calling thread one of them): every cell is
  /// written by one thread, in update order, so the volume is the same bit for bit whatever
  /// `stripes` is. Blocks are allocated first, on the calling thread, in update order.
  mutating func integrate(_ update: FrameUpdate, stripes: Int = 1) {
    if !isKnownUniquelyReferenced(&cells) { cells = cells.copy() }
    for chunk in update.chunks {
      chunk.cells.withUnsafeBufferPointer { updated in
        for cell in updated {
          let block = cell >> 9
          // Storage is indexed by Int32: past 2³¹ cells (40 GB) new blocks are no longer taken.
          if storage[block] < 0 && cells.count <= Int(Int32.max) - 512 {
            storage[block] = Int32(cells.appendBlock())
            blocks.append(Int32(block))
          }
        }
      }
    }
    cells.withPages { pages in storage.withUnsafeBufferPointer { storage in
      let buffers = IntegrationBuffers(pages: pages, storage: storage)
      if stripes <= 1 {
        for chunk in update.chunks { buffers.add(chunk, stripe: 0, of: 1) }
      } else {
        DispatchQueue.concurrentPerform(iterations: stripes) { stripe in
          for chunk in update.chunks { buffers.add(chunk, stripe: stripe, of: stripes) }
        }
      }
    } }
  }

  /// The cell of a voxel given by its offset from the cube's first voxel, if allocated.
  private func slot(of voxel: SIMD3<Int>) -> Int? {
    let side = lattice.side
    guard voxel.x >= 0, voxel.y >= 0, voxel.z >= 0, voxel.x < side, voxel.y < side, voxel.z < side else { return nil }
    let n = lattice.blocksPerSide
    let block = ((voxel.x >> 3) * n + (voxel.y >> 3)) * n + (voxel.z >> 3)
    let first = storage[block]
    guard first >= 0 else { return nil }
    return Int(first) + ((voxel.x & 7) << 6 | (voxel.y & 7) << 3 | (voxel.z & 7))
  }

  /// The fused surface: one point where the mean signed distance changes sign between two
  /// neighbouring voxels along x, y or z, both seen at least `minimumWeight` times and both inside
  /// the band (a jump from +1 to −1 is the edge of what was seen, not a surface). Normals are the
  /// normalised gradient of the signed distance (pointing to the side the cameras saw from);
  /// colours are interpolated. Points come in voxel-key order.
  func surface(minimumWeight: Float = 1) -> PointSet {
    var found: [(key: Int, position: SIMD3<Float>, normal: SIMD3<Float>, colour: SIMD3<UInt8>)] = []
    let side = lattice.side
    let axes = [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)]
    for (slotIndex, block) in blocks.enumerated() {
      for v in 0..<512 {
        let a = cells[slotIndex * 512 + v]
        guard a.weight >= minimumWeight, abs(a.distance) < 1 else { continue }
        let voxel = lattice.voxel(ofCell: Int(block) << 9 | v)
        let pa = lattice.centre(ofVoxel: voxel)
        // This voxel's gradient, worked out once, at its first crossing.
        var ga: SIMD3<Float>?
        var gradientTried = false
        for (axisIndex, axis) in axes.enumerated() {
          guard let other = slot(of: voxel &+ axis) else { continue }
          let b = cells[other]
          guard b.weight >= minimumWeight, abs(b.distance) < 1, (a.distance >= 0) != (b.distance >= 0) else { continue }
          let t = a.distance / (a.distance - b.distance)
          let pb = lattice.centre(ofVoxel: voxel &+ axis)
          let position = SIMD3<Float>(pa + Double(t) * (pb - pa))
          if !gradientTried {
            (ga, gradientTried) = (gradient(at: voxel), true)
          }
          guard let ga, let gb = gradient(at: voxel &+ axis) else { continue }
          let g = ga + t * (gb - ga)
          let length = (g * g).sum().squareRoot()
          guard length > 0 else { continue }
          let colour = a.colour + t * (b.colour - a.colour)
          let key = ((voxel.x * side + voxel.y) * side + voxel.z) * 3 + axisIndex
          found.append((key, position, g / length, SIMD3<UInt8>(clamping: SIMD3<Int32>(colour.rounded(.toNearestOrEven)))))
        }
      }
    }
    found.sort { $0.key < $1.key }
    return PointSet(positions: found.map(\.position), normals: found.map(\.normal), colors: found.map(\.colour))
  }

  /// Central-difference gradient of the mean signed distance at a voxel (one-sided where a
  /// neighbour is unseen); `nil` where neither side along an axis is seen.
  private func gradient(at voxel: SIMD3<Int>) -> SIMD3<Float>? {
    guard let here = slot(of: voxel).map({ cells[$0] }), here.weight > 0 else { return nil }
    var g = SIMD3<Float>.zero
    for axis in 0..<3 {
      var unit = SIMD3<Int>.zero
      unit[axis] = 1
      let plus = slot(of: voxel &+ unit).map { cells[$0] }.flatMap { $0.weight > 0 ? $0.distance : nil }
      let minus = slot(of: voxel &- unit).map { cells[$0] }.flatMap { $0.weight > 0 ? $0.distance : nil }
      switch (plus, minus) {
      case let (p?, m?): g[axis] = (p - m) / 2
      case let (p?, nil): g[axis] = p - here.distance
      case let (nil, m?): g[axis] = here.distance - m
      case (nil, nil): return nil
      }
    }
    return g
  }
}

extension VoxelLattice {
  /// Centre of a voxel given by its offset from the cube's first voxel (world, metres).
  func centre(ofVoxel voxel: SIMD3<Int>) -> SIMD3<Double> {
    (SIMD3<Double>(voxel &+ originKey) + 0.5) * voxelSize - offset
  }

  /// Centre of the voxel of a cell number from ``cell(of:)`` (world, metres).
  func centre(ofCell cell: Int) -> SIMD3<Double> { centre(ofVoxel: voxel(ofCell: cell)) }
}

/// One frame update and the volume's cells, as the integrating threads see them: each adds the
/// entries of its own blocks, so no cell is written by two threads.
private struct IntegrationBuffers: @unchecked Sendable {
  /// The volume's pages (``CellPages``).
  let pages: UnsafeBufferPointer<UnsafeMutablePointer<SignedDistanceVolume.Cell>>
  let storage: UnsafeBufferPointer<Int32>

  /// Adds the chunk's entries whose block number is `stripe` modulo `stripes`, in update order.
  func add(_ chunk: SignedDistanceVolume.FrameUpdate.Chunk, stripe: Int, of stripes: Int) {
    chunk.cells.withUnsafeBufferPointer { updated in
      chunk.sums.withUnsafeBufferPointer { sums in
        chunk.weights.withUnsafeBufferPointer { weights in
          for k in updated.indices {
            let block = updated[k] >> 9
            guard stripes == 1 || block % stripes == stripe else { continue }
            let first = storage[block]
            guard first >= 0 else { continue }
            let cell = CellPages.cell(Int(first) + (updated[k] & 511), in: pages)
            let sum = sums[k]
            cell.pointee.distanceSum += Double(sum.x)
            cell.pointee.red += sum.y
            cell.pointee.green += sum.z
            cell.pointee.blue += sum.w
            cell.pointee.weight += weights[k]
          }
        }
      }
    }
  }
}

/// A volume's cells in pages of ``cellsPerPage`` that never move once allocated: a volume that
/// grows adds a page where an array would copy all its cells into one twice as large, holding
/// both copies at once (a head's 1.5 million cells, 36 MB, grown so would momentarily need as
/// much again). The volume copies the pages before changing cells another volume shares.
final class CellPages: @unchecked Sendable {
  /// Blocks of 512 cells a page holds: 64, 768 KiB of cells.
  static let blocksPerPage = 64
  static let cellsPerPage = blocksPerPage * 512
  private var pages: [UnsafeMutablePointer<SignedDistanceVolume.Cell>] = []
  /// Cells allocated so far (512 a block).
  private(set) var count = 0

  init() {}

  deinit { for page in pages { page.deallocate() } }

  /// A copy of the allocated cells in pages of its own.
  func copy() -> CellPages {
    let other = CellPages()
    for (index, page) in pages.enumerated() {
      let copy = UnsafeMutablePointer<SignedDistanceVolume.Cell>.allocate(capacity: Self.cellsPerPage)
      copy.initialize(from: page, count: min(Self.cellsPerPage, count - index * Self.cellsPerPage))
      other.pages.append(copy)
    }
    other.count = count
    return other
  }

  /// Allocates one block's 512 empty cells and returns the first one's index.
  func appendBlock() -> Int {
    let first = count
    if first % Self.cellsPerPage == 0 { pages.append(.allocate(capacity: Self.cellsPerPage)) }
    (pages[first / Self.cellsPerPage] + first % Self.cellsPerPage).initialize(repeating: SignedDistanceVolume.Cell(), count: 512)
    count += 512
    return first
  }

  /// Calls `body` with the pages' first cells (page `i` holds cells `i·cellsPerPage` on); no page
  /// is added meanwhile.
  func withPages<Result>(_ body: (UnsafeBufferPointer<UnsafeMutablePointer<SignedDistanceVolume.Cell>>) throws -> Result) rethrows -> Result {
    try pages.withUnsafeBufferPointer(body)
  }

  /// The cell at `index` (below ``count``).
  subscript(index: Int) -> SignedDistanceVolume.Cell { pointer(index).pointee }

  /// Where the cell at `index` (below ``count``) lives; it stays there while the pages live.
  @inline(__always)
  func pointer(_ index: Int) -> UnsafeMutablePointer<SignedDistanceVolume.Cell> {
    pages.withUnsafeBufferPointer { Self.cell(index, in: $0) }
  }

  /// The cell at `index` among `pages` (``withPages(_:)``).
  @inline(__always)
  static func cell(
    _ index: Int, in pages: UnsafeBufferPointer<UnsafeMutablePointer<SignedDistanceVolume.Cell>>
  ) -> UnsafeMutablePointer<SignedDistanceVolume.Cell> {
    pages[index / cellsPerPage] + index % cellsPerPage
  }
}
