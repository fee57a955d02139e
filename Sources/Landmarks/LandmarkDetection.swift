import CVAI
import Foundation
import PointCloud
import Registration
import _HeadScanSupport

/// Finds nasion, nose tip and both tragions on a fused head (world frame, metres, outward
/// normals) from its shape and the registered cap stickers.
///
/// The surface is mapped as a range image about the cap's axis (``CylinderMap``: up is the
/// stickers' mean normal, the axis passes through their mean position; 1° × 1 mm bins).
/// - **Face**: below the cap's lowest sticker, features are bins standing proud of the
///   chord 20° either side. The nose and the two ears are the three most prominent; the
///   nose is the one facing the widest gap between them (the back of the head). With fewer
///   than three, the nose cannot be told from an ear and is refused.
/// - **Nose tip**: the most anterior point near that feature in the head frame the four
///   points make (contract §4), refined to a fraction of a bin.
/// - **Nasion**: the deepest point of the midline profile above the nose tip, below the
///   chord from the nose tip to the forehead's most prominent point.
/// - **Tragion**: on each side, 60°–160° from the nose, each row's surface is fitted by a
///   robust cubic in azimuth (the head without the ear); the ear is the largest lateral
///   protrusion above it. The tragion is its front root: the azimuth where the protrusion
///   rises steepest on its anterior side, at the height where it falls steepest on its
///   upper side.
///
/// Each confidence compares the feature's size (nose prominence, nasion depth, ear
/// protrusion) with the least an infant's feature has (5, 2 and 3 mm) or five times the
/// surface noise if larger: 0 at that size, 1 at twice it; times the scanned share of the
/// surface around the feature. Nothing is refused here: see ``AutomaticLandmarks/accepted(minimumConfidence:)``.
/// - Throws: ``AutomaticLandmarkError`` when fewer than 4 stickers were registered or no
///   head surface lies below the cap.
public func detectLandmarks(cloud: PointSet, markers: [RegisteredMarker]) throws(AutomaticLandmarkError) -> AutomaticLandmarks {
  guard markers.count >= 4 else { throw .noCap(markers: markers.count) }
  let capAxis = markers.map { $0.worldFromMarker.rotation * SIMD3<Double>(0, 0, 1) }.reduce(.zero, +)
  guard capAxis.length > 0.2 * Double(markers.count) else { throw .noCap(markers: markers.count) }
  let up = capAxis.normalized
  let centres = markers.map(\.worldFromMarker.translation)
  let origin = centres.reduce(.zero, +) / Double(centres.count)
  let capFloor = centres.map { ($0 - origin).dot(up) }.min() ?? 0
  let points = cloud.positions.map { SIMD3<Double>($0) }
  let normals = cloud.normals.count == cloud.count ? cloud.normals.map { SIMD3<Double>($0) } : nil
  let map = CylinderMap(points: points, normals: normals, origin: origin, up: up, heights: (capFloor - 0.16)...(capFloor + 0.06))
  let capRow = min(map.rows, Int(((capFloor - map.bottom) / CylinderMap.rowHeight).rounded(.down)))
  var scannedBelowCap = 0
  for row in 0..<capRow {
    for column in 0..<CylinderMap.columns where map.isScanned(row: row, column: column) { scannedBelowCap += 1 }
  }
  guard scannedBelowCap >= 500 else { throw .tooFewPoints(scannedBelowCap) }
  return LandmarkDetector(map: map, capRow: capRow).run()
}

/// The steps of ``detectLandmarks(cloud:markers:)`` on one map.
private struct LandmarkDetector {
  let map: CylinderMap
  let capRow: Int
  /// Five times the binned surface noise, metres: no feature smaller counts.
  var noiseFloor: Double { 5 * map.noise }

  init(map: CylinderMap, capRow: Int) {
    self.map = map
    self.capRow = capRow
  }

