import Dispatch
internal import _GeometryShim
import Registration
import PointCloud
import ScanIO
import _HeadScanSupport

/// Computes one frame's updates of a ``SignedDistanceVolume``: its lattice and band half-width.
struct SignedDistanceBand: Sendable {
  let lattice: VoxelLattice
  /// Half-width of the band around each measured surface point, metres.
  let truncation: Double

  /// The updates one frame makes: pure, safe to call from several threads at once.
  ///
  /// Every `pixelStep`-th depth pixel in x and y with a depth inside `region` (and no depth jump
  /// over `jumpLimit` metres to a 4-neighbour: a flying pixel between foreground and background)
  /// marches along its ray through the band and updates each voxel it passes once. Without a
  /// `pixelStep`, the step is ``pixelStep(for:worldFromCamera:region:)``: rays about one voxel apart on the surface.
  /// The updates are summed per voxel within each vertical strip of ``stripRays`` rays before
  /// they are handed over, so the volume receives each voxel about once a frame.
  /// `worldFromCamera` in metres.
  ///
  /// The strips are summed independently of one another and their entries handed over in strip
  /// order, so `stripThreads` (threads that march the strips at once, this one among them, each
  /// taking the next strip when it is free) changes when the update is ready, never what it holds.
  /// `scratch` (tables for the per-strip sums) and `chunks` (the chunks of updates the volume has
  /// integrated) lend their memory to this one, so that a worker updating frame after frame
  /// allocates none; the updates are the same.
  func frameUpdate(
    _ frame: ScanFrame, worldFromCamera: RigidTransform, region: SignedDistanceVolume.Region?, pixelStep: Int? = nil,
    jumpLimit: Float = 0.006, scratch: FrameUpdateScratch? = nil, chunks: FrameUpdateChunks? = nil, stripThreads: Int = 1
  ) -> SignedDistanceVolume.FrameUpdate {
    let depth = frame.depth, colour = frame.color
    guard depth.width >= 3, depth.height >= 3, depth.metres.count == depth.width * depth.height,
      colour.width > 0, colour.height > 0, colour.bgra.count >= 4 * colour.width * colour.height
    else { return SignedDistanceVolume.FrameUpdate() }
    let step = max(1, pixelStep ?? self.pixelStep(for: frame, worldFromCamera: worldFromCamera, region: region))
    let rays = FrameRays(band: self, frame: frame, worldFromCamera: worldFromCamera, region: region, step: step, jumpLimit: jumpLimit)
    // Rays in vertical strips of `Self.stripRays` rays, each strip top to bottom: the voxels a ray
    // shares with the ray one row up were updated a strip's width ago, still in the sums' table.
    let strips = Array(Swift.stride(from: 1, to: depth.width - 1, by: Self.stripRays * step))
    guard stripThreads > 1 && strips.count > 1 else {
      let table = scratch?.take() ?? FrameSumsTable()
      defer { scratch?.put(table) }
      var sums = FrameSums(table: table, chunks: chunks)
      for left in strips {
        rays.march(stripFrom: left, into: &sums)
        sums.flush()
      }
      return sums.finish()
    }
    // Each thread takes the next strip when it is free and keeps one table for its strips.
    let updates = ResultSlots<SignedDistanceVolume.FrameUpdate>(count: strips.count)
    let next = IndexDispenser(below: strips.count)
    DispatchQueue.concurrentPerform(iterations: min(stripThreads, strips.count)) { _ in
      let table = scratch?.take() ?? FrameSumsTable()
      defer { scratch?.put(table) }
      while let index = next.take() {
        var sums = FrameSums(table: table, chunks: chunks)
        rays.march(stripFrom: strips[index], into: &sums)
        updates.store(sums.finish(), at: index)
      }
    }
    return SignedDistanceVolume.FrameUpdate(chunks: updates.takeAll().flatMap(\.chunks))
  }

  /// Rays across one strip of the frame's traversal (``frameUpdate(_:worldFromCamera:region:pixelStep:jumpLimit:scratch:chunks:stripThreads:)``).
  static let stripRays = 32

