internal import _GeometryShim
import PointCloud

/// A k-d tree over a fixed point set (PCL), for many nearest-distance queries.
package final class NearestPointIndex {
  private let tree: OpaquePointer

  /// - Throws: when the set is empty or PCL fails.
  package init(_ points: [SIMD3<Float>]) throws(NativeGeometry.Failure) {
    let flat = NativeGeometry.packed(points)
    var message = [CChar](repeating: 0, count: 256)
    guard let made = gs_tree_create(flat, Int32(points.count), &message, message.count) else {
      throw NativeGeometry.Failure(description: NativeGeometry.text(of: message))
    }
    tree = made
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
}
