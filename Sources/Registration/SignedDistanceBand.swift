import PointCloud
import ScanIO

/// Computes one frame's updates of a ``SignedDistanceVolume``: its lattice and band half-width.
struct SignedDistanceBand: Sendable {
  let lattice: VoxelLattice
  /// Half-width of the band around each measured surface point, metres.
  let truncation: Double

  /// The updates one frame makes: pure, safe to call from several threads at once.
  ///
  /// A projective update (KinectFusion, Newcombe et al. 2011; Open3D's scalable volume): every
  /// voxel of the quarter blocks (4×4×4 voxels) the frame's band can reach
  /// (``reachedQuarters(_:intrinsics:worldFromCamera:)``) is projected into the depth map, the depth
  /// at its projection is interpolated bilinearly from the four pixels around it, and the voxel
  /// takes the distance along its ray from its centre to that surface (positive on the camera's
  /// side) when that lies within ± ``truncation``. Each voxel is updated at most once a frame,
  /// with the colour of its nearest pixel. Pixels count only with a depth inside
  /// `region` and no depth jump over `jumpLimit` metres to a 4-neighbour (a flying pixel between
  /// foreground and background); a voxel whose four pixels are not all such is not updated.
  /// `worldFromCamera` in metres.
  func frameUpdate(
    _ frame: ScanFrame, worldFromCamera: RigidTransform, region: SignedDistanceVolume.Region?, jumpLimit: Float = 0.006
  ) -> SignedDistanceVolume.FrameUpdate {
    let depth = frame.depth, colour = frame.color
    let k = depth.intrinsics
    guard depth.width >= 3, depth.height >= 3, depth.metres.count == depth.width * depth.height,
      colour.width > 0, colour.height > 0, colour.bgra.count >= 4 * colour.width * colour.height,
      k.fx.isFinite, k.fy.isFinite, k.fx > 0, k.fy > 0, k.cx.isFinite, k.cy.isFinite
    else { return SignedDistanceVolume.FrameUpdate() }
    let surface = surfaceDepths(depth, worldFromCamera: worldFromCamera, region: region, jumpLimit: jumpLimit)
    let quarters = reachedQuarters(surface, intrinsics: k, worldFromCamera: worldFromCamera)
    var out = SignedDistanceVolume.FrameUpdate()
    out.cells.reserveCapacity(1 << 16)
    out.sums.reserveCapacity(1 << 16)
    // The colour pixel of each depth column and the first of each row (the maps see the same
    // rays, contract §1).
    let colourX = (0..<depth.width).map { min(colour.width - 1, Int((Double($0) + 0.5) * Double(colour.width) / Double(depth.width))) }
    let colourY = (0..<depth.height).map {
      min(colour.height - 1, Int((Double($0) + 0.5) * Double(colour.height) / Double(depth.height))) * colour.width
    }
    // Camera coordinates (metres) of the first voxel's centre and of one voxel step along each
    // world axis: cameraFromWorld = Rᵀ(· − t).
    let (c0, c1, c2) = worldFromCamera.rotation.columns
    let toCamera = { (w: SIMD3<Double>) in SIMD3((c0 * w).sum(), (c1 * w).sum(), (c2 * w).sum()) }
    let size = lattice.voxelSize
    let first = toCamera((SIMD3<Double>(lattice.originKey) + 0.5) * size - worldFromCamera.translation)
    let stepX = toCamera(SIMD3(size, 0, 0)), stepY = toCamera(SIMD3(0, size, 0)), stepZ = toCamera(SIMD3(0, 0, size))
    let (fx, fy, cx, cy) = (Float(k.fx), Float(k.fy), Float(k.cx), Float(k.cy))
    // Bilinear interpolation reads pixel u₀ + 1: the projection must fall below width − 1.
    let uLimit = Float(depth.width - 1), vLimit = Float(depth.height - 1)
    let width = depth.width
    let inverseTruncation = Float(1 / truncation)
    // Pixels that count differ from their 4-neighbours by at most jumpLimit, so the depth
    // interpolated between four of them is within 2·jumpLimit of the first one's.
    let reach = Float(truncation) + 2 * jumpLimit
    let (ex, ey, ez) = (SIMD3<Float>(stepX), SIMD3<Float>(stepY), SIMD3<Float>(stepZ))
    let n = lattice.blocksPerSide
    surface.withUnsafeBufferPointer { z in
      colour.bgra.withUnsafeBufferPointer { bgra in
        colourX.withUnsafeBufferPointer { colourColumns in
          colourY.withUnsafeBufferPointer { colourRows in
            for quarter in quarters {
              let block = quarter >> 3
              let bx = block / (n * n), by = (block / n) % n, bz = block % n
              // The quarter's first voxel within its block.
              let qx = (quarter >> 2 & 1) * 4, qy = (quarter >> 1 & 1) * 4, qz = (quarter & 1) * 4
              let corner = SIMD3<Float>(
                first + Double(8 * bx + qx) * stepX + Double(8 * by + qy) * stepY + Double(8 * bz + qz) * stepZ)
              for vx in 0..<4 {
                let px = corner + Float(vx) * ex
                for vy in 0..<4 {
                  let py = px + Float(vy) * ey
                  for vz in 0..<4 {
                    let p = py + Float(vz) * ez
                    guard p.z > 0 else { continue }
                    let inverseZ = 1 / p.z
                    let u = fx * p.x * inverseZ + cx, v = fy * p.y * inverseZ + cy
                    // false for NaN too
                    guard u >= 0, v >= 0, u < uLimit, v < vLimit else { continue }
                    let u0 = Int(u), v0 = Int(v)
                    let i = v0 * width + u0
                    // |distance| ≥ |d − z| for the depth d anywhere between the four pixels: a
                    // voxel farther than the band (and the pixels' spread) from the first in
                    // depth is out of it.
                    let d00 = z[i]
                    guard d00 > 0, abs(d00 - p.z) <= reach else { continue }
                    let d10 = z[i + 1], d01 = z[i + width], d11 = z[i + width + 1]
                    guard d10 > 0, d01 > 0, d11 > 0 else { continue }
                    let a = u - Float(u0), b = v - Float(v0)
                    let upper = d00 + a * (d10 - d00), lower = d01 + a * (d11 - d01)
                    let d = upper + b * (lower - upper)
                    // Along the voxel's ray: the surface at range d·|p|/z, the voxel at |p|.
                    let signed = (d - p.z) * (p * p).sum().squareRoot() * inverseZ * inverseTruncation
                    guard signed >= -1, signed <= 1 else { continue }
                    let c = 4 * (colourRows[Int(v + 0.5)] + colourColumns[Int(u + 0.5)])
                    out.cells.append(block << 9 | (qx + vx) << 6 | (qy + vy) << 3 | (qz + vz))
                    out.sums.append(SIMD4(signed, Float(bgra[c + 2]), Float(bgra[c + 1]), Float(bgra[c])))
                  }
                }
              }
            }
          }
        }
      }
    }
    return out
  }

