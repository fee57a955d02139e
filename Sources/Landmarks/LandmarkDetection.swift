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
/// - **Nose**: below the cap's lowest sticker, the bin standing most proud of the chord 20°
///   either side.
/// - **Nose tip**: the most anterior point near it in the head frame the four points make
///   (`HeadFrame`), refined to a fraction of a bin.
/// - **Nasion**: the deepest point of the midline profile between the nose tip and the
///   forehead's most prominent point within 60 mm above it.
/// - **Tragion**: the front root of the ear (`LandmarkDetector.findTragion`):
///   the ear is the lateral protrusion of largest volume 60°–160° from the nose, the head
///   under it is modelled from both sides of its footprint, and the tragion is where the
///   protrusion falls to half its peak on its anterior side, at the height where it falls to
///   half above its peak.
///
/// The cap's axis is a few degrees off the head's, so the four points are then found again
/// on a map in the head frame they make (`CylinderMap.init(points:normals:frame:heights:)`),
/// until no point moves by 0.1 mm (at most four rounds); when the first map missed one ear,
/// the first frame takes the other mirrored across the plane through the cap's axis and
/// the nose tip.
///
/// Each confidence compares the feature's size (nose prominence, the nasion's depth behind
/// the forehead, ear protrusion) with the least an infant's feature has (8, 2 and 3 mm) or
/// five times the surface noise if larger: 0 at that size, 1 at twice it; times the scanned
/// share of the surface around the feature. Nothing is refused here: see
/// ``AutomaticLandmarks/accepted(minimumConfidence:)``.
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
  var found = LandmarkDetector(map: map, capRow: capRow).run()
  // The cap sits a few degrees off the head's axis: map again in the frame the four points
  // make, until they settle (0.1 mm) or four rounds. The nasion's depth may read shallow on
  // the tilted map, so only the nose and the ears must have been found. A tilted cap also
  // bends the first map's azimuths, and one ear may be missed there: the first frame then
  // takes the other ear mirrored across the plane through the cap's axis and the nose, and
  // the second map must find both.
  var guide = mirroredWhereOneEarIsMissing(found, axisThrough: origin, up: up)
  for _ in 0..<4 {
    guard let landmarks = guide, let frame = try? landmarks.headFrame() else { break }
    let headMap = CylinderMap(points: points, normals: normals, frame: frame, heights: LandmarkDetector.headFrameHeights)
    let refined = LandmarkDetector(map: headMap, capRow: headMap.rows).refined(found, frame: frame)
    let moved = zip(refined.all, found.all).map { ($0.position - $1.position).length }.max() ?? 0
    found = refined
    if moved < 0.0001 { break }
    guide = [found.noseTip, found.leftEar, found.rightEar].allSatisfy { $0.confidence > 0 } ? found.points : nil
  }
  return found
}

/// The points of the first map for the first head-frame map: as found when the nose and both
/// ears were, with one ear missing the other mirrored across the plane through the cap's axis
/// (through `origin` along `up`) and the nose tip; `nil` without the nose or either ear.
func mirroredWhereOneEarIsMissing(_ found: AutomaticLandmarks, axisThrough origin: SIMD3<Double>, up: SIMD3<Double>) -> HeadLandmarks? {
  guard found.noseTip.confidence > 0, found.leftEar.confidence > 0 || found.rightEar.confidence > 0 else { return nil }
  var points = found.points
  let toNose = found.noseTip.position - origin
  let normal = up.cross(toNose - toNose.dot(up) * up)
  guard normal.length > 1e-9 else { return nil }
  let unit = normal.normalized
  let mirror = { (p: SIMD3<Double>) in p - 2 * (p - origin).dot(unit) * unit }
  if found.leftEar.confidence <= 0 { points.leftEar = mirror(found.rightEar.position) }
  if found.rightEar.confidence <= 0 { points.rightEar = mirror(found.leftEar.position) }
  return points
}

/// The steps of ``detectLandmarks(cloud:markers:)`` on one map.
struct LandmarkDetector {
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
    let nasion = findNasion(noseRow: nose.row, column: Double(nose.column))
    let earRows = max(0, nose.row - 30)...max(0, min(map.rows - 1, capRow + 5))
    let left = findTragion(side: 1, noseColumn: nose.column, rows: earRows)
    let right = findTragion(side: -1, noseColumn: nose.column, rows: earRows)
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

