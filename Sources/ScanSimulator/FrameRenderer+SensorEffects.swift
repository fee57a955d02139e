import _HeadScanSupport
import Foundation
import PointCloud

extension FrameRenderer {
  /// The depth effects added to the original sensor model, in order: a per-frame offset,
  /// a spatially correlated field, silhouette loss and random round holes. Each is off
  /// when its ``SensorModel`` parameter is 0 and then draws nothing from `random`.
  /// - Parameter surfaceDepth: each pixel's true depth (infinity where nothing is seen);
  ///   empty when ``SensorModel/silhouetteLoss`` is 0.
  func applyDepthEffects(to depth: inout [Float], surfaceDepth: [Double], random: inout SeededGenerator) {
    let width = intrinsics.width, height = intrinsics.height
    if sensor.frameDepthOffset > 0 {
      let offset = sensor.frameDepthOffset * random.gaussian()
      for i in depth.indices where depth[i].isFinite { depth[i] = Float(Double(depth[i]) + offset) }
    }
    if sensor.correlatedNoise > 0 {
      let field = Self.smoothField(width: width, height: height, correlationLength: sensor.correlationLength, random: &random)
      for i in depth.indices where depth[i].isFinite { depth[i] = Float(Double(depth[i]) + sensor.correlatedNoise * field[i]) }
    }
    if sensor.silhouetteLoss > 0, surfaceDepth.count == depth.count {
      let edges = Self.edgePixels(surfaceDepth, width: width, height: height, jump: sensor.edgeJump)
      for i in edges where depth[i].isFinite && random.uniform() < sensor.silhouetteLoss { depth[i] = .nan }
    }
    if sensor.holesPerFrame > 0 {
      let count = random.poisson(mean: sensor.holesPerFrame)
      for _ in 0..<count {
        // Centre on a pixel with depth (a hole in the void shows nothing).
        var centre: Int?
        for _ in 0..<200 {
          let i = random.below(width * height)
          if depth[i].isFinite {
            centre = i
            break
          }
        }
        let span = sensor.holeDiameter.upperBound - sensor.holeDiameter.lowerBound
        let radius = (sensor.holeDiameter.lowerBound + span * random.uniform()) / 2
        // The centre anywhere inside that pixel; the hole takes the pixels whose centres it covers.
        let jitter = SIMD2(random.uniform() - 0.5, random.uniform() - 0.5)
        guard let c = centre else { continue }
        let cx = Double(c % width) + jitter.x, cy = Double(c / width) + jitter.y
        let x0 = max(0, Int((cx - radius).rounded(.up))), x1 = min(width - 1, Int((cx + radius).rounded(.down)))
        let y0 = max(0, Int((cy - radius).rounded(.up))), y1 = min(height - 1, Int((cy + radius).rounded(.down)))
        guard x0 <= x1, y0 <= y1 else { continue }
        for y in y0...y1 {
          for x in x0...x1 {
            let dx = Double(x) - cx, dy = Double(y) - cy
            if dx * dx + dy * dy <= radius * radius { depth[y * width + x] = .nan }
          }
        }
      }
    }
  }

  /// Pixels that see a surface whose 4-neighbour (inside the image) sees nothing or a
  /// surface more than `jump` metres nearer or farther.
  static func edgePixels(_ surfaceDepth: [Double], width: Int, height: Int, jump: Double) -> [Int] {
    var edges: [Int] = []
    for y in 0..<height {
      for x in 0..<width {
        let i = y * width + x
        let z = surfaceDepth[i]
        guard z.isFinite else { continue }
        let neighbours = [x > 0 ? i - 1 : i, x < width - 1 ? i + 1 : i, y > 0 ? i - width : i, y < height - 1 ? i + width : i]
        if neighbours.contains(where: { !(abs(surfaceDepth[$0] - z) <= jump) }) { edges.append(i) }
      }
    }
    return edges
  }

  /// A zero-mean random field of unit standard deviation over the image whose
  /// autocorrelation falls to 1/e at `correlationLength` pixels: white noise smoothed by
  /// a Gaussian of σ = length / 2 (three box passes an axis), rescaled to SD 1.
  static func smoothField(width: Int, height: Int, correlationLength: Double, random: inout SeededGenerator) -> [Double] {
    var field = (0..<(width * height)).map { _ in random.gaussian() }
    let sigma = max(0.5, correlationLength / 2)
    // Three boxes of width w have variance 3(w² − 1)/12 = σ²; w odd.
    var box = Int((4 * sigma * sigma + 1).squareRoot().rounded())
    if box % 2 == 0 { box += 1 }
    let reach = box / 2
    func pass(count: Int, lines: Int, index: (Int, Int) -> Int) {
      var line = [Double](repeating: 0, count: count)
      for l in 0..<lines {
        for k in 0..<count { line[k] = field[index(l, k)] }
        // Running sum with the ends clamped.
        var sum = 0.0
        for k in -reach...reach { sum += line[min(count - 1, max(0, k))] }
        for k in 0..<count {
          field[index(l, k)] = sum / Double(box)
          sum += line[min(count - 1, k + reach + 1)] - line[max(0, k - reach)]
        }
      }
    }
    for _ in 0..<3 {
      pass(count: width, lines: height) { $0 * width + $1 }
      pass(count: height, lines: width) { $1 * width + $0 }
    }
    let mean = field.reduce(0, +) / Double(field.count)
    let sd = (field.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(field.count)).squareRoot()
    return field.map { sd > 0 ? ($0 - mean) / sd : 0 }
  }

  /// A linear motion blur: each pixel the mean of the image along a segment `length`
  /// pixels long through it at `angle` (radians from the x axis), sampled every pixel or
  /// less with bilinear interpolation, clamped at the borders.
  static func directionalBlur(_ image: [Float], width: Int, height: Int, length: Double, angle: Double) -> [Float] {
    let samples = max(2, Int(length.rounded(.up)) + 1)
    let offsets = (0..<samples).map { k -> SIMD2<Double> in
      let t = (Double(k) / Double(samples - 1) - 0.5) * length
      return SIMD2(t * cos(angle), t * sin(angle))
    }
    var out = [Float](repeating: 0, count: image.count)
    let maxX = Double(width - 1), maxY = Double(height - 1)
    for y in 0..<height {
      for x in 0..<width {
        var sum = SIMD3<Float>(repeating: 0)
        for o in offsets {
          let sx = min(maxX, max(0, Double(x) + o.x)), sy = min(maxY, max(0, Double(y) + o.y))
          let x0 = Int(sx), y0 = Int(sy), x1 = min(width - 1, x0 + 1), y1 = min(height - 1, y0 + 1)
          let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
          func at(_ xx: Int, _ yy: Int) -> SIMD3<Float> {
            let j = 3 * (yy * width + xx)
            return SIMD3(image[j], image[j + 1], image[j + 2])
          }
          let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx, bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
          sum += top * (1 - fy) + bottom * fy
        }
        let mean = sum / Float(samples)
        let j = 3 * (y * width + x)
        out[j] = mean.x
        out[j + 1] = mean.y
        out[j + 2] = mean.z
      }
    }
    return out
  }
}

extension SeededGenerator {
  /// A Poisson count of mean `mean` (Knuth's product of uniforms; for small means).
  mutating func poisson(mean: Double) -> Int {
    let limit = exp(-min(mean, 500))
    var product = uniform(), count = 0
    while product > limit {
      product *= uniform()
      count += 1
    }
    return count
  }
}
