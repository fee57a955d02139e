internal import _GeometryShim
import Foundation
import PointCloud
import _HeadScanSupport

/// A k-d tree over a fixed point set (PCL), for many nearest-distance queries.
package final class NearestPointIndex: @unchecked Sendable {
  // The tree is built once and only read afterwards: concurrent queries are safe.
  private let tree: OpaquePointer
  /// Points in the tree.
  package let count: Int

  /// - Throws: when the set is empty or PCL fails.
  package init(_ points: [SIMD3<Float>]) throws(NativeGeometry.Failure) {
    let flat = NativeGeometry.packed(points)
    var message = [CChar](repeating: 0, count: 256)
    guard let made = gs_tree_create(flat, Int32(points.count), &message, message.count) else {
      throw NativeGeometry.Failure(description: NativeGeometry.text(of: message))
    }
    tree = made
    count = points.count
  }

  deinit { gs_tree_destroy(tree) }

  /// Mean over `queries` of the squared distance to the nearest point, each clipped at `limit` (squared units).
  package func meanClippedSquaredDistance(_ queries: [SIMD3<Float>], limit: Double) throws(NativeGeometry.Failure) -> Double {
    let flat = NativeGeometry.packed(queries)
    var mean = 0.0
    var message = [CChar](repeating: 0, count: 256)
    try NativeGeometry.check(
      gs_tree_mean_clipped_squared_distance(tree, flat, Int32(queries.count), limit, &mean, &message, message.count), message)
    return mean
  }

  /// Each of the tree's own points' mean distance to its `neighbours` nearest other points
  /// (units of the points), and whether it was computed (a finite point); the search in
  /// contiguous shares on `workers` threads (`nil`: one a core). Needs more points than neighbours.
  package func meanNeighbourDistances(neighbours: Int, workers: Int? = nil) throws(NativeGeometry.Failure) -> (distances: [Float], valid: [UInt8]) {
    let n = count
    var distances = [Float](repeating: 0, count: n), valid = [UInt8](repeating: 0, count: n)
    try distances.withUnsafeMutableBufferPointer { (distanceBuffer) throws(NativeGeometry.Failure) in
      try valid.withUnsafeMutableBufferPointer { (validBuffer) throws(NativeGeometry.Failure) in
        let pointers = DistanceBuffers(distances: distanceBuffer.baseAddress, valid: validBuffer.baseAddress)
        try Self.inShares(of: n, oneShareBelow: 1024, workers: workers) { begin, end, message, capacity in
          gs_tree_mean_neighbour_distances(self.tree, begin, end, Int32(neighbours), pointers.distances, pointers.valid, message, capacity)
        }
      }
    }
    return (distances, valid)
  }

  /// Each query projected onto the plane of its `neighbours` nearest points, and that plane's
  /// unit normal (see ``NativeGeometry/projectToLocalPlanes(_:queries:neighbours:quadratic:curvatureNeighbours:)``).
  /// Contiguous shares of the queries run on `workers` threads (`nil`: one a core); each query's result depends on it alone,
  /// so the output does not depend on the number of cores.
  package func projectToLocalPlanes(
    _ queries: [SIMD3<Float>], neighbours: Int, quadratic: Bool, curvatureNeighbours: Int, workers: Int? = nil
  ) throws(NativeGeometry.Failure) -> ([SIMD3<Float>], [SIMD3<Float>]) {
    // No queries, no projections (an empty array has no buffer address for the shim to read).
    guard !queries.isEmpty else { return ([], []) }
    let asked = NativeGeometry.packed(queries)
    let m = queries.count
    var out = [Float](repeating: 0, count: asked.count), normals = [Float](repeating: 0, count: asked.count)
    try out.withUnsafeMutableBufferPointer { (outBuffer) throws(NativeGeometry.Failure) in
      try normals.withUnsafeMutableBufferPointer { (normalBuffer) throws(NativeGeometry.Failure) in
        try asked.withUnsafeBufferPointer { (askedBuffer) throws(NativeGeometry.Failure) in
          let pointers = SharedBuffers(out: outBuffer.baseAddress, normals: normalBuffer.baseAddress, queries: askedBuffer.baseAddress)
          try Self.inShares(of: m, oneShareBelow: 64, workers: workers) { begin, end, message, capacity in
            gs_tree_project_to_local_planes(
              self.tree, pointers.queries, begin, end, Int32(neighbours), quadratic ? 1 : 0, Int32(clamping: max(0, curvatureNeighbours)),
              pointers.out, pointers.normals, message, capacity)
          }
        }
      }
    }
    let moved = (0..<m).map { SIMD3(out[3 * $0], out[3 * $0 + 1], out[3 * $0 + 2]) }
    let units = (0..<m).map { SIMD3(normals[3 * $0], normals[3 * $0 + 1], normals[3 * $0 + 2]) }
    return (moved, units)
  }

  /// Calls the shim's `pass(begin, end, message, capacity)` over `count` items in contiguous
  /// shares on `workers` threads (`nil`: one a core; one share below `oneShareBelow` items), and
  /// throws the message of the first share that failed. Each share touches only its own range.
  private static func inShares(
    of count: Int, oneShareBelow: Int, workers: Int?,
    _ pass: @escaping @Sendable (Int32, Int32, UnsafeMutablePointer<CChar>, Int) -> gs_status
  ) throws(NativeGeometry.Failure) {
    let shares = count < oneShareBelow ? 1 : workerCount(workers)
    let failures = ResultSlots<String>(count: shares)  // "" where a share succeeded
    forEachIndexConcurrently(shares, workers: threadsRunning(workers: shares)) { share in
      var message = [CChar](repeating: 0, count: 256)
      let begin = Int32(count * share / shares), end = Int32(count * (share + 1) / shares)
      let status = pass(begin, end, &message, message.count)
      failures.store(status == GS_OK ? "" : NativeGeometry.text(of: message), at: share)
    }
    if let failure = failures.takeAll().first(where: { !$0.isEmpty }) { throw NativeGeometry.Failure(description: failure) }
  }
}

/// The buffers of one projection, handed to the worker threads: each share writes only its own
/// range of `out` and `normals`.
private struct SharedBuffers: @unchecked Sendable {
  let out: UnsafeMutablePointer<Float>?
  let normals: UnsafeMutablePointer<Float>?
  let queries: UnsafePointer<Float>?
}

/// The outputs of one neighbour-distance pass, handed to the worker threads: each share writes
/// only its own range.
private struct DistanceBuffers: @unchecked Sendable {
  let distances: UnsafeMutablePointer<Float>?
  let valid: UnsafeMutablePointer<UInt8>?
}
