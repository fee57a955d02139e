import ArucoBridge
import Foundation
import PointCloud
import ScanIO
import _HeadScanSupport

/// One marker seen in one frame, lifted to 3D in that frame's camera frame (metres).
public struct LiftedMarker: Sendable, Hashable {
  /// Marker id.
  public var id: Int
  /// The detected corners, colour-image pixels, OpenCV order.
  public var pixelCorners: [SIMD2<Double>]
  /// The corners in the camera frame, metres.
  public var cameraCorners: [SIMD3<Double>]
  /// Best-fit pose of a flat square of the marker's side to the corners.
  public var cameraFromMarker: RigidTransform
  /// RMS distance from the corners to that square, metres.
  public var residual: Double
  /// How the corners were lifted.
  public var method: LiftMethod
  /// Corners whose neighbourhood had too little depth (0…4).
  public var cornersWithoutDepth: Int
  /// The corners from the parts of the border edges next to each (`DetectedMarker`'s
  /// `refinedAlongEdges(in:cellsAcross:span:)` with span 0.6): noisier in one view, and
  /// measured to triangulate the marker map better over many (docs/registration.md). Lifting
  /// and resection, one view at a time, use ``pixelCorners``. The same as ``pixelCorners``
  /// without edge refinement.
  public var triangulationCorners: [SIMD2<Double>]
  /// Corners on the fitted border edges of a marker whose cells are too small for
  /// ``pixelCorners`` to be moved onto them (2.5–3.5 px; `ObservationOptions.focalCheckSmallestCell`),
  /// for the focal-length check alone: OpenCV's corners sit about 0.3 px inside the printed
  /// square there, which reads 10 mm stickers 32–45 cm away 2.5–3.7 % short. `nil` where
  /// ``pixelCorners`` are on the edges already or the edges do not fit.
  public var focalCorners: [SIMD2<Double>]?
  /// Robust spread (1.4826 · MAD) of the sticker's depth pixels about the smooth surface fitted
  /// through them, metres: this view's depth noise at the sticker's distance. `nil` when the
  /// corners were not lifted from one fit over the whole sticker.
  public var depthSpread: Double?
  /// Depth of the sticker's fitted surface where each diagonal (corners 0–2, then 1–3) crosses
  /// its middle in the image, metres: with the corners, how the sticker bends along each
  /// diagonal (``checkIntrinsics(_:statedFocalLength:options:)`` uses it). `nil` when the
  /// corners were not lifted from one fit over the whole sticker.
  public var diagonalMidpointDepths: SIMD2<Double>?

  /// A lifted marker from its parts (e.g. a synthetic observation).
  public init(
    id: Int, pixelCorners: [SIMD2<Double>], cameraCorners: [SIMD3<Double>], cameraFromMarker: RigidTransform, residual: Double,
    method: LiftMethod, cornersWithoutDepth: Int, triangulationCorners: [SIMD2<Double>], depthSpread: Double? = nil,
    diagonalMidpointDepths: SIMD2<Double>? = nil
  ) {
    self.depthSpread = depthSpread
    self.diagonalMidpointDepths = diagonalMidpointDepths
    self.id = id
    self.pixelCorners = pixelCorners
    self.cameraCorners = cameraCorners
    self.cameraFromMarker = cameraFromMarker
    self.residual = residual
    self.method = method
    self.cornersWithoutDepth = cornersWithoutDepth
    self.triangulationCorners = triangulationCorners
  }

  /// Cosine between the marker's normal and the line of sight (1 = seen squarely).
  public var facing: Double {
    let normal = cameraFromMarker.rotation * SIMD3(0, 0, 1)
    return -normal.dot(cameraFromMarker.translation.normalized)
  }
}

