import Foundation
import PointCloud
import Registration

/// A head frame found from the fused head's own shape, for scans without landmarks.
///
/// - The midsagittal plane is a plane of mirror symmetry: planes through the up axis are
///   scored every 3° by how close the mirrored cloud lies to the cloud (mean squared
///   distance clipped at 1 cm, via a PCL k-d tree); the two best minima (an oval head is
///   nearly symmetric about its coronal plane too, but the face breaks that) are refined in
///   turn, tilt and offset, and the more symmetric one is kept. A plagiocephalic vault is a
///   parallelogram whose best mirror plane turns away from the face's, so the plane is then
///   settled on the face half alone (forehead, eyes, nose), mirrored onto the whole cloud.
/// - Up (z) is the cap's axis: the mean normal of its registered stickers (a cap is worn
///   level with its rim, the stickers spread all round); with fewer than 6 stickers, the
///   mean outward normal of the scanned surface (a dome open at the neck). It is then made
///   to lie in the midsagittal plane.
/// - Anterior (x) is the side of the face: within 1 cm of the midsagittal plane, below the
///   vault, the nose and eye sockets turn a share of the normals more than 30° sideways, the
///   smooth occiput (at most about 11° there) does not.
/// - y = z × x (left). The origin is on the midsagittal plane at the cloud's lowest point
///   along z, so layers start at the bottom of the scanned head (not the ears' plane:
///   ``measurementLevel`` is then measured from there).
public struct AutomaticHeadFrame: Sendable, Hashable {
  /// Maps world points (metres) into the automatic head frame (metres).
  public var headFromWorld: RigidTransform
  /// RMS distance of the mirrored cloud to the cloud (clipped at 1 cm), metres: noise plus
  /// the head's own asymmetry (a flattened quarter shows here).
  public var symmetryRMS: Double
  /// Angle between the cap's axis and the final z axis, degrees (the up axis's correction
  /// into the symmetry plane).
  public var upCorrection: Double
}

/// Why no head frame could be found from the shape alone.
public enum AutomaticHeadFrameError: Error, Sendable, Equatable, CustomStringConvertible {
  case tooFewPoints(Int)
  case noNormals
  case noSymmetry(String)

  public var description: String {
    switch self {
    case .tooFewPoints(let n): return "only \(n) points in the cloud; an automatic head frame needs at least 2000"
    case .noNormals: return "the cloud has no normals (reconstruct it with headscan first)"
    case .noSymmetry(let why): return "no plane of mirror symmetry found: \(why)"
    }
  }
}

