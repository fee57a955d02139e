import CVAI
import Foundation
import PointCloud
import _HeadScanSupport

/// A head surface as a range image about the cap's axis: the mean distance from the axis
/// (metres) of the surface points in each 1° × 1 mm bin of azimuth and height.
///
/// Azimuth θ is measured about `up` from `e1` towards `e2 = up × e1`; column `k` holds
/// θ ∈ [k°, k + 1°), row `r` heights [bottom + r mm, bottom + r + 1 mm) above `origin`.
/// Only points whose normal faces away from the axis count, so the underside of the nose
/// or chin does not mix with the surface above it.
struct CylinderMap {
  static let columns = 360
  static let rowHeight = 0.001
  let origin: SIMD3<Double>
  let up: SIMD3<Double>
  let e1: SIMD3<Double>
  let e2: SIMD3<Double>
  /// Height of row 0's lower edge above `origin`, metres.
  let bottom: Double
  let rows: Int
  /// Mean radius per bin (row-major), `nil` where no point fell.
  private(set) var raw: [Double?]
  /// ``raw`` averaged over each bin's 3 × 3 neighbourhood (at least 5 filled bins).
  private(set) var smooth: [Double?]
  /// Per-bin scatter of the raw radii about the smoothed ones (1.4826 × median absolute
  /// difference), metres: the surface noise after binning.
  private(set) var noise: Double

  /// - Parameter forward: where azimuth 0 points (projected across `up`); `nil`: any direction.
  init(
    points: [SIMD3<Double>], normals: [SIMD3<Double>]?, origin: SIMD3<Double>, up: SIMD3<Double>, forward: SIMD3<Double>? = nil,
    heights: ClosedRange<Double>
  ) {
    self.origin = origin
    self.up = up
    let reference: SIMD3<Double> = forward ?? (abs(up.x) < 0.9 ? [1, 0, 0] : [0, 1, 0])
    e1 = (reference - reference.dot(up) * up).normalized
    e2 = up.cross(e1)
    bottom = heights.lowerBound
    rows = max(1, Int(((heights.upperBound - heights.lowerBound) / Self.rowHeight).rounded(.up)))
    var sum = [Double](repeating: 0, count: rows * Self.columns), count = [Int](repeating: 0, count: rows * Self.columns)
    for (i, p) in points.enumerated() {
      let q = p - origin
      let h = q.dot(up)
      guard heights.contains(h) else { continue }
      let radial = q - h * up
      let rho = radial.length
      guard rho > 1e-6 else { continue }
      if let normals, normals[i].dot(radial / rho) < 0.3 { continue }
      let theta = atan2(radial.dot(e2), radial.dot(e1)) * 180 / .pi
      let column = Self.wrapColumn(Int(theta.rounded(.down)))
      let row = min(rows - 1, Int((h - bottom) / Self.rowHeight))
      sum[row * Self.columns + column] += rho
      count[row * Self.columns + column] += 1
    }
    raw = zip(sum, count).map { $1 > 0 ? $0 / Double($1) : nil }
    smooth = Array(repeating: nil, count: raw.count)
    noise = 0
    var differences: [Double] = []
    for row in 0..<rows {
      for column in 0..<Self.columns {
        var total = 0.0, filled = 0
        for dr in -1...1 where row + dr >= 0 && row + dr < rows {
          for dc in -1...1 {
            if let value = raw[(row + dr) * Self.columns + Self.wrapColumn(column + dc)] {
              total += value
              filled += 1
            }
          }
        }
        guard filled >= 5 else { continue }
        let mean = total / Double(filled)
        smooth[row * Self.columns + column] = mean
        if filled == 9, let value = raw[row * Self.columns + column] { differences.append(abs(value - mean)) }
      }
    }
    if !differences.isEmpty {
      differences.sort()
      noise = 1.4826 * differences[differences.count / 2]
    }
  }

  /// The map of a head in its own frame (the head frame): the axis is the frame's z through the
  /// ears' midpoint, and column k is centred on azimuth k° from the frame's x (the nasion's
  /// direction), so column 0 is the midline; `heights` are metres above the ears' plane.
  init(points: [SIMD3<Double>], normals: [SIMD3<Double>]?, frame: HeadFrame, heights: ClosedRange<Double>) {
    let worldFromHead = frame.worldFromHead
    let halfBin = -0.5 * Double.pi / 180
    let forward = worldFromHead.rotation * SIMD3(cos(halfBin), sin(halfBin), 0)
    self.init(
      points: points, normals: normals, origin: worldFromHead.translation, up: worldFromHead.rotation * SIMD3(0, 0, 1),
      forward: forward, heights: heights)
  }