  /// The frame's depth where a pixel counts (metres), 0 elsewhere: the border rows and columns,
  /// depths not positive or not finite, depths more than `jumpLimit` from a 4-neighbour's, and
  /// depths whose point falls outside `region` are 0.
  func surfaceDepths(
    _ depth: DepthMap, worldFromCamera: RigidTransform, region: SignedDistanceVolume.Region?, jumpLimit: Float
  ) -> [Float] {
    let k = depth.intrinsics, width = depth.width
    var kept = [Float](repeating: 0, count: width * depth.height)
    let (c0, c1, c2) = worldFromCamera.rotation.columns
    let origin = worldFromCamera.translation
    var nearest = -Float.infinity, farthest = Float.infinity
    if let region {
      let offset = origin - region.centre
      (nearest, farthest) = shellDepths(depth, cameraToCentre: (offset * offset).sum().squareRoot(), outer: region.outer)
    }
    let slopeX = (0..<width).map { (Double($0) - k.cx) / k.fx }
    depth.metres.withUnsafeBufferPointer { z in
      kept.withUnsafeMutableBufferPointer { kept in
        for y in 1..<(depth.height - 1) {
          let row = (Double(y) - k.cy) / k.fy * c1 + c2
          for x in 1..<(width - 1) {
            let i = y * width + x
            let d = z[i]
            guard d > 0, d >= nearest, d <= farthest, d.isFinite else { continue }
            guard abs(z[i - 1] - d) <= jumpLimit, abs(z[i + 1] - d) <= jumpLimit, abs(z[i - width] - d) <= jumpLimit,
              abs(z[i + width] - d) <= jumpLimit
            else { continue }
            if let region {
              let offset = origin + Double(d) * (slopeX[x] * c0 + row) - region.centre
              let r2 = (offset * offset).sum()
              guard r2 >= region.inner * region.inner && r2 <= region.outer * region.outer else { continue }
            }
            kept[i] = d
          }
        }
      }
    }
    return kept
  }

  /// Pixels a side of the tiles whose depth range bounds the blocks a frame can update.
  static let tilePixels = 8

