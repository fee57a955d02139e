import PointCloud
import ScanIO

/// World points (metres) and colours (r, g, b) of one frame's depth inside the shell `inner…outer` around `centre`,
/// skipping pixels at depth discontinuities (flying pixels).
///
/// A pixel (x, y) with depth d lands at `d · (a_x · R₀ + b_y · R₁ + R₂) + t`, with the camera
/// ray's slopes `a_x = (x − cx)/fx`, `b_y = (y − cy)/fy` and R's columns, so the slopes and the
/// colour pixel of every column and row are worked out once per frame.
func headPoints(
  _ frame: ScanFrame, worldFromCamera: RigidTransform, centre: SIMD3<Double>, inner: Double, outer: Double
) -> (positions: [SIMD3<Double>], colours: [SIMD3<UInt8>]) {
  let depth = frame.depth, colour = frame.color
  // Every pixel used has four neighbours; the colour image is indexed by scaling.
  guard depth.width >= 3, depth.height >= 3, colour.width >= 1, colour.height >= 1,
    depth.metres.count >= depth.width * depth.height, colour.bgra.count >= 4 * colour.width * colour.height
  else { return ([], []) }
  let k = depth.intrinsics
  let (c0, c1, c2) = worldFromCamera.rotation.columns
  let t = worldFromCamera.translation
  let slopeX = (0..<depth.width).map { (Double($0) - k.cx) / k.fx }
  let colourX = (0..<depth.width).map { min(colour.width - 1, Int((Double($0) + 0.5) * Double(colour.width) / Double(depth.width))) }
  let innerSquared = inner * inner, outerSquared = outer * outer
  var positions: [SIMD3<Double>] = [], colours: [SIMD3<UInt8>] = []
  positions.reserveCapacity(depth.width * depth.height / 4)
  colours.reserveCapacity(depth.width * depth.height / 4)
  depth.metres.withUnsafeBufferPointer { z in
    colour.bgra.withUnsafeBufferPointer { bgra in
      for y in 1..<(depth.height - 1) {
        let row = (Double(y) - k.cy) / k.fy * c1 + c2
        let colourRow = min(colour.height - 1, Int((Double(y) + 0.5) * Double(colour.height) / Double(depth.height))) * colour.width
        for x in 1..<(depth.width - 1) {
          let i = y * depth.width + x
          let d = z[i]
          guard d.isFinite else { continue }
          // Flying pixels: every 4-neighbour must have depth within 6 mm (a NaN fails the test).
          guard abs(z[i - 1] - d) <= 0.006, abs(z[i + 1] - d) <= 0.006, abs(z[i - depth.width] - d) <= 0.006,
            abs(z[i + depth.width] - d) <= 0.006
          else { continue }
          let p = Double(d) * (slopeX[x] * c0 + row) + t
          let offset = p - centre
          let r2 = (offset * offset).sum()
          guard r2 >= innerSquared && r2 <= outerSquared else { continue }
          let c = 4 * (colourRow + colourX[x])
          positions.append(p)
          colours.append(SIMD3(bgra[c + 2], bgra[c + 1], bgra[c]))
        }
      }
    }
  }
  return (positions, colours)
}
