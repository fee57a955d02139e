import Foundation
import PointCloud
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
/// A pixel landmark takes the median of the valid depth within ±2 pixels of its
/// pixel (in its frame's depth map), lifted along its ray and moved to the world
/// by the frame's pose; without depth there, the fused point nearest the camera
/// among those within 2 mm of the ray. World landmarks are used as given.
/// - Throws: ``LandmarkError`` (see ``checkLandmarks(_:path:scan:)``) or `ScanIOError` naming `path`.
public func liftLandmarks(
  _ file: LandmarkFile, path: String, scan: any ScanReader, reconstruction: HeadReconstruction
) throws -> HeadLandmarks {
  try checkLandmarks(file, path: path, scan: scan)
  func lift(_ name: String) throws -> SIMD3<Double> {
    switch file.positions[name] {
    case .world(let p)?:
      return p
    case .pixel(let index, let u, let v)?:
      return try liftPixel(name, frame: index, u: u, v: v, path: path, scan: scan, reconstruction: reconstruction)
    case nil:
      throw ScanIOError.invalidLandmarks(path: path, detail: "landmark '\(name)' is missing")
    }
  }
  return HeadLandmarks(nasion: try lift("nasion"), noseTip: try lift("noseTip"), leftEar: try lift("leftEar"), rightEar: try lift("rightEar"))
}

/// One pixel landmark in the world: the depth around its pixel, else the fused point along its ray.
private func liftPixel(
  _ name: String, frame index: Int, u: Double, v: Double, path: String, scan: any ScanReader, reconstruction: HeadReconstruction
) throws -> SIMD3<Double> {
  guard reconstruction.frames.indices.contains(index) else {
    throw LandmarkError.frameOutOfRange(path: path, name: name, frame: index, frameCount: reconstruction.frames.count)
  }
  let diagnostics = reconstruction.frames[index]
  guard let pose = diagnostics.worldFromCamera else {
    throw LandmarkError.frameNotRegistered(path: path, name: name, frame: index, reason: diagnostics.rejection?.description ?? "not registered")
  }
  let frame = try scan.frame(at: index)
  let depth = frame.depth
  let du = (u + 0.5) * Double(depth.width) / Double(frame.color.width) - 0.5
  let dv = (v + 0.5) * Double(depth.height) / Double(frame.color.height) - 0.5
  let cx = Int(du.rounded()), cy = Int(dv.rounded())
  var values: [Float] = []
  for y in max(0, cy - 2)...min(depth.height - 1, cy + 2) {
    for x in max(0, cx - 2)...min(depth.width - 1, cx + 2) where depth[x, y].isFinite { values.append(depth[x, y]) }
  }
  if !values.isEmpty {
    let z = Double(upperMedian(values))
    return pose.apply(depth.intrinsics.unproject(u: du, v: dv, depth: z))
  }
  // No depth: the fused point nearest the camera along the pixel's ray.
  let ray = pose.rotation * depth.intrinsics.unproject(u: du, v: dv, depth: 1).normalized
  let origin = pose.translation
  var best: (along: Double, point: SIMD3<Double>)?
  for p in reconstruction.cloud.positions {
    let q = SIMD3<Double>(p) - origin
    let along = q.dot(ray)
    guard along > 0, (q - along * ray).length < 0.002 else { continue }
    if along < best?.along ?? .infinity { best = (along, SIMD3<Double>(p)) }
  }
  guard let hit = best else { throw LandmarkError.noDepth(path: path, name: name, frame: index) }
  return hit.point
}
