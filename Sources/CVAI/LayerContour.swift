import Foundation

/// A closed contour in a layer plane of the head frame, millimetres.
///
/// Coordinates are (x anterior, y left) in the plane `z = height`. The polygon
/// is closed implicitly (last point joins the first); either orientation.
public struct LayerContour: Sendable, Hashable {
  /// Vertices, millimetres.
  public var points: [SIMD2<Double>]
  /// Height of the layer above the ears' plane, millimetres.
  public var height: Double

  public init(points: [SIMD2<Double>], height: Double) {
    precondition(points.count >= 3, "a contour needs three points")
    self.points = points
    self.height = height
  }

  /// Length of the closed polygon, millimetres.
  public var perimeter: Double {
    var total = 0.0
    var previous = points[points.count - 1]
    for p in points {
      let d = p - previous
      total += (d * d).sum().squareRoot()
      previous = p
    }
    return total
  }

  /// Signed area (positive counter-clockwise), mm².
  public var signedArea: Double {
    var twice = 0.0
    var previous = points[points.count - 1]
    for p in points {
      twice += previous.x * p.y - p.x * previous.y
      previous = p
    }
    return twice / 2
  }

  /// Centroid of the enclosed area, millimetres.
  public var centroid: SIMD2<Double> {
    var twice = 0.0
    var sum = SIMD2<Double>.zero
    var previous = points[points.count - 1]
    for p in points {
      let cross = previous.x * p.y - p.x * previous.y
      twice += cross
      sum += (previous + p) * cross
      previous = p
    }
    return sum / (3 * twice)
  }

  /// Length of the chord along `direction` through `point`, millimetres.
  ///
  /// The line meets the polygon at parameters `s` (signed distances from
  /// `point`); the chord runs from the most negative to the most positive, so a
  /// notch in the outline never shortens it. `nil` when the line misses the
  /// polygon on either side (the point lies outside).
  public func chord(through point: SIMD2<Double>, direction: SIMD2<Double>) -> Double? {
    guard let (back, forward) = chordEnds(through: point, direction: direction) else { return nil }
    return forward - back
  }

  /// The outermost crossings `(s−, s+)` of the line `point + s · direction` (unit direction).
  public func chordEnds(through point: SIMD2<Double>, direction: SIMD2<Double>) -> (Double, Double)? {
    let d = direction / (direction * direction).sum().squareRoot()
    var lowest = Double.infinity, highest = -Double.infinity
    var previous = points[points.count - 1]
    for p in points {
      // Solve point + s d = previous + u (p − previous), u ∈ [0, 1).
      let e = p - previous
      let denominator = d.x * e.y - d.y * e.x
      if abs(denominator) > 1e-15 {
        let w = previous - point
        let s = (w.x * e.y - w.y * e.x) / denominator
        let u = (w.x * d.y - w.y * d.x) / denominator
        if u >= 0 && u < 1 {
          lowest = min(lowest, s)
          highest = max(highest, s)
        }
      }
      previous = p
    }
    guard lowest < 0, highest > 0 else { return nil }
    return (lowest, highest)
  }
}