  /// The quarter blocks (4×4×4 voxels; numbered block × 8 + (x, y, z) halves as bits 2, 1, 0;
  /// ascending) holding every voxel the frame's band can reach: for each tile of
  /// ``tilePixels`` pixels, the frustum piece over the tile (and the pixel past it, which the
  /// interpolation reads) from its least depth less the truncation to its greatest plus the
  /// truncation, cut into slabs of depth about the tile's width, each bounded by the box around
  /// its eight corners. A voxel updated from a tile projects inside it at a depth within the
  /// truncation of the tile's depths (along its ray the band is ± truncation, along the optical
  /// axis at most that), so its centre lies in one of the boxes.
  func reachedQuarters(_ surface: [Float], intrinsics k: CameraIntrinsics, worldFromCamera: RigidTransform) -> [Int] {
    let width = k.width, height = surface.count / max(1, k.width)
    let n = lattice.blocksPerSide
    var marked = [UInt64](repeating: 0, count: (8 * n * n * n + 63) / 64)
    let tile = Self.tilePixels
    let lowest = SIMD3<Double>(lattice.originKey) * lattice.voxelSize
    let top = Double(lattice.side - 1)
    let rotation = worldFromCamera.rotation, origin = worldFromCamera.translation
    surface.withUnsafeBufferPointer { z in
      for y0 in Swift.stride(from: 0, to: height - 1, by: tile) {
        for x0 in Swift.stride(from: 0, to: width - 1, by: tile) {
          let x1 = min(x0 + tile, width - 1), y1 = min(y0 + tile, height - 1)
          var least = Float.infinity, greatest: Float = 0
          for y in y0...y1 {
            for x in x0...x1 {
              let d = z[y * width + x]
              if d > 0 {
                least = min(least, d)
                greatest = max(greatest, d)
              }
            }
          }
          guard greatest > 0 else { continue }
          let near = max(0, Double(least) - truncation), far = Double(greatest) + truncation
          // The world directions (per metre of depth) of the tile's four corner rays: a point of
          // the piece at depth z is the camera's origin plus z times a mix of them.
          var lowDirection = SIMD3<Double>(repeating: .infinity), highDirection = SIMD3<Double>(repeating: -.infinity)
          for (x, y) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)] {
            let direction = rotation * SIMD3((Double(x) - k.cx) / k.fx, (Double(y) - k.cy) / k.fy, 1)
            lowDirection = pointwiseMin(lowDirection, direction)
            highDirection = pointwiseMax(highDirection, direction)
          }
          // In slabs of depth about the tile's width: the box around a thin slab hugs the band.
          let slab = max(lattice.voxelSize, Double(tile) * far / max(k.fx, k.fy))
          let slabs = min(4096, Int(((far - near) / slab).rounded(.up)))
          guard slabs >= 1 else { continue }
          for s in 0..<slabs {
            let za = near + Double(s) * slab, zb = min(far, za + slab)
            let low = origin + pointwiseMin(za * lowDirection, zb * lowDirection)
            let high = origin + pointwiseMax(za * highDirection, zb * highDirection)
            guard (low - high).x.isFinite, (low - high).y.isFinite, (low - high).z.isFinite else { continue }
            // Voxels whose centres ((i + ½)·size from the lattice's corner) lie in the box.
            let first = ((low - lowest) / lattice.voxelSize - 0.5).rounded(.up)
            let last = ((high - lowest) / lattice.voxelSize - 0.5).rounded(.down)
            let from = pointwiseMax(first, .zero), to = pointwiseMin(last, SIMD3(repeating: top))
            guard from.x <= to.x, from.y <= to.y, from.z <= to.z else { continue }
            let q0 = SIMD3<Int>(Int(from.x), Int(from.y), Int(from.z)) &>> 2
            let q1 = SIMD3<Int>(Int(to.x), Int(to.y), Int(to.z)) &>> 2
            for qx in q0.x...q1.x {
              for qy in q0.y...q1.y {
                for qz in q0.z...q1.z {
                  let block = ((qx >> 1) * n + (qy >> 1)) * n + (qz >> 1)
                  let quarter = block << 3 | (qx & 1) << 2 | (qy & 1) << 1 | (qz & 1)
                  marked[quarter >> 6] |= 1 << UInt64(quarter & 63)
                }
              }
            }
          }
        }
      }
    }
    var quarters: [Int] = []
    for (word, bits) in marked.enumerated() where bits != 0 {
      var rest = bits
      while rest != 0 {
        quarters.append(word << 6 | rest.trailingZeroBitCount)
        rest &= rest - 1
      }
    }
    return quarters
  }
}