extension LiftedMarker {
  /// Lifts a detected marker with the frame's depth; falls back to PnP when depth is missing.
  ///
  /// Each corner's depth comes from a plane `z = c + a·du + b·dv` fitted by least
  /// squares to the valid depth pixels in a small window around it, refitted once
  /// without samples farther than 3 robust σ (MAD); the corner is the corner ray
  /// at depth `c`. When a corner has no usable depth or the quad's sides are not
  /// the printed side, the pose comes from the 2D corners (IPPE square PnP).
  /// - Returns: `nil` when neither way gives a trustworthy pose.
  public init?(marker: DetectedMarker, depth: DepthMap, colour: CameraIntrinsics, sideLength: Double, options: LiftingOptions = .init()) {
    // Four corners within a million pixels of the image: anything else is no marker of this image.
    guard marker.corners.count == 4, marker.corners.allSatisfy({ $0.x.magnitude < 1e6 && $0.y.magnitude < 1e6 }),
      depth.width > 0, depth.height > 0, colour.width > 0, colour.height > 0
    else { return nil }
    let sx = Double(depth.width) / Double(colour.width), sy = Double(depth.height) / Double(colour.height)
    let depthCorners = marker.corners.map { SIMD2(($0.x + 0.5) * sx - 0.5, ($0.y + 0.5) * sy - 0.5) }
    var corners: [SIMD3<Double>] = []
    var missing = 0
    var spread: Double?
    var midpoints: SIMD2<Double>?
    if let surface = Self.stickerSurfaceDepths(depth, corners: depthCorners, minimumSamples: 8 * options.minimumSamples) {
      corners = zip(depthCorners, surface.depths).map { depth.intrinsics.unproject(u: $0.0.x, v: $0.0.y, depth: $0.1) }
      spread = surface.spread
      midpoints = surface.midpoints
    } else {
      let radius = max(2, Int((Double(options.windowRadius) * Double(max(depth.width, depth.height)) / 640).rounded()))
      for c in depthCorners {
        if let z = Self.cornerDepth(depth, u: c.x, v: c.y, radius: radius, minimumSamples: options.minimumSamples) {
          corners.append(depth.intrinsics.unproject(u: c.x, v: c.y, depth: z))
        } else {
          missing += 1
        }
      }
    }
    let model = RigidTransform.squareModel(side: sideLength)
    if missing == 0 {
      let sides = (0..<4).map { (corners[($0 + 1) % 4] - corners[$0]).length }
      if sides.allSatisfy({ abs($0 - sideLength) <= options.sideTolerance * sideLength }),
        let (pose, rms) = try? NativeGeometry.rigidFit(from: model, to: corners)
      {
        self.init(
          id: marker.id, pixelCorners: marker.corners, cameraCorners: corners, cameraFromMarker: pose,
          residual: rms, method: .depth, cornersWithoutDepth: 0, triangulationCorners: marker.corners, depthSpread: spread,
          diagonalMidpointDepths: midpoints)
        if facing < options.minimumFacing { return nil }
        return
      }
    }
    guard
      let square = try? PnPPose(
        squareCorners: marker.corners, sideLength: sideLength, fx: colour.fx, fy: colour.fy, cx: colour.cx, cy: colour.cy),
      square.reprojectionRMS <= options.maximumReprojection, square.translation.z > 0
    else { return nil }
    let pose = RigidTransform(rotation: Rotation3(rotationVector: square.rotationVector), translation: square.translation)
    self.init(
      id: marker.id, pixelCorners: marker.corners, cameraCorners: model.map(pose.apply), cameraFromMarker: pose,
      residual: 0, method: .pnp, cornersWithoutDepth: missing, triangulationCorners: marker.corners)
    if facing < options.minimumFacing { return nil }
  }