  /// Confidence of a feature of `size` against the least one that counts (0 there, 1 at twice it).
  func confidence(_ size: Double, least anatomical: Double, coverage: Double) -> Double {
    let least = max(anatomical, noiseFloor)
    return max(0, min(1, (size - least) / least)) * max(0, min(1, coverage / 0.7))
  }

  /// How far a bin stands proud of the chord between the bins 20° either side, metres.
  func prominence(row: Int, column: Int) -> Double? {
    guard let centre = map.radius(row: row, column: column), let before = map.radius(row: row, column: column - 20),
      let after = map.radius(row: row, column: column + 20)
    else { return nil }
    return centre - (before + after) / 2
  }

  func run() -> AutomaticLandmarks {
    let least = max(0.003, noiseFloor)
    // The nose: the bin standing most proud of its surroundings below the cap.
    var nose: (row: Int, column: Int, size: Double)?
    for row in 0..<capRow {
      for column in 0..<CylinderMap.columns {
        if let size = prominence(row: row, column: column), size > nose?.size ?? least { nose = (row, column, size) }
      }
    }
    let noiseText = String(format: "noise %.2f mm", map.noise * 1000)
    guard let nose else {
      let detail = "nothing stands out below the cap (\(noiseText)): the face is not in the scan"
      let origin = map.origin
      let missing = { (name: String) in LandmarkProposal(name: name, position: origin, confidence: 0, detail: detail) }
      return AutomaticLandmarks(nasion: missing("nasion"), noseTip: missing("noseTip"), leftEar: missing("leftEar"), rightEar: missing("rightEar"))
    }
    let noseCoverage = map.coverage(rows: (nose.row - 10)...(nose.row + 10), columns: (nose.column - 20)...(nose.column + 20))
    let noseConfidence = confidence(nose.size, least: 0.008, coverage: noseCoverage)
    let noseDetail = String(format: "nose %.1f mm proud of the face 20° either side, %@", nose.size * 1000, noiseText)
    let nasion = findNasion(noseRow: nose.row, column: nose.column)
    let left = findTragion(side: 1, noseRow: nose.row, noseColumn: nose.column)
    let right = findTragion(side: -1, noseRow: nose.row, noseColumn: nose.column)
    let noseRadius = map.radius(row: nose.row, column: nose.column) ?? 0
    var noseTip = map.point(row: Double(nose.row), column: Double(nose.column), radius: noseRadius)
    // Settle the nose tip in the head frame the four points make: its most anterior point.
    if let frame = try? HeadFrame(nasion: nasion.position, noseTip: noseTip, leftEar: left.position, rightEar: right.position) {
      noseTip = mostAnterior(near: nose.row, nose.column, in: frame) ?? noseTip
    }
    return AutomaticLandmarks(
      nasion: nasion,
      noseTip: LandmarkProposal(name: "noseTip", position: noseTip, confidence: noseConfidence, detail: noseDetail),
      leftEar: left, rightEar: right)
  }

  /// The midline radius at a row (mean of the column and its neighbours that were scanned), metres.
  func profile(row: Int, column: Int) -> Double? {
    let values = (-1...1).compactMap { map.radius(row: row, column: column + $0) }
    return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
  }

  /// The deepest point of the midline profile (smallest distance from the axis) between the
  /// nose tip and the forehead's most prominent point within 60 mm above it.
  func findNasion(noseRow: Int, column: Int) -> LandmarkProposal {
    let top = min(map.rows - 1, noseRow + 60)
    let none = LandmarkProposal(name: "nasion", position: map.origin, confidence: 0, detail: "no midline profile scanned above the nose")
    guard let tipRadius = profile(row: noseRow, column: column), top > noseRow + 10,
      let forehead = ((noseRow + 10)...top).compactMap({ r in profile(row: r, column: column).map { (r, $0) } }).max(by: { $0.1 < $1.1 }),
      let deepest = ((noseRow + 1)..<forehead.0).compactMap({ r in profile(row: r, column: column).map { (r, $0) } }).min(by: { $0.1 < $1.1 })
    else { return none }
    var row = Double(deepest.0)
    if let a = profile(row: deepest.0 - 1, column: column), let c = profile(row: deepest.0 + 1, column: column) {
      row += vertexOffset(a, deepest.1, c)
    }
    let radius = map.interpolatedRadius(row: row, column: Double(column)) ?? deepest.1
    let depth = min(tipRadius, forehead.1) - deepest.1
    let coverage = map.coverage(rows: noseRow...forehead.0, columns: (column - 3)...(column + 3))
    return LandmarkProposal(
      name: "nasion", position: map.point(row: row, column: Double(column), radius: radius),
      confidence: confidence(depth, least: 0.002, coverage: coverage),
      detail: String(format: "profile %.1f mm deep between nose tip and forehead, noise %.2f mm", depth * 1000, map.noise * 1000))
  }