  /// The fractional row and column (centres at integers) and the radius of a world point.
  func location(of point: SIMD3<Double>) -> (row: Double, column: Double, radius: Double) {
    let q = point - origin
    let h = q.dot(up)
    let radial = q - h * up
    let theta = atan2(radial.dot(e2), radial.dot(e1)) * 180 / .pi
    return ((h - bottom) / Self.rowHeight - 0.5, theta - 0.5, radial.length)
  }

  static func wrapColumn(_ column: Int) -> Int { ((column % columns) + columns) % columns }

  /// The smoothed radius at a bin (columns wrap), metres.
  func radius(row: Int, column: Int) -> Double? {
    guard row >= 0, row < rows else { return nil }
    return smooth[row * Self.columns + Self.wrapColumn(column)]
  }

  /// Whether a point fell in the bin.
  func isScanned(row: Int, column: Int) -> Bool {
    guard row >= 0, row < rows else { return false }
    return raw[row * Self.columns + Self.wrapColumn(column)] != nil
  }

  /// The share of scanned bins in a window of rows and columns (columns wrap).
  func coverage(rows rowRange: ClosedRange<Int>, columns columnRange: ClosedRange<Int>) -> Double {
    var filled = 0, total = 0
    for row in rowRange {
      for column in columnRange {
        total += 1
        if isScanned(row: row, column: column) { filled += 1 }
      }
    }
    return total > 0 ? Double(filled) / Double(total) : 0
  }

  /// Height above `origin` of a (fractional) row's centre, metres.
  func height(row: Double) -> Double { bottom + (row + 0.5) * Self.rowHeight }

  /// The smoothed radius at a fractional row and column (bilinear between bin centres), metres.
  func interpolatedRadius(row: Double, column: Double) -> Double? {
    let r0 = Int(row.rounded(.down)), c0 = Int(column.rounded(.down))
    let fr = row - Double(r0), fc = column - Double(c0)
    guard let a = radius(row: r0, column: c0), let b = radius(row: r0, column: c0 + 1),
      let c = radius(row: r0 + 1, column: c0), let d = radius(row: r0 + 1, column: c0 + 1)
    else { return radius(row: Int(row.rounded()), column: Int(column.rounded())) }
    return (1 - fr) * ((1 - fc) * a + fc * b) + fr * ((1 - fc) * c + fc * d)
  }

  /// ``interpolatedRadius(row:column:)`` or, where the bins there were not scanned, the plane
  /// in row and column fitted by least squares to the smoothed radii within `reach` bins
  /// (at least 6), at that point, metres: a hole of a few bins keeps the surface's slope.
  func radius(near row: Double, column: Double, reach: Int) -> Double? {
    if let value = interpolatedRadius(row: row, column: column) { return value }
    let r0 = Int(row.rounded()), c0 = Int(column.rounded())
    var samples: [(dr: Double, dc: Double, radius: Double)] = []
    for r in (r0 - reach)...(r0 + reach) {
      for c in (c0 - reach)...(c0 + reach) {
        if let value = radius(row: r, column: c) { samples.append((Double(r) - row, Double(c) - column, value)) }
      }
    }
    guard samples.count >= 6 else { return nil }
    return leastSquares(samples, unknowns: 3) { sample, a in
      (a[0], a[1], a[2]) = (1, sample.dr, sample.dc)
      return sample.radius
    }?.first
  }

  /// The world point at a fractional bin (row and column centres at integers) and radius.
  func point(row: Double, column: Double, radius rho: Double) -> SIMD3<Double> {
    let theta = (column + 0.5) * .pi / 180
    return origin + height(row: row) * up + rho * (cos(theta) * e1 + sin(theta) * e2)
  }

  /// The outward horizontal direction of a (fractional) column.
  func direction(column: Double) -> SIMD3<Double> {
    let theta = (column + 0.5) * .pi / 180
    return cos(theta) * e1 + sin(theta) * e2
  }
}