  /// The landmarks again on a map in the head frame `frame` of `previous` (``CylinderMap/init(points:normals:frame:heights:)``,
  /// rows from ``headFrameHeights``): the nasion on the nose's mirror axis (``midlineColumn(noseRow:)``,
  /// near column 0), the nose tip the most anterior point near the previous one, the tragions
  /// searched 45 mm below to 25 mm above the ears' plane. The nose tip keeps its confidence.
  func refined(_ previous: AutomaticLandmarks, frame: HeadFrame) -> AutomaticLandmarks {
    let before = map.location(of: previous.noseTip.position)
    var noseTip = previous.noseTip
    noseTip.position = mostAnterior(near: Int(before.row.rounded()), Int(before.column.rounded()), in: frame) ?? noseTip.position
    let noseRow = Int(map.location(of: noseTip.position).row.rounded())
    let row = { (height: Double) in Int(((height - self.map.bottom) / CylinderMap.rowHeight).rounded(.down)) }
    let earRows = max(0, row(-0.045))...max(0, min(map.rows - 1, row(0.025)))
    return AutomaticLandmarks(
      nasion: findNasion(noseRow: noseRow, column: midlineColumn(noseRow: noseRow) ?? 0), noseTip: noseTip,
      leftEar: findTragion(side: 1, noseColumn: 0, rows: earRows), rightEar: findTragion(side: -1, noseColumn: 0, rows: earRows))
  }

  /// Columns either side of the midline compared by ``midlineColumn(noseRow:)``: the nose
  /// (σ ≈ 6° on an infant) and its flanks.
  static let mirrorReach = 15

  /// The nose's mirror axis on a map whose column 0 is near the midline, fractional column:
  /// on each row from 4 mm below the nose tip to 16 mm above it, the offset δ (within ±5
  /// columns) that makes r(δ + d) − r(δ − d), d = 1…15 (radii interpolated between bin
  /// centres; pairs with an unscanned side left out, at least two thirds of them present),
  /// closest to a straight line in d by least squares (the line takes up the face's own slope
  /// across the midline). The rows' offsets are averaged with weights 1/var(δ), the least
  /// squares' own variance (the residual variance over the cost's curvature at δ): the nose's
  /// rows pin the axis, the flat rows above it, where any offset fits about as well, hardly
  /// count, and a row with holes still counts by what it has; rows inconsistent with the rest
  /// (beyond three times their own and the rows' robust scatter) are left out. `nil` without
  /// three such rows.
  func midlineColumn(noseRow: Int) -> Double? {
    let reach = Self.mirrorReach, least = (2 * reach + 2) / 3
    var rows: [(delta: Double, variance: Double)] = []
    for row in (noseRow - 4)...(noseRow + 16) {
      let span = -(reach + 6)...(reach + 6)
      let values = span.map { map.radius(row: row, column: $0) }
      func radius(_ column: Double) -> Double? {
        let x = column + Double(reach + 6), i = Int(x.rounded(.down))
        guard i >= 0, i + 1 < values.count, let a = values[i], let b = values[i + 1] else { return nil }
        let f = x - Double(i)
        return (1 - f) * a + f * b
      }
      guard let centre = radius(0), let left = radius(-Double(reach)), let right = radius(Double(reach)) else { continue }
      let prominence = centre - (left + right) / 2
      guard prominence > 2 * noiseFloor else { continue }
      // Mean squared residual of the pairs present, and their count; nil with too few.
      func cost(_ delta: Double) -> (mean: Double, pairs: Int)? {
        let differences = (1...reach).compactMap { d -> (Double, Double)? in
          guard let a = radius(delta + Double(d)), let b = radius(delta - Double(d)) else { return nil }
          return (Double(d), a - b)
        }
        guard differences.count >= least else { return nil }
        let slope = differences.reduce(0) { $0 + $1.0 * $1.1 } / differences.reduce(0) { $0 + $1.0 * $1.0 }
        return (differences.reduce(0) { $0 + pow($1.1 - slope * $1.0, 2) } / Double(differences.count), differences.count)
      }
      let step = 0.05
      let steps = (-100...100).map { Double($0) * step }
      let costs = steps.map(cost)
      let scored = costs.indices.compactMap { i in costs[i].map { (index: i, mean: $0.mean) } }
      guard let best = scored.min(by: { $0.mean < $1.mean })?.index, best > 0, best < costs.count - 1,
        let below = costs[best - 1], let here = costs[best], let above = costs[best + 1]
      else { continue }
      let delta = steps[best] + step * vertexOffset(below.mean, here.mean, above.mean)
      // Least squares: var(δ) ≈ 2 s² / S''(δ) for the sum S = pairs × mean, s² = S / (pairs − 2).
      let curvature = Double(here.pairs) * (below.mean - 2 * here.mean + above.mean) / (step * step)
      let residualVariance = here.mean * Double(here.pairs) / Double(max(1, here.pairs - 2))
      guard curvature > 0 else { continue }
      rows.append((delta, max(2 * residualVariance / curvature, 1e-6)))
    }
    // Rows that disagree with the others beyond their own uncertainty and the rows' robust
    // scatter (the face's own asymmetry above the nose, a brow) are left out: twice, from the
    // weighted mean of all rows.
    func weightedMean(_ rows: [(delta: Double, variance: Double)]) -> Double {
      rows.reduce(0) { $0 + $1.delta / $1.variance } / rows.reduce(0) { $0 + 1 / $1.variance }
    }
    guard rows.count >= 3 else { return nil }
    var kept = rows
    for _ in 0..<2 {
      let centre = weightedMean(kept)
      let deviations = rows.map { abs($0.delta - centre) }.sorted()
      let scatter = 1.4826 * deviations[deviations.count / 2]
      let consistent = rows.filter { abs($0.delta - centre) <= 3 * ($0.variance + scatter * scatter).squareRoot() }
      guard consistent.count >= 3 else { break }
      kept = consistent
    }
    return weightedMean(kept)
  }

