import PointCloud

/// A dense grid of signed distances to an oriented point cloud's surface (metres, positive
/// outside), measured near the points and filled by diffusion everywhere else.
///
/// Near the points (within ``supportRadius`` of at least a few of them) the value at a grid
/// vertex is its distance to the algebraic sphere fitted to its neighbouring points and normals
/// (weights `(1 − d²/r²)²`; ``AlgebraicSphere``, Guennebaud and Gross 2007): an implicit
/// moving-least-squares surface exact on spheres and planes, where a weighted plane (Adamson and
/// Alexa 2003) would sit inside a convex surface by about `E[s²]/(2R)`. Elsewhere — the inside
/// of the head, the air around it and the holes in the measured surface — the value is the
/// harmonic interpolation of the measured values with the grid's outer faces held outside
/// (volumetric diffusion, Davis, Marschner, Garr and Levoy 2002), solved coarse to fine. Its
/// zero level is the measured surface where there are points and a smooth membrane across the
/// holes, and it encloses a volume by construction.
struct ImplicitGrid {
  /// Position of vertex (0, 0, 0), metres.
  let origin: SIMD3<Double>
  /// Distance between neighbouring vertices, metres.
  let spacing: Double
  /// Vertices along x, y and z.
  let size: SIMD3<Int>
  /// Neighbourhood radius of the points, metres.
  let supportRadius: Double
  /// Signed distance per vertex (x fastest), metres.
  var values: [Float]
  /// Per vertex: index into ``colours`` when measured, −1 when filled or on the boundary.
  var measuredSlot: [Int32]
  /// Weighted mean colour of each measured vertex's points.
  var colours: [SIMD3<Float>]
  /// Per measured vertex (same slots as ``colours``): whether its points surround it — their
  /// weighted centroid is nearer to it across their normal than that of a neighbourhood cut in
  /// half by the edge of the data (``halfDiscOffset``). Beyond the edge the local fit
  /// extrapolates: the value is kept (the surface continues smoothly) but not called measured.
  var surrounded: [Bool]
  /// Per measured vertex (same slots as ``colours``): the algebraic sphere fitted there, in
  /// offsets from the vertex, whose own zero along a grid edge places the mesh's vertex
  /// (``MarchingTetrahedra``) without the linear interpolation's error.
  var spheres: [AlgebraicSphere]

  /// Centroid offset, in support radii, of the weights `(1 − d²/r²)²` over a flat half disc
  /// of radius r: `2·∫ρ²w dρ / (π·∫ρw dρ) = 96/(105π)` ≈ 0.29.
  static let halfDiscOffset = 96 / (105 * Double.pi)

  var count: Int { size.x * size.y * size.z }

  func index(_ i: Int, _ j: Int, _ k: Int) -> Int { (k * size.y + j) * size.x + i }

  func position(_ i: Int, _ j: Int, _ k: Int) -> SIMD3<Double> { origin + spacing * SIMD3<Double>(Double(i), Double(j), Double(k)) }

  /// Splats the points into the grid and fills it.
  /// - Throws: ``MeshError/gridTooLarge(vertices:limit:)``, ``MeshError/tooFewPoints(found:needed:)``.
  init(points: PointSet, spacing: Double, supportRadius: Double, maximumVertices: Int) throws(MeshError) {
    let usable = points.positions.indices.filter { i in
      let p = points.positions[i], n = points.normals[i]
      return p.x.isFinite && p.y.isFinite && p.z.isFinite && abs((n * n).sum() - 1) < 0.01
    }
    guard usable.count >= 100 else { throw MeshError.tooFewPoints(found: usable.count, needed: 100) }
    var low = SIMD3<Double>(repeating: .infinity), high = SIMD3<Double>(repeating: -.infinity)
    for i in usable {
      let p = SIMD3<Double>(points.positions[i])
      low = pointwiseMin(low, p)
      high = pointwiseMax(high, p)
    }
    // Room for the fill to bulge out of a hole and for the outer faces to be clearly outside.
    let margin = max(4 * supportRadius, 0.15 * (high - low).max())
    origin = low - margin
    self.spacing = spacing
    self.supportRadius = supportRadius
    let extent = high - low + 2 * margin
    let cells = (extent / spacing).rounded(.up)
    guard cells.max() < 1e6 else { throw MeshError.gridTooLarge(vertices: Int.max, limit: maximumVertices) }
    size = SIMD3<Int>(cells) &+ 1
    let total = size.x.multipliedReportingOverflow(by: size.y).partialValue.multipliedReportingOverflow(by: size.z).partialValue
    guard total > 0, total <= maximumVertices else { throw MeshError.gridTooLarge(vertices: total, limit: maximumVertices) }
    values = [Float](repeating: Float(supportRadius), count: total)
    measuredSlot = [Int32](repeating: -1, count: total)
    colours = []
    surrounded = []
    spheres = []
    splat(points, usable: usable)
    fill()
  }