  /// The pixel step that puts neighbouring rays about one voxel apart where this frame sees the
  /// head: the voxel size over a pixel's footprint at the head's typical depth / fx, rounded, at
  /// least 1. Finer rays only add samples of the same voxels from the same frame, whose noise
  /// the other frames average anyway (TrueDepth at 20–40 cm: 0.35–0.7 mm a pixel, so a step of 2
  /// at 1 mm voxels).
  ///
  /// The head's typical depth comes from the frame's pose and the head sphere (the sphere through
  /// the markers): about the median depth of a sphere's visible half, the distance to its centre
  /// less its radius over √2 (seen from afar, half the area of the disc it shows lies within 1/√2
  /// of the disc's radius; nearer, the true median is a little smaller, which only makes the rays
  /// finer). It depends on no depth pixel, so a frame gets the same step whatever else its depth
  /// holds (hands, a table, a face removed from a de-identified copy). Without a head sphere (a
  /// flat calibration board), or with the camera inside it, it is the median of the frame's depth
  /// not beyond the region's far side.
  func pixelStep(for frame: ScanFrame, worldFromCamera: RigidTransform, region: SignedDistanceVolume.Region?) -> Int {
    let depth = frame.depth
    guard depth.intrinsics.fx.isFinite, depth.intrinsics.fx > 0, depth.metres.count == depth.width * depth.height else { return 1 }
    var farthest = Double.infinity
    if let region {
      let fromCentre = (worldFromCamera.translation - region.centre).length
      if let radius = region.headRadius, fromCentre > radius {
        return step(atDepth: fromCentre - radius / 2.0.squareRoot(), fx: depth.intrinsics.fx)
      }
      // No depth beyond the region's far side is on the head.
      farthest = fromCentre + region.outer
    }
    // A coarse sample of the depth (every 8th pixel each way) is enough for its median.
    var sample: [Float] = []
    sample.reserveCapacity(depth.metres.count / 64 + 1)
    for y in Swift.stride(from: 0, to: depth.height, by: 8) {
      for x in Swift.stride(from: 0, to: depth.width, by: 8) {
        let d = depth.metres[y * depth.width + x]
        guard d.isFinite, d > 0, Double(d) <= farthest else { continue }
        sample.append(d)
      }
    }
    guard !sample.isEmpty else { return 1 }
    sample.sort()
    return step(atDepth: Double(sample[sample.count / 2]), fx: depth.intrinsics.fx)
  }

  /// The voxel size over a pixel's footprint at `depth` metres (`depth` / `fx`), rounded, 1 to 16.
  func step(atDepth depth: Double, fx: Double) -> Int {
    let ratio = lattice.voxelSize / (depth / fx)
    guard ratio.isFinite else { return 1 }
    return Int(min(16, max(1, ratio)).rounded())
  }
}

/// The voxels one ray passes within the band, in half-voxel steps (voxel units from the lattice's
/// first voxel corner, so a step costs a multiply-add and a floor).
private struct RayMarch {
  let origin: SIMD3<Double>
  let voxelSize: Double
  let truncation: Double
  let side: Double
  let blocksPerSide: Int
  /// Half-voxel steps per band.
  let steps: Int

  init(lattice: VoxelLattice, truncation: Double, origin: SIMD3<Double>) {
    voxelSize = lattice.voxelSize
    self.origin = (origin + lattice.offset) / voxelSize - SIMD3<Double>(lattice.originKey)
    self.truncation = truncation
    side = Double(lattice.side)
    blocksPerSide = lattice.blocksPerSide
    steps = Int((4 * truncation / voxelSize + 1e-9).rounded(.down))
  }