/// Finds the head frame of a fused head cloud (world, metres, outward normals) from its shape
/// and the registered cap stickers.
/// - Throws: ``AutomaticHeadFrameError``.
public func estimateHeadFrame(cloud: PointSet, markers: [RegisteredMarker]) throws(AutomaticHeadFrameError) -> AutomaticHeadFrame {
  guard cloud.count >= 2000 else { throw .tooFewPoints(cloud.count) }
  guard cloud.normals.count == cloud.count else { throw .noNormals }
  // Work on about 20 000 points and 2 000 probes, evenly strided (deterministic).
  let stride1 = max(1, cloud.count / 20_000), stride2 = max(1, cloud.count / 2_000)
  let points = Swift.stride(from: 0, to: cloud.count, by: stride1).map { SIMD3<Double>(cloud.positions[$0]) }
  let normals = Swift.stride(from: 0, to: cloud.count, by: stride1).map { SIMD3<Double>(cloud.normals[$0]) }
  let probes = Swift.stride(from: 0, to: cloud.count, by: stride2).map { SIMD3<Double>(cloud.positions[$0]) }
  let centroid = points.reduce(.zero, +) / Double(points.count)
  // The cap's axis: its stickers' mean normal (a cap is worn level, its stickers spread all round).
  let capAxis = markers.map { $0.worldFromMarker.rotation * SIMD3<Double>(0, 0, 1) }.reduce(.zero, +)
  let meanNormal = normals.reduce(.zero, +) / Double(normals.count)
  let up0: SIMD3<Double>
  if markers.count >= 6, capAxis.length > 0.1 * Double(markers.count) {
    up0 = capAxis.normalized
  } else {
    guard meanNormal.length > 0.05 else { throw .noSymmetry("the cloud is closed all round and too few stickers show the cap's axis") }
    up0 = meanNormal.normalized
  }

  let index: NearestPointIndex
  do {
    index = try NearestPointIndex(points.map { SIMD3<Float>($0) })
  } catch {
    throw .noSymmetry(error.description)
  }
  /// Clipped mean squared distance (at 1 cm) of the mirrored probes to the cloud, m².
  func asymmetry(_ plane: SymmetryPlane, of probes: [SIMD3<Double>]) -> Double {
    let mirrored = probes.map { SIMD3<Float>(plane.mirror($0)) }
    return (try? index.meanClippedSquaredDistance(mirrored, limit: 1e-4)) ?? .infinity
  }

  // Coarse: planes through the centroid containing the first up axis, every 3°.
  let reference: SIMD3<Double> = abs(up0.x) < 0.9 ? [1, 0, 0] : [0, 1, 0]
  let e1 = (reference - reference.dot(up0) * up0).normalized, e2 = up0.cross(e1)
  /// A plane turned `psi` about the first up axis, tilted `tilt` towards it, moved `shift` metres.
  func plane(_ q: SIMD3<Double>) -> SymmetryPlane {
    let flat = cos(q.x) * e1 + sin(q.x) * e2
    let n = (cos(q.y) * flat + sin(q.y) * up0).normalized
    return SymmetryPlane(normal: n, offset: n.dot(centroid) + q.z)
  }
  /// Coordinate descent from `start` (turn, tilt, shift), halving steps down to 0.15° and 0.15 mm.
  func refine(_ start: SIMD3<Double>, probes: [SIMD3<Double>], axes: [Int] = [0, 1, 2]) -> (parameters: SIMD3<Double>, score: Double) {
    var q = start, score = asymmetry(plane(q), of: probes)
    var step = SIMD3<Double>(1.5 * .pi / 180, 1.5 * .pi / 180, 0.0015)
    while step.x > 0.15 * .pi / 180 {
      var improved = true
      while improved {
        improved = false
        for axis in axes {
          for sign in [-1.0, 1.0] {
            var trial = q
            trial[axis] += sign * step[axis]
            let s = asymmetry(plane(trial), of: probes)
            if s < score {
              (q, score, improved) = (trial, s, true)
              break
            }
          }
        }
      }
      step /= 2
    }
    return (q, score)
  }
  let coarse = (0..<60).map { step in asymmetry(plane(SIMD3(Double(step) * 3 * .pi / 180, 0, 0)), of: probes) }
  guard coarse.contains(where: \.isFinite) else { throw .noSymmetry("no mirrored point lies near the cloud") }
  // Local minima over the half turn (a plane and its opposite normal are the same plane);
  // an oval head is nearly symmetric about its coronal plane too: keep the two best.
  let minima = coarse.indices.filter { k in coarse[k] <= coarse[(k + 59) % 60] && coarse[k] <= coarse[(k + 1) % 60] }
    .sorted { coarse[$0] < coarse[$1] }.prefix(2)
  guard let best = minima.map({ refine(SIMD3(Double($0) * 3 * .pi / 180, 0, 0), probes: probes) }).min(by: { $0.score < $1.score })
  else { throw .noSymmetry("no mirror plane scored") }

  // Front: near the midsagittal plane and below the vault, the face's nose and eye sockets
  // turn normals sideways and the occiput's do not. Within 1 cm of the plane a smooth head of
  // radius r ≥ 5 cm turns its normals at most 1 cm / r ≈ 0.2 sideways; more than 0.5 (30°) is a face.
  var chosen = plane(best.parameters)
  var up = (up0 - up0.dot(chosen.normal) * chosen.normal).normalized
  var turned = (front: 0, back: 0), counts = (front: 0, back: 0)
  for (p, n) in zip(points, normals) where abs(chosen.distance(p)) < 0.01 && (p - centroid).dot(up) < 0.02 {
    let sideways = abs(n.dot(chosen.normal)) > 0.5 ? 1 : 0
    if (p - centroid).dot(chosen.normal.cross(up)) > 0 {
      turned.front += sideways
      counts.front += 1
    } else {
      turned.back += sideways
      counts.back += 1
    }
  }
  guard counts.front > 50, counts.back > 50 else { throw .noSymmetry("too little of the face or the back of the head was scanned") }
  let (frontShare, backShare) = (Double(turned.front) / Double(counts.front), Double(turned.back) / Double(counts.back))
  guard frontShare != backShare else { throw .noSymmetry("no face found beside the mirror plane: as many normals turn sideways on either side") }
  let faceSign = frontShare > backShare ? 1.0 : -1.0
  // The vault of a plagiocephalic head is a parallelogram whose best mirror plane is turned
  // away from the face's: settle the plane on the face half (forehead, eyes, nose) alone.
  let face = points.filter { ($0 - centroid).dot(faceSign * chosen.normal.cross(up)) > 0.02 }
  let faceProbes = Swift.stride(from: 0, to: face.count, by: max(1, face.count / 2_000)).map { face[$0] }
  var rms = best.score.squareRoot()
  if faceProbes.count >= 500 {
    let settled = refine(best.parameters, probes: faceProbes, axes: [0, 2])
    chosen = plane(settled.parameters)
    up = (up0 - up0.dot(chosen.normal) * chosen.normal).normalized
    rms = asymmetry(chosen, of: probes).squareRoot()
  }
  let normal = chosen.normal
  let x = faceSign * normal.cross(up)
  let z = up, y = z.cross(x)
  let bottom = points.map { $0.dot(z) }.min() ?? 0
  let onPlane = centroid - chosen.distance(centroid) * normal
  let origin = onPlane + (bottom - onPlane.dot(z)) * z
  let worldFromHead = RigidTransform(rotation: Rotation3(columns: x, y, z), translation: origin)
  return AutomaticHeadFrame(
    headFromWorld: worldFromHead.inverse, symmetryRMS: rms,
    upCorrection: acos(max(-1, min(1, up.dot(up0)))) * 180 / .pi)
}

/// A plane `normal · p = offset` (unit normal, metres).
struct SymmetryPlane {
  var normal: SIMD3<Double>
  var offset: Double

  func distance(_ p: SIMD3<Double>) -> Double { p.dot(normal) - offset }
  func mirror(_ p: SIMD3<Double>) -> SIMD3<Double> { p - 2 * distance(p) * normal }
}

