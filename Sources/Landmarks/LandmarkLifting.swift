import CVAI
import Foundation
import PointCloud
import Reconstruction
import Registration
import ScanIO
import _HeadScanSupport

/// Checks what can be checked before registration: every pixel landmark's frame exists and its
/// pixel lies inside the colour image (sizes from the scan's header), so a bad file fails at once.
/// - Throws: ``LandmarkError`` naming `path` and the landmark.
public func checkLandmarks(_ file: LandmarkFile, path: String, scan: any ScanReader) throws(LandmarkError) {
  for name in LandmarkFile.names {
    guard case .pixel(let index, let u, let v) = file.positions[name] else { continue }
    guard index >= 0, index < scan.frameCount else {
      throw LandmarkError.frameOutOfRange(path: path, name: name, frame: index, frameCount: scan.frameCount)
    }
    let width = Double(scan.header.colorWidth), height = Double(scan.header.colorHeight)
    guard u >= -0.5, v >= -0.5, u < width - 0.5, v < height - 0.5 else {
      throw LandmarkError.pixelOutsideImage(path: path, name: name, frame: index)
    }
  }
}

/// Places the landmarks of a file in the reconstruction's world (metres).
///
/// A pixel landmark is cast along its ray (through the frame's pose) onto the fused surface:
/// the first surface facing the camera, where the ray meets the tangent planes of the fused
/// points within 1 mm of it (2 mm if none). The fused surface averages every frame's depth
/// noise, so this is far steadier than the frame's own depth: on a realistic simulated head
/// (depth noise 0.9 mm at 30 cm) the landmarks' head frame moved 0.4° with the frame's depth.
/// The frame's depth (median of the valid depth within ±2 pixels) is the check and the
/// fallback: where the fused hit lies more than 5 σ of the scan's depth noise (`ScanNoise`,
/// at least 2 mm when unknown) from it, or the ray meets no fused surface, the frame's depth is
/// used (the clicked surface was not fused, e.g. outside the fusion region); without depth
/// either, it is an error. World landmarks are used as given.
/// - Throws: ``LandmarkError`` (see ``checkLandmarks(_:path:scan:)``) or `ScanIOError` naming `path`.
public func liftLandmarks(
  _ file: LandmarkFile, path: String, scan: any ScanReader, reconstruction: HeadReconstruction
) throws -> HeadLandmarks {
  try checkLandmarks(file, path: path, scan: scan)
  func lift(_ name: String) throws -> SIMD3<Double> {
    try liftLandmark(name, of: file, path: path, scan: scan, reconstruction: reconstruction).point
  }
  return HeadLandmarks(nasion: try lift("nasion"), noseTip: try lift("noseTip"), leftEar: try lift("leftEar"), rightEar: try lift("rightEar"))
}

/// Where a lifted landmark's position came from (``liftLandmark(_:of:path:scan:reconstruction:)``).
public enum LandmarkLiftSource: String, Sendable, Hashable {
  /// Given in the world by the file.
  case world
  /// Its pixel's ray cut the fused surface.
  case fusedSurface
  /// Its frame's own depth around the pixel (no fused surface on the ray, or one too far from it).
  case frameDepth
}

/// One landmark of a file in the reconstruction's world (metres), and how it was placed; the
/// method is ``liftLandmarks(_:path:scan:reconstruction:)``'s. Does not repeat the file checks.
/// - Throws: ``LandmarkError`` or `ScanIOError` naming `path` and the landmark.
public func liftLandmark(
  _ name: String, of file: LandmarkFile, path: String, scan: any ScanReader, reconstruction: HeadReconstruction
) throws -> (point: SIMD3<Double>, source: LandmarkLiftSource) {
  switch file.positions[name] {
  case .world(let p)?:
    return (p, .world)
  case .pixel(let index, let u, let v)?:
    return try liftPixel(name, frame: index, u: u, v: v, path: path, scan: scan, reconstruction: reconstruction)
  case nil:
    throw ScanIOError.invalidLandmarks(path: path, detail: "landmark '\(name)' is missing")
  }
}