  /// Calls `body` with each voxel's cell and its signed distance (truncation units, −1…1, positive
  /// on the camera's side) for the ray along `unit` whose surface is `surfaceRange` metres away.
  ///
  /// A sample's voxel is its coordinates' floor: tested against the cube first, so only
  /// non-negative coordinates are converted, where truncation is the floor (no libm call).
  @inline(__always)
  func run(along unit: SIMD3<Double>, surfaceRange: Double, _ body: (Int, Float) -> Void) {
    let surface = surfaceRange / voxelSize
    let start = surface - truncation / voxelSize
    let scale = voxelSize / truncation
    var previous = -1
    for n in 0...steps {
      let q = origin + (start + 0.5 * Double(n)) * unit
      // false for NaN too
      guard q.x >= 0, q.y >= 0, q.z >= 0, q.x < side, q.y < side, q.z < side else { continue }
      let x = Int(q.x), y = Int(q.y), z = Int(q.z)
      let cell = (((x >> 3) * blocksPerSide + (y >> 3)) * blocksPerSide + (z >> 3)) << 9 | ((x & 7) << 6) | ((y & 7) << 3) | (z & 7)
      guard cell != previous else { continue }
      previous = cell
      let key = SIMD3<Double>(Double(x), Double(y), Double(z))
      let along = ((key + 0.5 - origin) * unit).sum()
      let signed = (surface - along) * scale
      if signed >= -1 { body(cell, Float(min(1, signed))) }
    }
  }
}

/// One frame's rays, ready to march strip by strip: the depth and colour maps, the camera, the
/// shell depths and the pixel step (``SignedDistanceBand/frameUpdate(_:worldFromCamera:region:pixelStep:jumpLimit:scratch:chunks:stripThreads:)``).
private struct FrameRays: @unchecked Sendable {
  let depth: DepthMap
  let colour: ColorImage
  let region: SignedDistanceVolume.Region?
  let origin: SIMD3<Double>
  let axes: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
  let step: Int
  let jumpLimit: Float
  let nearest: Float, farthest: Float
  let march: RayMarch
  /// The colour pixel of each depth column and row (the maps see the same rays: depth is registered to colour).
  let colourX: [Int], colourY: [Int]

  init(band: SignedDistanceBand, frame: ScanFrame, worldFromCamera: RigidTransform, region: SignedDistanceVolume.Region?, step: Int, jumpLimit: Float) {
    depth = frame.depth
    colour = frame.color
    self.region = region
    self.step = step
    self.jumpLimit = jumpLimit
    colourX = (0..<depth.width).map { [colour, depth] in min(colour.width - 1, Int((Double($0) + 0.5) * Double(colour.width) / Double(depth.width))) }
    colourY = (0..<depth.height).map { [colour, depth] in min(colour.height - 1, Int((Double($0) + 0.5) * Double(colour.height) / Double(depth.height))) }
    axes = worldFromCamera.rotation.columns
    origin = worldFromCamera.translation
    var nearest = -Float.infinity, farthest = Float.infinity
    if let region {
      let offset = origin - region.centre
      (nearest, farthest) = shellDepths(depth, cameraToCentre: (offset * offset).sum().squareRoot(), outer: region.outer)
    }
    (self.nearest, self.farthest) = (nearest, farthest)
    // The march works in voxel units from the lattice's first voxel corner.
    march = RayMarch(lattice: band.lattice, truncation: band.truncation, origin: origin)
  }

  /// Adds the samples of the strip of ``SignedDistanceBand/stripRays`` rays from column `left`
  /// on, top to bottom, to `sums`.
  @inline(__always)
  func march(stripFrom left: Int, into sums: inout FrameSums) {
    let k = depth.intrinsics
    let (c0, c1, c2) = axes
    let right = min(left + SignedDistanceBand.stripRays * step, depth.width - 1)
    // One ray's voxels and signed distances (a ray visits at most `steps + 1`).
    let samples = UnsafeMutablePointer<(cell: Int, distance: Float)>.allocate(capacity: march.steps + 1)
    defer { samples.deallocate() }
    depth.metres.withUnsafeBufferPointer { z in
      colour.bgra.withUnsafeBufferPointer { bgra in
        for y in Swift.stride(from: 1, to: depth.height - 1, by: step) {
          let rowRay = (Double(y) - k.cy) / k.fy * c1 + c2
          let colourRow = colourY[y] * colour.width
          for x in Swift.stride(from: left, to: right, by: step) {
            let i = y * depth.width + x
            let d = z[i]
            guard d > 0, d >= nearest, d <= farthest, d.isFinite else { continue }
            guard abs(z[i - 1] - d) <= jumpLimit, abs(z[i + 1] - d) <= jumpLimit, abs(z[i - depth.width] - d) <= jumpLimit,
              abs(z[i + depth.width] - d) <= jumpLimit
            else { continue }
            // ray: point at optical depth s is origin + s·ray; its metric length per unit depth is |ray|.
            let ray = (Double(x) - k.cx) / k.fx * c0 + rowRay
            let rayLength = (ray * ray).sum().squareRoot()
            let unit = ray / rayLength
            let surfaceRange = Double(d) * rayLength
            if let region {
              let offset = origin + surfaceRange * unit - region.centre
              let r2 = (offset * offset).sum()
              guard r2 >= region.inner * region.inner && r2 <= region.outer * region.outer else { continue }
            }
            let c = 4 * (colourRow + colourX[x])
            let rgb = SIMD3<Float>(Float(bgra[c + 2]), Float(bgra[c + 1]), Float(bgra[c]))
            // The ray's voxels first, each one's table entry prefetched, then the updates: the
            // same updates in the same order, the entries' loads (mostly misses of the first-level
            // cache) overlapped instead of one after another.
            var n = 0
            march.run(along: unit, surfaceRange: surfaceRange) { cell, signed in
              samples[n] = (cell, signed)
              n += 1
              sums.prefetch(cell)
            }
            for j in 0..<n { sums.add(samples[j].cell, distance: samples[j].distance, colour: rgb) }
          }
        }
      }
    }
  }
}