  /// The tragion on one side (`side` +1: the infant's left, at larger azimuths; −1: right).
  func findTragion(side: Int, noseRow: Int, noseColumn: Int) -> LandmarkProposal {
    let name = side > 0 ? "leftEar" : "rightEar"
    let offsets = Array(60...160)
    let rowRange = max(0, noseRow - 30)...max(0, min(map.rows - 1, capRow + 5))
    // Each row's head without the ear: a cubic in azimuth, refitted without the points above it.
    var excess: [Int: [Int: Double]] = [:]
    for row in rowRange {
      let samples = offsets.compactMap { k in map.radius(row: row, column: noseColumn + side * k).map { (k, $0) } }
      guard samples.count >= 40 else { continue }
      // Asymmetric least squares (the surface under the ear): points above the fit weigh 1 %.
      var weights = [Double](repeating: 1, count: samples.count)
      var coefficients: [Double] = []
      for _ in 0..<20 {
        guard let fit = fitCubic(samples, weights: weights) else { break }
        coefficients = fit
        let next = samples.map { $0.1 > cubic(fit, $0.0) ? 0.01 : 1.0 }
        if next == weights { break }
        weights = next
      }
      guard !coefficients.isEmpty else { continue }
      excess[row] = Dictionary(uniqueKeysWithValues: samples.map { ($0.0, $0.1 - cubic(coefficients, $0.0)) })
    }
    func value(_ row: Int, _ k: Int) -> Double? { excess[row]?[k] }
    guard let peak = excess.flatMap({ row, values in values.map { (row: row, k: $0.key, size: $0.value) } }).max(by: { $0.size < $1.size })
    else {
      return LandmarkProposal(name: name, position: map.origin, confidence: 0, detail: "the side of the head was not scanned")
    }
    let half = peak.size / 2
    // The ear's rows (protrusion above half its peak at the peak's azimuth) and azimuths.
    var earRows = [peak.row]
    for direction in [-1, 1] {
      var r = peak.row + direction
      while let v = value(r, peak.k), v > half {
        earRows.append(r)
        r += direction
      }
    }
    let azimuthProfile: [Int: Double] = Dictionary(
      uniqueKeysWithValues: offsets.compactMap { k in
        let values = earRows.compactMap { value($0, k) }
        return values.isEmpty ? nil : (k, values.reduce(0, +) / Double(values.count))
      })
    // Front root: where the protrusion rises steepest towards its peak (anterior side).
    var steepest: (k: Int, slope: Double)?
    var k = peak.k - 1
    while k >= offsets[0], let here = azimuthProfile[k], let next = azimuthProfile[k + 1] {
      if next - here > steepest?.slope ?? -.infinity { steepest = (k, next - here) }
      if here < 0.1 * peak.size { break }
      k -= 1
    }
    let earColumns = offsets.filter { (azimuthProfile[$0] ?? 0) > half }
    func heightProfile(_ r: Int) -> Double? {
      let values = earColumns.compactMap { value(r, $0) }
      return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
    // Upper edge: where the protrusion falls steepest above its peak.
    var steepestDrop: (row: Int, drop: Double)?
    var r = peak.row
    while let here = heightProfile(r), let above = heightProfile(r + 1) {
      if here - above > steepestDrop?.drop ?? -.infinity { steepestDrop = (r, here - above) }
      if above < 0.1 * peak.size { break }
      r += 1
    }
    guard let front = steepest, let upper = steepestDrop else {
      return LandmarkProposal(
        name: name, position: map.origin, confidence: 0,
        detail: String(format: "no ear edge: protrusion %.1f mm, noise %.2f mm", peak.size * 1000, map.noise * 1000))
    }
    var frontOffset = Double(front.k) + 0.5
    if let a = azimuthProfile[front.k - 1], let b = azimuthProfile[front.k], let c = azimuthProfile[front.k + 1], let d = azimuthProfile[front.k + 2] {
      frontOffset += vertexOffset(b - a, c - b, d - c)
    }
    var upperRow = Double(upper.row) + 0.5
    if let a = heightProfile(upper.row - 1), let b = heightProfile(upper.row), let c = heightProfile(upper.row + 1), let d = heightProfile(upper.row + 2) {
      upperRow += vertexOffset(a - b, b - c, c - d)
    }
    let column = Double(noseColumn) + Double(side) * frontOffset
    let radius = map.interpolatedRadius(row: upperRow, column: column) ?? 0
    let coverage = map.coverage(rows: (peak.row - 10)...(peak.row + 10), columns: (noseColumn + side * peak.k - 15)...(noseColumn + side * peak.k + 15))
    return LandmarkProposal(
      name: name, position: map.point(row: upperRow, column: column, radius: radius),
      confidence: radius > 0 ? confidence(peak.size, least: 0.003, coverage: coverage) : 0,
      detail: String(format: "lateral protrusion %.1f mm, noise %.2f mm", peak.size * 1000, map.noise * 1000))
  }

  /// The most anterior surface point (largest head-frame x) within 8 bins of a bin, refined
  /// by parabolas through its neighbours along the row and the column.
  func mostAnterior(near row: Int, _ column: Int, in frame: HeadFrame) -> SIMD3<Double>? {
    func x(_ r: Double, _ c: Double) -> Double? {
      map.interpolatedRadius(row: r, column: c).map { frame.headFromWorld.apply(map.point(row: r, column: c, radius: $0)).x }
    }
    var best: (row: Int, column: Int, x: Double)?
    for r in (row - 8)...(row + 8) {
      for c in (column - 8)...(column + 8) {
        if let value = x(Double(r), Double(c)), value > best?.x ?? -.infinity { best = (r, c, value) }
      }
    }
    guard let best else { return nil }
    var r = Double(best.row), c = Double(best.column)
    if let a = x(r - 1, c), let b = x(r + 1, c) { r += vertexOffset(a, best.x, b) }
    if let a = x(Double(best.row), c - 1), let b = x(Double(best.row), c + 1) { c += vertexOffset(a, best.x, b) }
    return map.interpolatedRadius(row: r, column: c).map { map.point(row: r, column: c, radius: $0) }
  }
}

/// Offset (−0.5…0.5) of the vertex of the parabola through three equally spaced values.
private func vertexOffset(_ a: Double, _ b: Double, _ c: Double) -> Double {
  let curvature = a - 2 * b + c
  guard abs(curvature) > 1e-15 else { return 0 }
  return max(-0.5, min(0.5, 0.5 * (a - c) / curvature))
}

/// A cubic in azimuth offset (degrees, centred on 110°) fitted by weighted least squares.
private func fitCubic(_ samples: [(Int, Double)], weights: [Double]) -> [Double]? {
  leastSquares(zip(samples, weights), unknowns: 4) { sample, a in
    let t = (Double(sample.0.0) - 110) / 50, w = sample.1.squareRoot()
    a[0] = w
    a[1] = w * t
    a[2] = w * t * t
    a[3] = w * t * t * t
    return w * sample.0.1
  }
}

private func cubic(_ c: [Double], _ k: Int) -> Double {
  let t = (Double(k) - 110) / 50
  return c[0] + t * (c[1] + t * (c[2] + t * c[3]))
}
