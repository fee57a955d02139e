import Foundation
import _HeadScanSupport

extension LandmarkDetector {
  /// Azimuths from the nose searched for the ear, degrees.
  static let earAzimuths = 60...160
  /// Beyond the ear's footprint, this many degrees of head on each side carry its baseline.
  static let baselineFlank = 20
  /// The ear's footprint: where its protrusion exceeds this share of its peak.
  static let footprintShare = 0.05

  /// The tragion on one side (`side` +1: the infant's left, at larger azimuths; −1: right),
  /// searched in `rows`, azimuths measured from `noseColumn`.
  ///
  /// 1. The ear: each row's radius over 60°–160° from the nose is fitted by a cubic in
  ///    azimuth by asymmetric least squares (points above the fit weigh 1 %); the largest
  ///    protrusion above it is the ear.
  /// 2. The head under the ear, from both sides: the ear's footprint is where its azimuth
  ///    profile (rows within 3 mm of the peak) exceeds 5 % of the peak; each row's head is
  ///    the quadratic through the 20° of surface in front of the footprint and the 20°
  ///    behind it, and the protrusion is the radius above it. Three rounds (footprint,
  ///    head, protrusion).
  /// 3. The front root: the ear's azimuth profile (mean protrusion over the rows where it
  ///    exceeds half its peak at the peak's azimuth) rises steepest on its anterior side;
  ///    the tragion's height is where the ear's height profile (mean over its columns above
  ///    half the peak) falls steepest above the peak. Both are the inflection of a cubic
  ///    through ±5 bins of the profile around the steepest step.
  func findTragion(side: Int, noseColumn: Int, rows rowRange: ClosedRange<Int>) -> LandmarkProposal {
    let name = side > 0 ? "leftEar" : "rightEar"
    let searched = Self.earAzimuths
    let widest = (searched.lowerBound - Self.baselineFlank - 20)...(searched.upperBound + Self.baselineFlank + 20)
    var radii: [Int: [Int: Double]] = [:]
    for row in rowRange {
      var samples: [Int: Double] = [:]
      for k in widest { if let r = map.radius(row: row, column: noseColumn + side * k) { samples[k] = r } }
      if searched.filter({ samples[$0] != nil }).count >= 40 { radii[row] = samples }
    }
    var excess = radii.compactMapValues { samples in Self.asymmetricCubicExcess(samples, over: searched) }
    var peak = Self.peak(of: excess, within: searched)
    var footprint: ClosedRange<Int>?
    for _ in 0..<3 {
      guard let top = peak else { break }
      let band = Self.meanProfile(excess, rows: excess.keys.filter { abs($0 - top.row) <= 3 }, keys: widest)
      let k1 = Self.footprintEdge(band, from: top.k, direction: -1, below: Self.footprintShare * top.size)
      let k2 = Self.footprintEdge(band, from: top.k, direction: 1, below: Self.footprintShare * top.size)
      let next = radii.compactMapValues { Self.excessOverFlanks($0, footprint: k1...k2) }
      guard let nextPeak = Self.peak(of: next, within: searched) else { break }
      (excess, peak, footprint) = (next, nextPeak, k1...k2)
    }
    guard let peak else {
      return LandmarkProposal(name: name, position: map.origin, confidence: 0, detail: "the side of the head was not scanned")
    }
    let half = peak.size / 2
    // The ear's rows (protrusion above half its peak at the peak's azimuth) and azimuths.
    var earRows = [peak.row]
    for direction in [-1, 1] {
      var r = peak.row + direction
      while let v = excess[r]?[peak.k], v > half {
        earRows.append(r)
        r += direction
      }
    }
    let azimuthProfile = Self.meanProfile(excess, rows: earRows, keys: widest)
    let earColumns = widest.filter { (azimuthProfile[$0] ?? 0) > half }
    var heightProfile: [Int: Double] = [:]
    for (row, values) in excess {
      let inEar = earColumns.compactMap { values[$0] }
      if !inEar.isEmpty { heightProfile[row] = inEar.reduce(0, +) / Double(inEar.count) }
    }
    let footprintText = footprint.map { String(format: ", footprint %d°–%d° from the nose", $0.lowerBound, $0.upperBound) } ?? ""
    guard let front = Self.steepestFall(azimuthProfile, from: peak.k, direction: -1, stopBelow: 0.1 * peak.size),
      let upper = Self.steepestFall(heightProfile, from: peak.row, direction: 1, stopBelow: 0.1 * peak.size)
    else {
      return LandmarkProposal(
        name: name, position: map.origin, confidence: 0,
        detail: String(format: "no ear edge: protrusion %.1f mm, noise %.2f mm", peak.size * 1000, map.noise * 1000))
    }
    let column = Double(noseColumn) + Double(side) * front
    // A hole of a few bins at the root (grazing depth) is bridged by the surface around it.
    let radius = map.radius(near: upper, column: column, reach: 3) ?? 0
    let peakColumn = noseColumn + side * peak.k
    let coverage = map.coverage(rows: (peak.row - 10)...(peak.row + 10), columns: (peakColumn - 15)...(peakColumn + 15))
    return LandmarkProposal(
      name: name, position: map.point(row: upper, column: column, radius: radius),
      confidence: radius > 0 ? confidence(peak.size, least: 0.003, coverage: coverage) : 0,
      detail: String(format: "lateral protrusion %.1f mm%@, noise %.2f mm", peak.size * 1000, footprintText, map.noise * 1000))
  }