/// One pixel landmark in the world: the fused surface along its ray, checked against and else
/// replaced by the frame's own depth around the pixel.
private func liftPixel(
  _ name: String, frame index: Int, u: Double, v: Double, path: String, scan: any ScanReader, reconstruction: HeadReconstruction
) throws -> (point: SIMD3<Double>, source: LandmarkLiftSource) {
  guard reconstruction.frames.indices.contains(index) else {
    throw LandmarkError.frameOutOfRange(path: path, name: name, frame: index, frameCount: reconstruction.frames.count)
  }
  let diagnostics = reconstruction.frames[index]
  guard let pose = diagnostics.worldFromCamera else {
    throw LandmarkError.frameNotRegistered(path: path, name: name, frame: index, reason: diagnostics.rejection?.description ?? "not registered")
  }
  let frame = try scan.frame(at: index)
  let depth = frame.depth
  let (du, dv, window) = landmarkDepthWindow(frame, u: u, v: v)
  // The pixel's ray in the world: origin at the camera, unit direction; `range` metres along it.
  let direction = depth.intrinsics.unproject(u: du, v: dv, depth: 1)
  let metresPerDepth = direction.length
  let ray = (pose.rotation * direction).normalized
  let origin = pose.translation
  let measured = window.isEmpty ? nil : Double(upperMedian(window)) * metresPerDepth
  if let fused = fusedSurfaceRange(origin: origin, ray: ray, cloud: reconstruction.cloud) {
    guard let measured else { return (origin + fused * ray, .fusedSurface) }
    let tolerance = reconstruction.noise.depthNoise(atDistance: measured / metresPerDepth).map { 5 * $0 } ?? 0.002
    if abs(fused - measured) <= tolerance { return (origin + fused * ray, .fusedSurface) }
  }
  guard let measured else { throw LandmarkError.noDepth(path: path, name: name, frame: index) }
  return (origin + measured * ray, .frameDepth)
}

/// The depth window a pixel landmark is lifted from: colour pixel (`u`, `v`) of `frame` in the
/// depth map's pixels (`du`, `dv`), and the valid depths (finite, positive; metres along the
/// optical axis) within ±2 depth pixels of it. The lifting takes their median.
public func landmarkDepthWindow(_ frame: ScanFrame, u: Double, v: Double) -> (du: Double, dv: Double, depths: [Float]) {
  let depth = frame.depth
  guard frame.color.width > 0, frame.color.height > 0, depth.width > 0, depth.height > 0 else { return (u, v, []) }
  let du = (u + 0.5) * Double(depth.width) / Double(frame.color.width) - 0.5
  let dv = (v + 0.5) * Double(depth.height) / Double(frame.color.height) - 0.5
  let cx = Int(du.rounded()), cy = Int(dv.rounded())
  var depths: [Float] = []
  guard cx >= -2, cy >= -2, cx <= depth.width + 1, cy <= depth.height + 1 else { return (du, dv, depths) }
  for y in max(0, cy - 2)...min(depth.height - 1, cy + 2) {
    for x in max(0, cx - 2)...min(depth.width - 1, cx + 2) where depth[x, y].isFinite && depth[x, y] > 0 { depths.append(depth[x, y]) }
  }
  return (du, dv, depths)
}

/// Distance along the unit `ray` from `origin` (metres) at which it meets the first fused surface
/// that faces it: the fused points within 1 mm of the ray (else 2 mm) whose normals face the
/// camera, the nearest of them and those up to 3 mm behind it, each's tangent plane cut by the
/// ray, the median of the cuts. `nil` when no such point lies near the ray.
func fusedSurfaceRange(origin: SIMD3<Double>, ray: SIMD3<Double>, cloud: PointSet) -> Double? {
  let hasNormals = cloud.normals.count == cloud.positions.count
  for radius in [0.001, 0.002] {
    var near: [(along: Double, cut: Double)] = []
    for (i, p) in cloud.positions.enumerated() {
      let q = SIMD3<Double>(p) - origin
      let along = q.dot(ray)
      guard along > 0, (q - along * ray).length <= radius else { continue }
      guard hasNormals else {
        near.append((along, along))
        continue
      }
      let normal = SIMD3<Double>(cloud.normals[i])
      let facing = -normal.dot(ray)
      guard facing > 0.2 else { continue }
      near.append((along, q.dot(normal) / ray.dot(normal)))
    }
    guard let first = near.map(\.along).min() else { continue }
    let cuts = near.filter { $0.along <= first + 0.003 }.map(\.cut)
    return lowerMedian(cuts)
  }
  return nil
}
