import Registration
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
  let (nearest, farthest) = shellDepths(depth, cameraToCentre: ((t - centre) * (t - centre)).sum().squareRoot(), outer: outer)
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
          guard d >= nearest, d <= farthest else { continue }  // also false for NaN
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

/// The depths (optical-axis distance, metres) a pixel of `depth` (rows and columns 1…size−2) can
/// have and still land within `outer` of a centre `cameraToCentre` metres from the camera.
///
/// A depth d lands d·|ray| from the camera with |ray| ≥ 1 (the ray's optical-axis component is
/// 1), so only depths up to the shell's far side, and from its near side over the longest ray,
/// can: a test on d alone skips the background before any arithmetic. Loosened by a part in 10⁵
/// (far more than rounding) so it never drops a point the exact test keeps.
func shellDepths(_ depth: DepthMap, cameraToCentre: Double, outer: Double) -> (nearest: Float, farthest: Float) {
  let k = depth.intrinsics
  let slopeX = ((1 - k.cx) / k.fx, (Double(depth.width - 2) - k.cx) / k.fx)
  let slopeY = ((1 - k.cy) / k.fy, (Double(depth.height - 2) - k.cy) / k.fy)
  let longestRay = (max(slopeX.0 * slopeX.0, slopeX.1 * slopeX.1) + max(slopeY.0 * slopeY.0, slopeY.1 * slopeY.1) + 1).squareRoot()
  guard longestRay.isFinite, cameraToCentre.isFinite, outer.isFinite else { return (-.infinity, .infinity) }
  let nearest = cameraToCentre > outer ? Float((cameraToCentre - outer) / longestRay * (1 - 1e-5)) : -.infinity
  return (nearest, Float((cameraToCentre + outer) * (1 + 1e-5)))
}