  /// The largest protrusion at azimuths `within`.
  static func peak(of excess: [Int: [Int: Double]], within azimuths: ClosedRange<Int>) -> (row: Int, k: Int, size: Double)? {
    var best: (row: Int, k: Int, size: Double)?
    for (row, values) in excess {
      for (k, size) in values where azimuths.contains(k) && size > best?.size ?? -.infinity { best = (row, k, size) }
    }
    return best
  }

  /// The last key from `start` in `direction` (±1) before the profile drops below `below`;
  /// without such a drop within 40°, the lowest point of the profile there (the valley
  /// between the ear and the next feature).
  static func footprintEdge(_ profile: [Int: Double], from start: Int, direction: Int, below: Double) -> Int {
    let keys = (1...40).map { start + direction * $0 }.filter { profile[$0] != nil }
    if let drop = keys.first(where: { profile[$0] ?? 0 < below }) { return drop - direction }
    return keys.min { profile[$0] ?? 0 < profile[$1] ?? 0 } ?? start
  }

  /// The mean over `rows` at each key that any of them has.
  static func meanProfile(_ excess: [Int: [Int: Double]], rows: [Int], keys: ClosedRange<Int>) -> [Int: Double] {
    var profile: [Int: Double] = [:]
    for k in keys {
      let values = rows.compactMap { excess[$0]?[k] }
      if !values.isEmpty { profile[k] = values.reduce(0, +) / Double(values.count) }
    }
    return profile
  }

  /// A row's radius above the cubic in azimuth fitted under it (asymmetric least squares over
  /// `azimuths`: points above the fit weigh 1 %, refitted until the weights settle).
  static func asymmetricCubicExcess(_ samples: [Int: Double], over azimuths: ClosedRange<Int>) -> [Int: Double]? {
    let points = azimuths.compactMap { k in samples[k].map { (x: Double(k), y: $0) } }
    let centre = Double(azimuths.lowerBound + azimuths.upperBound) / 2, scale = Double(azimuths.count) / 2
    var weights = [Double](repeating: 1, count: points.count)
    var fit: [Double]?
    for _ in 0..<20 {
      guard let next = fitPolynomial(points, weights: weights, degree: 3, centre: centre, scale: scale) else { break }
      fit = next
      let reweighted = points.map { $0.y > evaluatePolynomial(next, $0.x, centre: centre, scale: scale) ? 0.01 : 1.0 }
      if reweighted == weights { break }
      weights = reweighted
    }
    guard let fit else { return nil }
    return Dictionary(uniqueKeysWithValues: points.map { (Int($0.x), $0.y - evaluatePolynomial(fit, $0.x, centre: centre, scale: scale)) })
  }