  /// Depth at the four corners from one quadric in inverse depth `1/z(du, dv)` fitted to every valid depth pixel of the
  /// sticker (the quad enlarged by a quarter, which takes in its white margin), robustly refitted once.
  ///
  /// Hundreds of samples instead of a few dozen per corner, and the quadric follows the cap's
  /// curvature, so the corners' depths are both less noisy and unbiased. Returns them with the
  /// samples' robust spread about the first fit (metres) and the depths where the diagonals
  /// cross their middles in the image (0–2, then 1–3). `nil` when too little of the sticker
  /// has depth, when the fit leaves a spread over 3 mm (an edge of the head, a step in the
  /// depth — far above TrueDepth's noise at any working distance) or when a corner's
  /// neighbourhood has no depth at all (too close).
  static func stickerSurfaceDepths(
    _ depth: DepthMap, corners: [SIMD2<Double>], minimumSamples: Int
  ) -> (depths: [Double], spread: Double, midpoints: SIMD2<Double>)? {
    guard corners.count == 4, corners.allSatisfy({ $0.x.magnitude < 1e6 && $0.y.magnitude < 1e6 }) else { return nil }
    let centre = corners.reduce(SIMD2<Double>.zero, +) / 4
    let scale = max(1, corners.map { (($0 - centre) * ($0 - centre)).sum().squareRoot() }.reduce(0) { max($0, $1) })
    let grown = corners.map { centre + ($0 - centre) * 1.25 }
    let low = grown.reduce(SIMD2<Double>(repeating: .infinity)) { pointwiseMin($0, $1) }
    let high = grown.reduce(SIMD2<Double>(repeating: -.infinity)) { pointwiseMax($0, $1) }
    let x0 = max(0, Int(low.x.rounded(.down))), x1 = min(depth.width - 1, Int(high.x.rounded(.up)))
    let y0 = max(0, Int(low.y.rounded(.down))), y1 = min(depth.height - 1, Int(high.y.rounded(.up)))
    guard x0 < x1, y0 < y1 else { return nil }
    // Every corner needs some depth of its own nearby, or the quadric would extrapolate.
    for c in corners {
      guard let rows = window(around: c.y, radius: 2, size: depth.height), let columns = window(around: c.x, radius: 2, size: depth.width)
      else { return nil }
      var found = 0
      for y in rows {
        for x in columns where depth[x, y].isFinite { found += 1 }
      }
      if found < 4 { return nil }
    }
    let samples = stickerSamples(depth, quad: grown, columns: x0...x1, rows: y0...y1, centre: centre, scale: scale)
    guard samples.count >= minimumSamples, var fit = quadricFit(samples) else { return nil }
    // Residuals in metres (δz ≈ z² δw).
    let residuals = samples.map { s -> Double in
      let z = 1 / s.z
      return abs(1 / quadric(fit, s.u, s.v) - z)
    }
    guard !residuals.isEmpty else { return nil }
    let mad = upperMedian(residuals) * 1.4826
    let limit = max(0.001, 3 * mad)
    var kept: [(u: Double, v: Double, z: Double)] = []
    kept.reserveCapacity(samples.count)
    for (sample, residual) in zip(samples, residuals) where residual <= limit { kept.append(sample) }
    guard kept.count >= minimumSamples, let refit = quadricFit(kept), mad < 0.003 else { return nil }
    fit = refit
    let depths = corners.map { 1 / quadric(fit, ($0.x - centre.x) / scale, ($0.y - centre.y) / scale) }
    let middles = [(corners[0] + corners[2]) / 2, (corners[1] + corners[3]) / 2].map {
      1 / quadric(fit, ($0.x - centre.x) / scale, ($0.y - centre.y) / scale)
    }
    guard (depths + middles).allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
    return (depths, mad, SIMD2(middles[0], middles[1]))
  }