/// One strip's updates (or, flushed after each strip, a frame's) summed per voxel in a small
/// direct-mapped table: neighbouring rays pass the same voxels, so most updates land on an entry
/// already there; an entry pushed out by another voxel is handed over as it is (the volume adds
/// sums, so a voxel handed over twice is the same). ``flush()`` hands over what the table holds,
/// in the order the slots were first taken, and leaves it empty, so a strip's entries depend on
/// that strip alone.
private struct FrameSums {
  /// The table, held so that it lives while its entries are written.
  private let table: FrameSumsTable
  private let entries: UnsafeMutablePointer<FrameSumsTable.Entry>
  private let taken: UnsafeMutablePointer<Int32>
  /// Slots taken since the last flush (listed in `taken`).
  private var takenCount = 0
  private var out = SignedDistanceVolume.FrameUpdate()
  /// The chunk being filled (its arrays uniquely referenced, appended to in place).
  private var current: SignedDistanceVolume.FrameUpdate.Chunk
  private let chunks: FrameUpdateChunks?

  /// Sums in `table` (empty, as every table is between uses, and left so by ``finish()``),
  /// handed over in chunks from `chunks` (or new ones).
  init(table: FrameSumsTable, chunks: FrameUpdateChunks?) {
    self.table = table
    entries = table.entries
    taken = table.taken
    self.chunks = chunks
    current = chunks?.take() ?? SignedDistanceVolume.FrameUpdate.Chunk()
    current.empty()
  }

  @inline(__always)
  private static func slot(_ cell: Int) -> Int {
    Int(truncatingIfNeeded: UInt(bitPattern: cell &* -7_046_029_254_386_353_131) >> UInt(64 - FrameSumsTable.slotsLog2))
  }

  /// Starts bringing `cell`'s entry into the cache for an ``add(_:distance:colour:)`` soon after.
  @inline(__always)
  func prefetch(_ cell: Int) { gs_prefetch_for_write(entries + Self.slot(cell)) }

  @inline(__always)
  mutating func add(_ cell: Int, distance: Float, colour: SIMD3<Float>) {
    let slot = Self.slot(cell)
    let entry = entries + slot
    if entry.pointee.key != cell {
      if entry.pointee.key >= 0 {
        append(entry.pointee)
      } else {
        taken[takenCount] = Int32(truncatingIfNeeded: slot)
        takenCount += 1
      }
      entry.pointee = FrameSumsTable.Entry(key: cell, distance: distance, weight: 1, red: colour.x, green: colour.y, blue: colour.z)
    } else {
      entry.pointee.distance += distance
      entry.pointee.weight += 1
      entry.pointee.red += colour.x
      entry.pointee.green += colour.y
      entry.pointee.blue += colour.z
    }
  }

  /// Hands over every entry the table holds, in the order their slots were first taken, and
  /// empties it.
  mutating func flush() {
    for n in 0..<takenCount {
      let entry = entries + Int(taken[n])
      append(entry.pointee)
      entry.pointee.key = -1
    }
    takenCount = 0
  }

