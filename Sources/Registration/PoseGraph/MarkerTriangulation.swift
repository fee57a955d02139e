import PointCloud
import ScanIO
import _HeadScanSupport

/// The world point whose projections best match `views` (camera resection's counterpart):
/// Gauss–Newton on the pixel error from `start`, each view's error Huber-weighted at 1 px
/// and scaled by its `weight`.
/// - Parameters:
///   - start: the current estimate, world metres.
///   - views: each view's `cameraFromWorld`, the point's pixel in it (colour image) and a weight.
/// - Returns: the refined point, or `nil` with fewer than two views in front of their camera,
///   a singular system (views all along one line) or a move of more than 2 mm (a wrong start).
func triangulate(
  _ start: SIMD3<Double>, views: [(cameraFromWorld: RigidTransform, pixel: SIMD2<Double>, weight: Double)], colour: CameraIntrinsics
) -> SIMD3<Double>? {
  guard views.count >= 2 else { return nil }
  var x = start
  for _ in 0..<6 {
    var rows: [(SIMD3<Double>, Double)] = []
    rows.reserveCapacity(2 * views.count)
    for view in views {
      let q = view.cameraFromWorld.apply(x)
      guard q.z > 0.01, let u = colour.project(q) else { continue }
      let error = view.pixel - u
      let size = (error * error).sum().squareRoot()
      let weight = view.weight * (size <= 1 ? 1 : (1 / size).squareRoot())
      // ∂u/∂x = ∂u/∂q · R, R's rows being the camera axes in the world.
      let (r0, r1, r2) = view.cameraFromWorld.rotation.rows
      let du = (colour.fx / q.z) * (r0 - (q.x / q.z) * r2), dv = (colour.fy / q.z) * (r1 - (q.y / q.z) * r2)
      rows.append((weight * du, weight * error.x))
      rows.append((weight * dv, weight * error.y))
    }
    guard rows.count >= 4,
      let step = leastSquares(rows, unknowns: 3, row: { row, a in
        a[0] = row.0.x
        a[1] = row.0.y
        a[2] = row.0.z
        return row.1
      })
    else { return nil }
    let delta = SIMD3(step[0], step[1], step[2])
    x += delta
    if delta.length < 1e-7 { break }
  }
  return (x - start).length <= 0.002 ? x : nil
}

/// The marker map placed again from the detected pixels alone, the frames' poses held.
///
/// The lifted corners carry the depth map's errors, and these are not random where a sticker
/// bends away from the camera: the depth window around its lowest corner straddles a surface
/// curving away, so that corner is lifted too far along its ray in every view (0.2–0.3 mm
/// along the surface on the simulated heads), and the global fit of lifted corners keeps it
/// there. The pixels carry no such bias, and each corner is seen from 20–70 directions.
/// A corner keeps its fitted position where ``triangulate(_:views:colour:)`` refuses.
/// - Parameters:
///   - map: marker corners, metres (world or map frame, as the poses).
///   - frames: each registered frame's `worldFromCamera` and its detections.
///   - colour: the intrinsics of the colour image the corners were found in.
///   - workers: threads the markers are solved on (`nil`: one a core); the map does not depend on it.
func triangulateMarkers(
  _ map: MarkerMap, seenIn frames: [(worldFromCamera: RigidTransform, markers: [LiftedMarker])], colour: CameraIntrinsics,
  workers: Int? = nil
) -> MarkerMap {
  var views: [Int: [[(cameraFromWorld: RigidTransform, pixel: SIMD2<Double>, weight: Double)]]] = [:]
  for frame in frames {
    let cameraFromWorld = frame.worldFromCamera.inverse
    for m in frame.markers where map[m.id] != nil && m.triangulationCorners.count == 4 {
      var perCorner = views[m.id] ?? [[], [], [], []]
      for k in 0..<4 { perCorner[k].append((cameraFromWorld, m.triangulationCorners[k], m.facing)) }
      views[m.id] = perCorner
    }
  }
  // Each marker corner is solved alone: in parallel, the same map whatever the thread count.
  let ids = views.keys.sorted(), seen = views
  // Empty where the map has no four corners.
  let solved = mapConcurrently(ids.count, workers: threadsRunning(workers: workerCount(workers))) { i -> [SIMD3<Double>] in
    guard var corners = map[ids[i]], corners.count == 4, let perCorner = seen[ids[i]] else { return [] }
    for k in 0..<4 {
      if let x = triangulate(corners[k], views: perCorner[k], colour: colour) { corners[k] = x }
    }
    return corners
  }
  var result = map
  for (id, corners) in zip(ids, solved) where !corners.isEmpty { result[id] = corners }
  return result
}