  /// A row's radius above the quadratic through its surface 20° in front of and behind the
  /// ear's footprint, over the footprint and those flanks; `nil` without 5 bins on each side.
  static func excessOverFlanks(_ samples: [Int: Double], footprint: ClosedRange<Int>) -> [Int: Double]? {
    let front = ((footprint.lowerBound - baselineFlank)..<footprint.lowerBound).compactMap { k in samples[k].map { (x: Double(k), y: $0) } }
    let back = ((footprint.upperBound + 1)...(footprint.upperBound + baselineFlank)).compactMap { k in samples[k].map { (x: Double(k), y: $0) } }
    guard front.count >= 5, back.count >= 5 else { return nil }
    let centre = Double(footprint.lowerBound + footprint.upperBound) / 2, scale = 50.0
    let points = front + back
    guard let fit = fitPolynomial(points, weights: [Double](repeating: 1, count: points.count), degree: 2, centre: centre, scale: scale)
    else { return nil }
    let span = (footprint.lowerBound - baselineFlank)...(footprint.upperBound + baselineFlank)
    return Dictionary(
      uniqueKeysWithValues: samples.filter { span.contains($0.key) }.map {
        ($0.key, $0.value - evaluatePolynomial(fit, Double($0.key), centre: centre, scale: scale))
      })
  }

  /// Where `profile` falls steepest moving from `start` in `direction` (±1) until it drops
  /// below `stopBelow` (`nil` when the scanned profile ends before that): the fractional key (bins centred on integers) of the inflection of the
  /// cubic through the profile ±5 keys around the steepest step, or that step's midpoint when
  /// the cubic has no inflection within 2.5 keys of it.
  static func steepestFall(_ profile: [Int: Double], from start: Int, direction: Int, stopBelow: Double) -> Double? {
    var steepest: (position: Double, drop: Double)?
    var k = start, fell = false
    while let here = profile[k], let next = profile[k + direction] {
      if here - next > steepest?.drop ?? -.infinity { steepest = (Double(k) + Double(direction) / 2, here - next) }
      if next < stopBelow {
        fell = true
        break
      }
      k += direction
    }
    // An edge whose foot was not scanned is not an edge.
    guard fell, let position = steepest?.position else { return nil }
    let points = profile.filter { abs(Double($0.key) - position) <= 5 }.map { (x: Double($0.key), y: $0.value) }
    guard points.count >= 7,
      let cubic = fitPolynomial(points, weights: [Double](repeating: 1, count: points.count), degree: 3, centre: position, scale: 5),
      abs(cubic[3]) > 1e-15
    else { return position }
    let offset = -cubic[2] / (3 * cubic[3]) * 5
    return abs(offset) <= 2.5 ? position + offset : position
  }
}

/// Weighted least-squares polynomial in t = (x − centre) / scale, coefficients from t⁰ up.
func fitPolynomial(_ points: [(x: Double, y: Double)], weights: [Double], degree: Int, centre: Double, scale: Double) -> [Double]? {
  guard points.count > degree else { return nil }
  return leastSquares(zip(points, weights), unknowns: degree + 1) { sample, a in
    let t = (sample.0.x - centre) / scale, w = sample.1.squareRoot()
    var power = w
    for i in 0...degree {
      a[i] = power
      power *= t
    }
    return w * sample.0.y
  }
}

/// The polynomial of ``fitPolynomial(_:weights:degree:centre:scale:)`` at x.
func evaluatePolynomial(_ coefficients: [Double], _ x: Double, centre: Double, scale: Double) -> Double {
  let t = (x - centre) / scale
  return coefficients.reversed().reduce(0) { $0 * t + $1 }
}