  /// Every voxel's sums, in the order they were handed over, the table left empty (call once, last).
  mutating func finish() -> SignedDistanceVolume.FrameUpdate {
    flush()
    if current.cells.isEmpty {
      chunks?.put(current)
    } else {
      out.chunks.append(current)
    }
    current = .init()
    return out
  }

  /// Appends an entry to the chunk being filled, starting the next chunk when it is full.
  @inline(__always)
  private mutating func append(_ entry: FrameSumsTable.Entry) {
    if current.cells.count == SignedDistanceVolume.FrameUpdate.chunkCapacity {
      out.chunks.append(current)
      current = chunks?.take() ?? SignedDistanceVolume.FrameUpdate.Chunk()
      current.empty()
    }
    current.cells.append(entry.key)
    current.sums.append(SIMD4(entry.distance, entry.red, entry.green, entry.blue))
    current.weights.append(entry.weight)
  }
}

/// The table of a ``FrameSums``: 8192 entries of 32 bytes (256 KiB), small enough to stay in a
/// core's second-level cache while a strip streams past (a 1 MB table lost a third of the
/// march's time to cache misses, docs/performance.md); the voxels a ray shares with the ray one
/// row up lie within a few hundred entries of each other. Empty between uses, so a worker keeps
/// one from frame to frame (the allocation and its first writes cost more than a frame's rays
/// at 1 mm voxels) and hands it to the next strip without clearing all of it.
final class FrameSumsTable: @unchecked Sendable {
  static let slotsLog2 = 13
  fileprivate struct Entry {
    var key: Int
    var distance: Float
    var weight: Float
    var red: Float, green: Float, blue: Float
  }
  // Written only by the one ``FrameSums`` that holds the table at a time.
  fileprivate let entries: UnsafeMutablePointer<Entry>
  /// The slots taken since the last flush, in the order they were taken.
  fileprivate let taken: UnsafeMutablePointer<Int32>

  init() {
    entries = .allocate(capacity: 1 << Self.slotsLog2)
    entries.initialize(repeating: Entry(key: -1, distance: 0, weight: 0, red: 0, green: 0, blue: 0), count: 1 << Self.slotsLog2)
    taken = .allocate(capacity: 1 << Self.slotsLog2)
  }

  deinit {
    entries.deallocate()
    taken.deallocate()
  }

  /// Whether no slot holds an entry, as between uses.
  var isEmpty: Bool { (0..<(1 << Self.slotsLog2)).allSatisfy { entries[$0].key < 0 } }
}

/// The tables of the frame updates' sums, lent from one frame's update (or strip) to the next;
/// made with a limit of one a running thread.
typealias FrameUpdateScratch = SparePool<FrameSumsTable>

extension SignedDistanceVolume.FrameUpdate.Chunk {
  /// Empties the chunk, keeping (or first reserving) room for a whole chunk.
  fileprivate mutating func empty() {
    cells.removeAll(keepingCapacity: true)
    sums.removeAll(keepingCapacity: true)
    weights.removeAll(keepingCapacity: true)
    let capacity = SignedDistanceVolume.FrameUpdate.chunkCapacity
    cells.reserveCapacity(capacity)
    sums.reserveCapacity(capacity)
    weights.reserveCapacity(capacity)
  }
}

/// The chunks of integrated frame updates, handed back for the next frames' updates
/// (``SignedDistanceBand/frameUpdate(_:worldFromCamera:region:pixelStep:jumpLimit:scratch:chunks:stripThreads:)``).
/// Made with no limit (`FrameUpdateChunks(limit: .max)`), it keeps every chunk handed back, so
/// it never holds more than the frames' updates held at once.
typealias FrameUpdateChunks = SparePool<SignedDistanceVolume.FrameUpdate.Chunk>

extension SparePool where Value == SignedDistanceVolume.FrameUpdate.Chunk {
  /// Hands back every chunk of an integrated update.
  func recycle(_ update: SignedDistanceVolume.FrameUpdate) {
    for chunk in update.chunks { put(chunk) }
  }
}