  /// The moving-least-squares distances at the vertices near the points: per vertex, the
  /// weighted sums of its neighbours' offsets, normals, offset·normal, squared offset and
  /// colour (12 numbers), then the algebraic sphere they fit (``AlgebraicSphere``).
  private mutating func splat(_ points: PointSet, usable: [Int]) {
    let reach = Int((supportRadius / spacing).rounded(.down))
    let r2 = supportRadius * supportRadius
    let hasColours = points.colors.count == points.count
    let size = self.size, origin = self.origin, spacing = self.spacing
    // Per point: position, normal, colour, as plain numbers (debug builds are slow on SIMD).
    let agreeing = NormalOrientation.agreeing(
      positions: usable.map { points.positions[$0] }, normals: usable.map { points.normals[$0] }, radius: Float(supportRadius))
    var data = [Double](repeating: 0, count: 9 * usable.count)
    for (n, i) in usable.enumerated() {
      let p = points.positions[i], q = agreeing[n]
      let c = hasColours ? SIMD3<Float>(points.colors[i]) : SIMD3<Float>(repeating: 128)
      for (k, v) in [p.x, p.y, p.z, q.x, q.y, q.z, c.x, c.y, c.z].enumerated() { data[9 * n + k] = Double(v) }
    }
    /// Calls `body(vertex, weight, offset)` for each grid vertex within the support of point
    /// `n`, the offset being the point's position from the vertex.
    func forEachNeighbour(of n: Int, _ d: UnsafeBufferPointer<Double>, _ body: (Int, Double, Double, Double, Double) -> Void) {
      let px = d[9 * n], py = d[9 * n + 1], pz = d[9 * n + 2]
      let gx = Int(((px - origin.x) / spacing).rounded()), gy = Int(((py - origin.y) / spacing).rounded())
      let gz = Int(((pz - origin.z) / spacing).rounded())
      for k in max(0, gz - reach)...min(size.z - 1, gz + reach) {
        let dz = pz - origin.z - Double(k) * spacing
        for j in max(0, gy - reach)...min(size.y - 1, gy + reach) {
          let dy = py - origin.y - Double(j) * spacing
          let row = (k * size.y + j) * size.x
          for i in max(0, gx - reach)...min(size.x - 1, gx + reach) {
            let dx = px - origin.x - Double(i) * spacing
            let d2 = dx * dx + dy * dy + dz * dz
            guard d2 < r2 else { continue }
            body(row + i, (1 - d2 / r2) * (1 - d2 / r2), dx, dy, dz)
          }
        }
      }
    }
    // Pass 1: which vertices are reached; pass 2: their weighted sums.
    var slot = [Int32](repeating: -1, count: count)
    var reached = 0
    data.withUnsafeBufferPointer { d in
      slot.withUnsafeMutableBufferPointer { slot in
        for n in 0..<usable.count {
          forEachNeighbour(of: n, d) { v, _, _, _, _ in
            if slot[v] < 0 {
              slot[v] = Int32(reached)
              reached += 1
            }
          }
        }
      }
    }
    // Per vertex: weight, offset (3), normal (3), offset·normal, offset², colour (3).
    let stride = 12
    var sums = [Double](repeating: 0, count: stride * reached)
    data.withUnsafeBufferPointer { d in
      slot.withUnsafeBufferPointer { slot in
        sums.withUnsafeMutableBufferPointer { sums in
          for n in 0..<usable.count {
            let nx = d[9 * n + 3], ny = d[9 * n + 4], nz = d[9 * n + 5]
            forEachNeighbour(of: n, d) { v, w, qx, qy, qz in
              let s = stride * Int(slot[v])
              sums[s] += w
              sums[s + 1] += w * qx
              sums[s + 2] += w * qy
              sums[s + 3] += w * qz
              sums[s + 4] += w * nx
              sums[s + 5] += w * ny
              sums[s + 6] += w * nz
              sums[s + 7] += w * (qx * nx + qy * ny + qz * nz)
              sums[s + 8] += w * (qx * qx + qy * qy + qz * qz)
              for k in 0..<3 { sums[s + 9 + k] += w * d[9 * n + 6 + k] }
            }
          }
        }
      }
    }
    // Measured: a weight of at least a tenth of the typical vertex's (a vertex reached by the
    // edge of a few points' neighbourhoods only is left to the fill).
    let weights = (0..<reached).map { sums[stride * $0] }.sorted()
    let typical = weights.isEmpty ? 0 : weights[weights.count / 2]
    let minimum = max(1e-3, 0.1 * typical)
    for k in 0..<size.z {
      for j in 0..<size.y {
        for i in 0..<size.x {
          let v = index(i, j, k)
          guard slot[v] >= 0 else { continue }
          let s = stride * Int(slot[v])
          let weight = sums[s]
          guard weight >= minimum else { continue }
          let sphere = AlgebraicSphere(
            weight: weight, offset: SIMD3(sums[s + 1], sums[s + 2], sums[s + 3]), normal: SIMD3(sums[s + 4], sums[s + 5], sums[s + 6]),
            offsetDotNormal: sums[s + 7], offsetSquared: sums[s + 8], smallestRadius: supportRadius)
          // Neighbours whose normals disagree (a thin part's two sides) define no surface here.
          guard let sphere, let distance = sphere.signedDistanceFromOrigin else { continue }
          values[v] = Float(max(-supportRadius, min(supportRadius, distance)))
          measuredSlot[v] = Int32(colours.count)
          colours.append(SIMD3<Float>(Float(sums[s + 9]), Float(sums[s + 10]), Float(sums[s + 11])) / Float(weight))
          surrounded.append(sphere.tangentialOffset < Self.halfDiscOffset * supportRadius)
          spheres.append(sphere)
        }
      }
    }
  }

  /// Harmonic fill of the unmeasured vertices, the outer faces held at +``supportRadius``.
  private mutating func fill() {
    var fixed = measuredSlot.map { $0 >= 0 }
    for k in 0..<size.z {
      for j in 0..<size.y {
        if k == 0 || j == 0 || k == size.z - 1 || j == size.y - 1 {
          for i in 0..<size.x { fixed[index(i, j, k)] = true }
        } else {
          fixed[index(0, j, k)] = true
          fixed[index(size.x - 1, j, k)] = true
        }
      }
    }
    var level = DiffusionLevel(size: size, values: values, fixed: fixed)
    level.solve(outside: Float(supportRadius))
    values = level.values
  }
}
