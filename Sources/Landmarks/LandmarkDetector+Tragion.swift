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
  ///    azimuth by asymmetric least squares (points above the fit weigh 1 %); of the
  ///    connected regions standing above the fit by more than half the least ear (1.5 mm, or
  ///    2.5 times the binned noise if larger), the one with the largest volume is the ear.
  /// 2. The head under the ear, from both sides: the ear's footprint is where its azimuth
  ///    profile (rows within 3 mm of the peak) exceeds 5 % of the peak; each row's head is
  ///    the quadratic through the 20° of surface in front of the footprint and the 20°
  ///    behind it, and the protrusion is the radius above it. Three rounds (footprint,
  ///    head, protrusion), the peak kept within the footprint and the region's rows.
  /// 3. The front root: where the ear's azimuth profile (mean protrusion over the rows where
  ///    it exceeds half its peak at the peak's azimuth) falls to half its value at the peak
  ///    on the anterior side, at the height where the ear's height profile (mean over its
  ///    columns above half the peak) falls to half its value at the peak's row above it;
  ///    both interpolated between bins, gaps of up to ``bridgedGap`` bins bridged.
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
    // The ear is the protrusion with the largest volume, not the largest single bin: a hole's
    // rim or a grazing streak can stand as high over a few bins, never over an ear's area.
    let candidates = Self.protrusions(of: excess, within: searched, above: 0.5 * max(0.003, noiseFloor))
    let ear = candidates.max { $0.volume < $1.volume }
    var peak = ear.map { (row: $0.row, k: $0.k, size: $0.size) }
    var footprint: ClosedRange<Int>?
    for _ in 0..<3 {
      guard let top = peak, let ear else { break }
      let band = Self.meanProfile(excess, rows: excess.keys.filter { abs($0 - top.row) <= 3 }, keys: widest)
      let k1 = Self.footprintEdge(band, from: top.k, direction: -1, below: Self.footprintShare * top.size)
      let k2 = Self.footprintEdge(band, from: top.k, direction: 1, below: Self.footprintShare * top.size)
      let next = radii.compactMapValues { Self.excessOverFlanks($0, footprint: k1...k2) }
      // The peak stays on the ear: within its footprint and the candidate's rows.
      let onEar = next.filter { ear.rows.contains($0.key) }
      let low = max(k1, searched.lowerBound), high = min(k2, searched.upperBound)
      guard low < high, let nextPeak = Self.peak(of: onEar, within: low...high) else { break }
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
    var azimuthProfile = Self.meanProfile(excess, rows: earRows, keys: widest)
    let earColumns = widest.filter { (azimuthProfile[$0] ?? 0) > half }
    var heightProfile: [Int: Double] = [:]
    for (row, values) in excess {
      let inEar = earColumns.compactMap { values[$0] }
      if !inEar.isEmpty { heightProfile[row] = inEar.reduce(0, +) / Double(inEar.count) }
    }
    // A grazing-angle hole in front of or above the ear does not end its profile.
    Self.bridgeGaps(&azimuthProfile, over: widest)
    if let low = heightProfile.keys.min(), let high = heightProfile.keys.max() { Self.bridgeGaps(&heightProfile, over: low...high) }
    let footprintText = footprint.map { String(format: ", footprint %d°–%d° from the nose", $0.lowerBound, $0.upperBound) } ?? ""
    let front = Self.halfMaximum(azimuthProfile, from: peak.k, direction: -1)
    let upper = Self.halfMaximum(heightProfile, from: peak.row, direction: 1)
    guard let front, let upper else {
      let missing = front == nil ? (upper == nil ? "front and upper edges" : "front edge") : "upper edge"
      return LandmarkProposal(
        name: name, position: map.origin, confidence: 0,
        detail: String(
          format: "no ear %@ scanned: protrusion %.1f mm%@, noise %.2f mm", missing, peak.size * 1000, footprintText, map.noise * 1000))
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

  /// Gaps of up to this many bins in the ear's profiles are bridged linearly (a grazing-angle
  /// hole in front of or above the ear must not end its profile).
  static let bridgedGap = 12

  /// Fills gaps of at most ``bridgedGap`` keys between two samples of a profile by linear
  /// interpolation, within `keys`.
  static func bridgeGaps(_ samples: inout [Int: Double], over keys: ClosedRange<Int>) {
    let present = keys.filter { samples[$0] != nil }
    for (a, b) in zip(present, present.dropFirst()) where b - a > 1 && b - a <= bridgedGap + 1 {
      guard let ra = samples[a], let rb = samples[b] else { continue }
      for k in (a + 1)..<b { samples[k] = ra + (rb - ra) * Double(k - a) / Double(b - a) }
    }
  }

  /// The connected regions (8-neighbourhood of rows and azimuths) where the protrusion exceeds
  /// `above`, at azimuths `within`: each one's rows, its peak, and its volume (the sum of its
  /// protrusion, metre-bins).
  static func protrusions(of excess: [Int: [Int: Double]], within azimuths: ClosedRange<Int>, above threshold: Double)
    -> [(rows: ClosedRange<Int>, row: Int, k: Int, size: Double, volume: Double)]
  {
    var unvisited = Set<SIMD2<Int>>()
    for (row, values) in excess {
      for (k, size) in values where azimuths.contains(k) && size > threshold { unvisited.insert(SIMD2(row, k)) }
    }
    var regions: [(rows: ClosedRange<Int>, row: Int, k: Int, size: Double, volume: Double)] = []
    while let seed = unvisited.first {
      unvisited.remove(seed)
      var stack = [seed], low = seed.x, high = seed.x, volume = 0.0
      var top = (row: seed.x, k: seed.y, size: -Double.infinity)
      while let bin = stack.popLast() {
        let size = excess[bin.x]?[bin.y] ?? 0
        volume += size
        if size > top.size { top = (bin.x, bin.y, size) }
        (low, high) = (min(low, bin.x), max(high, bin.x))
        for dr in -1...1 {
          for dk in -1...1 where unvisited.remove(SIMD2(bin.x + dr, bin.y + dk)) != nil { stack.append(SIMD2(bin.x + dr, bin.y + dk)) }
        }
      }
      regions.append((low...high, top.row, top.k, top.size, volume))
    }
    return regions
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

  /// Where `profile` first falls below half its value at `start` moving in `direction` (±1),
  /// interpolated linearly between keys; `nil` when the scanned profile ends before that.
  static func halfMaximum(_ profile: [Int: Double], from start: Int, direction: Int) -> Double? {
    guard let top = profile[start] else { return nil }
    var k = start
    while let here = profile[k], let next = profile[k + direction] {
      if next < top / 2 { return Double(k) + Double(direction) * (here - top / 2) / (here - next) }
      k += direction
    }
    return nil
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
