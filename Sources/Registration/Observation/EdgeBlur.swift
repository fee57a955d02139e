import ArucoBridge

/// How blurred a frame is where it matters: across the outlines of its detected markers.
///
/// Each marker edge is sampled at a quarter, half and three quarters of its length; across
/// the edge, a grey profile ±3 px long gives the step's contrast `C` and steepest slope `g`.
/// A step blurred by a Gaussian of σ pixels has `g = C / (σ √(2π))`, so `σ = C / (g √(2π))`.
/// Motion blur smears only the edges across the motion, so the frame's value is the
/// 75th percentile over its samples. Slopes come from pixel samples, so a step reads up to
/// a fifth wider than its σ (depending on where it falls between pixels), and steps wider
/// than the ±3 px window read narrower: a blur index, not an exact σ. The simulator's sharp
/// frames read 0.7–0.8 px, frames with 7 px of motion blur about 2.
/// - Returns: the blur σ in pixels, or `nil` without a usable edge (contrast under 24 grey levels).
public func edgeBlur(of markers: [DetectedMarker], grey: [UInt8], width: Int, height: Int) -> Double? {
  let image = GreyImage(pixels: grey, width: width, height: height)
  let step = 0.5
  let offsets = stride(from: -3.0, through: 3.0, by: step).map { $0 }
  var sigmas: [Double] = []
  // Four corners within a million pixels of the image: anything else is no marker of this image.
  for marker in markers where marker.corners.count == 4 && marker.corners.allSatisfy({ $0.x.magnitude < 1e6 && $0.y.magnitude < 1e6 }) {
    let c = marker.corners
    for e in 0..<4 {
      let a = c[e], b = c[(e + 1) % 4]
      let along = b - a
      let length = (along * along).sum().squareRoot()
      guard length > 8 else { continue }
      let normal = SIMD2(-along.y, along.x) / length
      for t in [0.25, 0.5, 0.75] {
        let centre = a + t * along
        let profile = offsets.compactMap { image.value(at: centre + $0 * normal) }
        guard profile.count == offsets.count, let brightest = profile.max(), let darkest = profile.min() else { continue }
        let contrast = brightest - darkest
        guard contrast >= 24 else { continue }
        var slope = 0.0
        for i in 1..<(profile.count - 1) { slope = max(slope, abs(profile[i + 1] - profile[i - 1]) / (2 * step)) }
        sigmas.append(contrast / (slope * (2 * Double.pi).squareRoot()))
      }
    }
  }
  guard !sigmas.isEmpty else { return nil }
  sigmas.sort()
  return sigmas[min(sigmas.count - 1, (3 * sigmas.count) / 4)]
}