  /// Heights of the head-frame map, metres above the ears' plane: the chin to the forehead.
  static let headFrameHeights = -0.08...0.06

  /// The midline radius at a row (mean of the fractional column and its neighbours that were scanned), metres.
  func profile(row: Int, column: Double) -> Double? {
    let values = (-1...1).compactMap { map.interpolatedRadius(row: Double(row), column: column + Double($0)) }
    return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
  }

  /// The deepest point of the midline profile (smallest distance from the axis) between the
  /// nose tip and the forehead's most prominent point within 60 mm above it.
  func findNasion(noseRow: Int, column: Double) -> LandmarkProposal {
    let top = min(map.rows - 1, noseRow + 60)
    let none = LandmarkProposal(name: "nasion", position: map.origin, confidence: 0, detail: "no midline profile scanned above the nose")
    guard top > noseRow + 10,
      let forehead = ((noseRow + 10)...top).compactMap({ r in profile(row: r, column: column).map { (r, $0) } }).max(by: { $0.1 < $1.1 }),
      let deepest = ((noseRow + 1)..<forehead.0).compactMap({ r in profile(row: r, column: column).map { (r, $0) } }).min(by: { $0.1 < $1.1 })
    else { return none }
    var row = Double(deepest.0)
    if let a = profile(row: deepest.0 - 1, column: column), let c = profile(row: deepest.0 + 1, column: column) {
      row += vertexOffset(a, deepest.1, c)
    }
    let radius = map.interpolatedRadius(row: row, column: column) ?? deepest.1
    // How far the concavity lies behind the forehead (the nose, 10–20 mm below, stands
    // further out on every head; on a map whose rows are tilted against the head its
    // radius at the nose tip's row says little).
    let depth = forehead.1 - deepest.1
    let midline = Int(column.rounded())
    let coverage = map.coverage(rows: noseRow...forehead.0, columns: (midline - 3)...(midline + 3))
    return LandmarkProposal(
      name: "nasion", position: map.point(row: row, column: column, radius: radius),
      confidence: confidence(depth, least: 0.002, coverage: coverage),
      detail: String(format: "profile %.1f mm behind the forehead above the nose, noise %.2f mm", depth * 1000, map.noise * 1000))
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
func vertexOffset(_ a: Double, _ b: Double, _ c: Double) -> Double {
  let curvature = a - 2 * b + c
  guard abs(curvature) > 1e-15 else { return 0 }
  return max(-0.5, min(0.5, 0.5 * (a - c) / curvature))
}
