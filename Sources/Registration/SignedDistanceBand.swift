import PointCloud
import ScanIO

/// Computes one frame's updates of a ``SignedDistanceVolume``: its lattice and band half-width.
struct SignedDistanceBand: Sendable {
  let lattice: VoxelLattice
  /// Half-width of the band around each measured surface point, metres.
  let truncation: Double

  /// The updates one frame makes: pure, safe to call from several threads at once.
  ///
  /// Every `pixelStep`-th depth pixel in x and y with a depth inside `region` (and no depth jump
  /// over `jumpLimit` metres to a 4-neighbour: a flying pixel between foreground and background)
  /// marches along its ray through the band and updates each voxel it passes once.
  /// `worldFromCamera` in metres.
  func frameUpdate(
    _ frame: ScanFrame, worldFromCamera: RigidTransform, region: SignedDistanceVolume.Region?, pixelStep: Int = 1, jumpLimit: Float = 0.006
  ) -> SignedDistanceVolume.FrameUpdate {
    let depth = frame.depth, colour = frame.color
    let k = depth.intrinsics
    var update = SignedDistanceVolume.FrameUpdate()
    guard depth.width >= 3, depth.height >= 3, depth.metres.count == depth.width * depth.height,
      colour.width > 0, colour.height > 0, colour.bgra.count >= 4 * colour.width * colour.height
    else { return update }
    // The colour pixel of each depth column and row (the maps see the same rays, contract §1).
    let colourX = (0..<depth.width).map { min(colour.width - 1, Int((Double($0) + 0.5) * Double(colour.width) / Double(depth.width))) }
    let colourY = (0..<depth.height).map { min(colour.height - 1, Int((Double($0) + 0.5) * Double(colour.height) / Double(depth.height))) }
    let (c0, c1, c2) = worldFromCamera.rotation.columns
    let origin = worldFromCamera.translation
    let step = max(1, pixelStep)
    update.cells.reserveCapacity(depth.width * depth.height / (step * step))
    depth.metres.withUnsafeBufferPointer { z in
      for y in Swift.stride(from: 1, to: depth.height - 1, by: step) {
        let rowRay = (Double(y) - k.cy) / k.fy * c1 + c2
        for x in Swift.stride(from: 1, to: depth.width - 1, by: step) {
          let i = y * depth.width + x
          let d = z[i]
          guard d.isFinite, d > 0 else { continue }
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
          let c = 4 * (colourY[y] * colour.width + colourX[x])
          let rgb = SIMD3<UInt8>(colour.bgra[c + 2], colour.bgra[c + 1], colour.bgra[c])
          march(from: origin, along: unit, surfaceRange: surfaceRange, colour: rgb, into: &update)
        }
      }
    }
    return update
  }

  /// Updates each voxel the ray `origin + s·unit` passes for s within ± ``truncation`` of
  /// `surfaceRange` (metres along the ray), once each, in half-voxel steps.
  private func march(
    from origin: SIMD3<Double>, along unit: SIMD3<Double>, surfaceRange: Double, colour: SIMD3<UInt8>,
    into update: inout SignedDistanceVolume.FrameUpdate
  ) {
    var previous = -2
    var s = surfaceRange - truncation
    while s <= surfaceRange + truncation {
      let cell = lattice.cell(of: origin + s * unit)
      if cell >= 0 && cell != previous {
        previous = cell
        let along = ((lattice.centre(ofCell: cell) - origin) * unit).sum()
        let signed = (surfaceRange - along) / truncation
        if signed >= -1 {
          update.cells.append(cell)
          update.distances.append(Float(min(1, signed)))
          update.colours.append(colour)
        }
      }
      s += 0.5 * lattice.voxelSize
    }
  }
}
