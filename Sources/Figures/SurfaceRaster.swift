/// A triangle mesh rasterised orthographically into a grid of cells seen from one view: per cell
/// the nearest surface's depth, its normal interpolated from the vertex normals (view axes: page
/// right, page up, toward the viewer), its height in the head frame and whether it is filled
/// (bridged, not measured). Shading from interpolated normals has no depth steps, so a smooth
/// vault shows no bands or rings.
struct SurfaceRaster {
  let width: Int, height: Int
  private(set) var depth: [Double]
  private(set) var normal: [SIMD3<Double>]
  private(set) var headHeight: [Double]
  private(set) var filled: [Bool]

  init(width: Int, height: Int) {
    (self.width, self.height) = (width, height)
    depth = Array(repeating: -.infinity, count: width * height)
    normal = Array(repeating: .zero, count: width * height)
    headHeight = Array(repeating: 0, count: width * height)
    filled = Array(repeating: false, count: width * height)
  }

  /// One vertex as the raster takes it: grid position (column, row, depth toward the viewer),
  /// normal in view axes, head-frame height (mm), filled flag.
  struct Vertex {
    var grid: SIMD3<Double>
    var normal: SIMD3<Double>
    var headHeight: Double
    var filled: Bool
  }

  /// Covers the cells whose centres lie in the triangle where it is nearer than what is there.
  mutating func fill(_ a: Vertex, _ b: Vertex, _ c: Vertex) {
    let (p, q, r) = (a.grid, b.grid, c.grid)
    let area = (q.x - p.x) * (r.y - p.y) - (r.x - p.x) * (q.y - p.y)
    guard abs(area) > 1e-12 else { return }
    let c0 = max(0, Int((min(p.x, q.x, r.x) - 0.5).rounded(.up))), c1 = min(width - 1, Int((max(p.x, q.x, r.x) - 0.5).rounded(.down)))
    let r0 = max(0, Int((min(p.y, q.y, r.y) - 0.5).rounded(.up))), r1 = min(height - 1, Int((max(p.y, q.y, r.y) - 0.5).rounded(.down)))
    guard c0 <= c1, r0 <= r1 else { return }
    for row in r0...r1 {
      for column in c0...c1 {
        let x = Double(column) + 0.5, y = Double(row) + 0.5
        let wa = ((q.x - x) * (r.y - y) - (r.x - x) * (q.y - y)) / area
        let wb = ((r.x - x) * (p.y - y) - (p.x - x) * (r.y - y)) / area
        let wc = 1 - wa - wb
        guard wa >= -1e-9, wb >= -1e-9, wc >= -1e-9 else { continue }
        let z = wa * p.z + wb * q.z + wc * r.z
        let i = row * width + column
        guard z > depth[i] else { continue }
        depth[i] = z
        normal[i] = wa * a.normal + wb * b.normal + wc * c.normal
        headHeight[i] = wa * a.headHeight + wb * b.headHeight + wc * c.headHeight
        filled[i] = (wa * (a.filled ? 1 : 0) + wb * (b.filled ? 1 : 0) + wc * (c.filled ? 1 : 0)) >= 0.5
      }
    }
  }

  static func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }

  /// Whether a cell holds surface.
  func covered(_ i: Int) -> Bool { depth[i].isFinite }

  /// Colours of the cells as BGR bytes, rows top to bottom: skin-toned measured surface and
  /// grey-blue filled surface, lit by a key light from the upper left front and a weaker fill
  /// from the right, cells within `levelHalfWidth` mm of `level` in red, empty cells white;
  /// then averaged over `downsample × downsample` blocks (anti-aliased edges).
  func bgrPixels(level: Double?, levelHalfWidth: Double, downsample: Int) -> (bytes: [UInt8], width: Int, height: Int) {
    let key = Self.unit(SIMD3(-0.45, 0.5, 0.74))
    let fillLight = Self.unit(SIMD3(0.6, -0.1, 0.79))
    var rgb = [SIMD3<Double>](repeating: SIMD3(255, 255, 255), count: width * height)
    for i in 0..<(width * height) where covered(i) {
      var n = normal[i]
      let length = (n * n).sum().squareRoot()
      n = length > 1e-12 ? n / length : SIMD3(0, 0, 1)
      let keyTerm: Double = max(0, (n * key).sum())
      let fillTerm: Double = max(0, (n * fillLight).sum())
      let lit: Double = 0.22 + 0.68 * keyTerm + 0.22 * fillTerm
      let base: SIMD3<Double>
      if let level, abs(headHeight[i] - level) <= levelHalfWidth {
        base = SIMD3(214, 48, 39)
      } else if filled[i] {
        base = SIMD3(168, 184, 204)
      } else {
        base = SIMD3(238, 204, 174)
      }
      rgb[i] = pointwiseMin(base * min(lit, 1.15), SIMD3(repeating: 255))
    }
    let step = max(1, downsample)
    let outWidth = width / step, outHeight = height / step
    var bytes = [UInt8](repeating: 255, count: outWidth * outHeight * 3)
    for row in 0..<outHeight {
      for column in 0..<outWidth {
        var sum = SIMD3<Double>.zero
        for dr in 0..<step { for dc in 0..<step { sum += rgb[(row * step + dr) * width + column * step + dc] } }
        let mean = sum / Double(step * step)
        let o = (row * outWidth + column) * 3
        bytes[o] = UInt8(mean.z.rounded())
        bytes[o + 1] = UInt8(mean.y.rounded())
        bytes[o + 2] = UInt8(mean.x.rounded())
      }
    }
    return (bytes, outWidth, outHeight)
  }
}
