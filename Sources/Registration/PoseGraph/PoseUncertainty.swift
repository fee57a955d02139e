import PointCloud

/// How well a frame's pose is determined, as the standard deviation (per axis, metres) of where
/// it puts one point: the *centre of the marker map* (the mean of its mapped corners), the point
/// every frame's view of the cap surrounds. A pose error is a shift plus a turn; at the map's
/// centre the turn acts over the distance from the frame's own markers, so one sticker 16 mm
/// across, seen from one side of the head, leaves its frame far less determined there than
/// stickers spread over the view.
///
/// Both kinds of placement are linearised about the pose (left-multiplied increment, rotation
/// then translation, about the map's centre so that the translation block is the centre's own
/// covariance):
/// - by depth, the rigid fit of the frame's lifted corners onto the map: each corner's
///   residual, weighted as the optimisation weights it;
/// - by its stickers' pixels (camera resection): each corner's pixel error through the pinhole
///   projection.
///
/// The noise is the frame's own residual per degree of freedom (its residual sum over the
/// residuals less the pose's 6), but never less than the scan's median frame's: a frame held by
/// one sticker has six residual degrees of freedom, too few to estimate its noise alone.
struct PoseUncertainty {
  /// Information matrix of the 6 pose unknowns (ω, v), row-major 6 × 6, before the noise.
  private var information = [Double](repeating: 0, count: 36)
  /// Σ weight · residual², in the residuals' unit squared.
  private(set) var weightedSquares = 0.0
  /// Scalar residuals taken in.
  private(set) var residualCount = 0

  /// Adds one 3D corner residual `residual` (metres) of a point at `point` (map frame) with
  /// `weight`; `centre` is the map's centre.
  mutating func addCorner(at point: SIMD3<Double>, residual: SIMD3<Double>, weight: Double, centre: SIMD3<Double>) {
    let (r0, r1, r2) = PoseGraph.jacobian(point - centre)
    for row in [r0, r1, r2] { add(row: row, weight: weight) }
    weightedSquares += weight * (residual * residual).sum()
    residualCount += 3
  }

  /// Adds one pixel corner: the point at `cameraPoint` (camera frame, metres) reprojected
  /// `pixelError` pixels from where it was seen, focal lengths `fx`, `fy`; `centre` is the map's
  /// centre in the camera frame.
  mutating func addPixel(
    cameraPoint p: SIMD3<Double>, pixelError: SIMD2<Double>, fx: Double, fy: Double, centre: SIMD3<Double>
  ) {
    guard p.z > 0 else { return }
    let (r0, r1, r2) = PoseGraph.jacobian(p - centre)
    // ∂(u, v)/∂p of the pinhole projection.
    let du = SIMD3(fx / p.z, 0, -fx * p.x / (p.z * p.z)), dv = SIMD3(0, fy / p.z, -fy * p.y / (p.z * p.z))
    for d in [du, dv] { add(row: d.x * r0 + d.y * r1 + d.z * r2, weight: 1) }
    weightedSquares += (pixelError * pixelError).sum()
    residualCount += 2
  }

  private mutating func add(row: SIMD8<Double>, weight: Double) {
    for i in 0..<6 { for j in 0..<6 { information[6 * i + j] += weight * row[i] * row[j] } }
  }

  /// The residual variance per degree of freedom (the residuals' unit squared); `nil` with no
  /// more residuals than the pose's six unknowns.
  var varianceEstimate: Double? { residualCount > 6 ? weightedSquares / Double(residualCount - 6) : nil }

  /// The standard deviation per axis (metres) of the map's centre under the pose, for residual
  /// variance `variance` per unit weight; `nil` when the pose is not determined (the
  /// information matrix is singular: fewer than three corners, or all on one line).
  func centreSD(variance: Double) -> Double? {
    guard let inverse = PoseGraph.invert6(information) else { return nil }
    let trace = inverse[21] + inverse[28] + inverse[35]
    guard trace.isFinite, trace >= 0 else { return nil }
    return (variance * trace / 3).squareRoot()
  }
}

/// The radius, in standard deviations per axis, that holds 95 % of an isotropic 3D normal
/// error: √(χ²₃ at 0.95).
let sphere95Radius = 7.814727903251178.squareRoot()