  /// The valid depth samples of the pixels inside (or on) the convex `quad` (depth-map pixels),
  /// among `columns` × `rows`, row by row: each as its offset from `centre` over `scale` and its
  /// inverse depth (1/m).
  ///
  /// A pixel is inside where no two of the quad's sides, taken in order, see it on opposite
  /// sides (their cross products `side × (pixel − side's start)` have no two opposite signs).
  static func stickerSamples(
    _ depth: DepthMap, quad: [SIMD2<Double>], columns: ClosedRange<Int>, rows: ClosedRange<Int>, centre: SIMD2<Double>, scale: Double
  ) -> [(u: Double, v: Double, z: Double)] {
    precondition(quad.count == 4, "a quad has four corners")
    precondition(columns.lowerBound >= 0 && columns.upperBound < depth.width, "columns outside the depth map")
    precondition(rows.lowerBound >= 0 && rows.upperBound < depth.height, "rows outside the depth map")
    // The sides, each a start and a step to the next corner, one side a lane.
    let startX = SIMD4(quad[0].x, quad[1].x, quad[2].x, quad[3].x)
    let startY = SIMD4(quad[0].y, quad[1].y, quad[2].y, quad[3].y)
    let stepX = SIMD4((0..<4).map { quad[($0 + 1) % 4].x - quad[$0].x })
    let stepY = SIMD4((0..<4).map { quad[($0 + 1) % 4].y - quad[$0].y })
    var samples: [(u: Double, v: Double, z: Double)] = []
    samples.reserveCapacity(columns.count * rows.count)
    depth.metres.withUnsafeBufferPointer { metres in
      for y in rows {
        // The cross products' row part, `step.x · (y − start.y)`, once a row.
        let rowPart = stepX * (SIMD4(repeating: Double(y)) - startY)
        for x in columns {
          let z = metres[y * depth.width + x]
          guard z.isFinite else { continue }
          let cross = rowPart - stepY * (SIMD4(repeating: Double(x)) - startX)
          guard !(any(cross .< 0) && any(cross .> 0)) else { continue }
          // Inverse depth: exactly linear in pixel coordinates for a plane, however obliquely seen.
          samples.append(((Double(x) - centre.x) / scale, (Double(y) - centre.y) / scale, 1 / Double(z)))
        }
      }
    }
    return samples
  }

  @inline(__always)
  static func quadric(_ q: [Double], _ u: Double, _ v: Double) -> Double {
    q[0] + q[1] * u + q[2] * v + q[3] * u * u + q[4] * u * v + q[5] * v * v
  }

  /// Least-squares `z = q0 + q1 u + q2 v + q3 u² + q4 uv + q5 v²`.
  ///
  /// The normal equations of `leastSquares` with the row (1, u, v, u², uv, v²). The 21 entries
  /// of their upper triangle hold 18 distinct sums (u·u and 1·u² are the same number, and so
  /// on), and only those are summed, up to three in a vector register: every sum gets the same
  /// terms in the same order as the whole matrix row by row, so the fit is the same to the
  /// last bit.
  static func quadricFit(_ s: [(u: Double, v: Double, z: Double)]) -> [Double]? {
    var count = 0.0
    var linear = SIMD2<Double>.zero  // Σu, Σv
    var square = SIMD4<Double>.zero  // Σu², Σuv, Σv²
    var cubicU = SIMD4<Double>.zero  // Σu·u², Σu·uv, Σu·v²
    var cubicV = SIMD4<Double>.zero  // Σv·u², Σv·uv, Σv·v²
    var quarticUU = SIMD4<Double>.zero  // Σu²·u², Σu²·uv, Σu²·v²
    var quarticUV = SIMD2<Double>.zero  // Σuv·uv, Σuv·v²
    var quarticVV = 0.0  // Σv²·v²
    var target = SIMD8<Double>.zero  // Σz·(1, u, v, u², uv, v²)
    for q in s {
      let products = SIMD4<Double>(q.u * q.u, q.u * q.v, q.v * q.v, 0)
      count += 1
      linear += SIMD2(q.u, q.v)
      square += products
      cubicU += q.u * products
      cubicV += q.v * products
      quarticUU += products[0] * products
      quarticUV += products[1] * SIMD2(products[1], products[2])
      quarticVV += products[2] * products[2]
      target += SIMD8(1, q.u, q.v, products[0], products[1], products[2], 0, 0) * q.z
    }
    let upper: [[Double]] = [
      [count, linear[0], linear[1], square[0], square[1], square[2]],
      [square[0], square[1], cubicU[0], cubicU[1], cubicU[2]],
      [square[2], cubicV[0], cubicV[1], cubicV[2]],
      [quarticUU[0], quarticUU[1], quarticUU[2]],
      [quarticUV[0], quarticUV[1]],
      [quarticVV],
    ]
    // The upper triangle as summed, mirrored below (aᵢaⱼ = aⱼaᵢ exactly).
    var matrix = [Double](repeating: 0, count: 36)
    for i in 0..<6 {
      for j in i..<6 {
        matrix[i * 6 + j] = upper[i][j - i]
        matrix[j * 6 + i] = upper[i][j - i]
      }
    }
    return solveLinearSystem(matrix, (0..<6).map { target[$0] })
  }

  /// Robust local-plane depth at sub-pixel (u, v) of the depth map, metres.
  static func cornerDepth(_ depth: DepthMap, u: Double, v: Double, radius: Int, minimumSamples: Int) -> Double? {
    guard let rows = window(around: v, radius: radius, size: depth.height), let columns = window(around: u, radius: radius, size: depth.width)
    else { return nil }
    var samples: [(du: Double, dv: Double, z: Double)] = []
    samples.reserveCapacity(rows.count * columns.count)
    for y in rows {
      for x in columns {
        let z = depth[x, y]
        if z.isFinite { samples.append((Double(x) - u, Double(y) - v, Double(z))) }
      }
    }
    guard samples.count >= minimumSamples, var fit = planeFit(samples) else { return nil }
    // One robust refit: drop samples beyond 3 MAD-σ (at least 1 mm) from the first plane.
    let residuals = samples.map { abs($0.z - (fit.c + fit.a * $0.du + fit.b * $0.dv)) }
    guard !residuals.isEmpty else { return nil }
    let mad = upperMedian(residuals) * 1.4826
    let limit = max(0.001, 3 * mad)
    let kept = zip(samples, residuals).filter { $0.1 <= limit }.map(\.0)
    guard kept.count >= minimumSamples, let refit = planeFit(kept) else { return nil }
    fit = refit
    guard fit.c > 0, fit.c.isFinite else { return nil }
    return fit.c
  }

  /// Least-squares `z = c + a·du + b·dv`.
  static func planeFit(_ s: [(du: Double, dv: Double, z: Double)]) -> (a: Double, b: Double, c: Double)? {
    guard let x = leastSquares(s, unknowns: 3, row: { q, a in (a[0], a[1], a[2]) = (q.du, q.dv, 1); return q.z })
    else { return nil }
    return (x[0], x[1], x[2])
  }
}

/// The pixels within `radius` of the one nearest `coordinate` that lie in `0..<size`; `nil`
/// when none do (or the coordinate is not finite).
func window(around coordinate: Double, radius: Int, size: Int) -> ClosedRange<Int>? {
  let nearest = coordinate.rounded()
  guard nearest.isFinite, nearest > -1e9, nearest < 1e9, radius >= 0 else { return nil }
  let centre = Int(nearest)
  let low = max(0, centre - radius), high = min(size - 1, centre + radius)
  return low <= high ? low...high : nil
}

/// How a marker's corners got their 3D position.
public enum LiftMethod: String, Sendable, Hashable, Codable {
  /// From the registered depth map around each corner.
  case depth
  /// From the 2D corners and the known marker side (PnP), where depth was missing.
  case pnp
}

/// Parameters of the corner lifting.
public struct LiftingOptions: Sendable, Hashable {
  /// Half-size of the depth window around a corner, pixels at 640 px width (scaled with the map).
  public var windowRadius = 4
  /// Fewest valid depth samples for a corner fit.
  public var minimumSamples = 10
  /// A quad whose sides differ from the printed side by more than this fraction is not trusted.
  public var sideTolerance = 0.15
  /// A PnP pose whose reprojection RMS exceeds this (pixels) is rejected.
  public var maximumReprojection = 2.0
  /// Markers seen more obliquely than this (cosine between normal and line of sight) are not used:
  /// their corners and depth are the least reliable.
  public var minimumFacing = 0.4

  public init() {}
}
