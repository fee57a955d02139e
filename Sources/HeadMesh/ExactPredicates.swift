/// Signs of orientation determinants that are exact for any finite double coordinates (between
/// about 1e-100 and 1e100 in magnitude, where no product under- or overflows): the geometric
/// predicates of ``MeshIntersections``.
///
/// Each is first evaluated in double precision with a bound on its rounding error (a few
/// units in the last place of the determinant's permanent, the sum of its terms' magnitudes);
/// only when the value is within that bound of zero is it evaluated again exactly, as a sum of
/// doubles that do not overlap (a floating-point expansion: Knuth's two-sum and a fused
/// multiply–add's exact product, accumulated so that the largest term carries the sign).
enum ExactPredicates {
  /// `a + b` as the rounded sum and its exact error.
  @inline(__always) static func twoSum(_ a: Double, _ b: Double) -> (sum: Double, error: Double) {
    let s = a + b
    let bRounded = s - a
    let aRounded = s - bRounded
    return (s, (a - aRounded) + (b - bRounded))
  }

  /// `a · b` as the rounded product and its exact error (fused multiply–add).
  @inline(__always) static func twoProduct(_ a: Double, _ b: Double) -> (product: Double, error: Double) {
    let p = a * b
    return (p, (-p).addingProduct(a, b))
  }

  /// An exact sum of doubles: terms of increasing magnitude that do not overlap, no zeros, so
  /// the last term has the sum's sign.
  struct Expansion {
    var terms: [Double] = []

    /// Adds `b` exactly (grow-expansion with zero elimination).
    mutating func add(_ b: Double) {
      var running = b
      var out: [Double] = []
      out.reserveCapacity(terms.count + 1)
      for e in terms {
        let (s, error) = twoSum(running, e)
        if error != 0 { out.append(error) }
        running = s
      }
      if running != 0 { out.append(running) }
      terms = out
    }

    /// Adds `sign · x · y · z` exactly, each factor given as a sum of two doubles.
    mutating func addProduct(_ sign: Double, _ x: (Double, Double), _ y: (Double, Double), _ z: (Double, Double)) {
      for xi in [x.0, x.1] where xi != 0 {
        for yi in [y.0, y.1] where yi != 0 {
          let (p, e) = twoProduct(sign * xi, yi)
          for zi in [z.0, z.1] where zi != 0 {
            let (pp, pe) = twoProduct(p, zi)
            let (ep, ee) = twoProduct(e, zi)
            add(pe)
            add(ee)
            add(ep)
            add(pp)
          }
        }
      }
    }

    /// Adds `sign · x · y` exactly, each factor a sum of two doubles.
    mutating func addProduct(_ sign: Double, _ x: (Double, Double), _ y: (Double, Double)) {
      for xi in [x.0, x.1] where xi != 0 {
        for yi in [y.0, y.1] where yi != 0 {
          let (p, e) = twoProduct(sign * xi, yi)
          add(e)
          add(p)
        }
      }
    }

    /// −1, 0 or +1.
    var sign: Int { terms.last.map { $0 > 0 ? 1 : -1 } ?? 0 }
  }

  /// `b − a` exactly, as the rounded difference and its error.
  @inline(__always) static func difference(_ b: Double, _ a: Double) -> (Double, Double) { twoSum(b, -a) }

  /// Sign of `(b − a) · ((c − a) × (d − a))`: positive when `d` lies on the side of the plane
  /// through `a`, `b`, `c` that their right-hand normal points to, zero when the four are
  /// coplanar.
  static func orientation(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ d: SIMD3<Double>) -> Int {
    let u = b - a, v = c - a, w = d - a
    let m1 = v.y * w.z, m2 = v.z * w.y, m3 = v.z * w.x, m4 = v.x * w.z, m5 = v.x * w.y, m6 = v.y * w.x
    let det = u.x * (m1 - m2) + u.y * (m3 - m4) + u.z * (m5 - m6)
    let permanent = abs(u.x) * (abs(m1) + abs(m2)) + abs(u.y) * (abs(m3) + abs(m4)) + abs(u.z) * (abs(m5) + abs(m6))
    // The double evaluation errs by at most (7 + 56ε)ε · permanent (ε = 2⁻⁵³; Shewchuk 1997).
    let bound = 1e-14 * permanent
    if det > bound { return 1 }
    if det < -bound { return -1 }
    return exactOrientation(a, b, c, d)
  }

  static func exactOrientation(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ d: SIMD3<Double>) -> Int {
    let ux = difference(b.x, a.x), uy = difference(b.y, a.y), uz = difference(b.z, a.z)
    let vx = difference(c.x, a.x), vy = difference(c.y, a.y), vz = difference(c.z, a.z)
    let wx = difference(d.x, a.x), wy = difference(d.y, a.y), wz = difference(d.z, a.z)
    var sum = Expansion()
    sum.addProduct(1, ux, vy, wz)
    sum.addProduct(-1, ux, vz, wy)
    sum.addProduct(1, uy, vz, wx)
    sum.addProduct(-1, uy, vx, wz)
    sum.addProduct(1, uz, vx, wy)
    sum.addProduct(-1, uz, vy, wx)
    return sum.sign
  }

  /// Sign of `(b − a) × (c − a)` in the plane of coordinates `i` and `j` (`(i, j)` = (0, 1),
  /// (1, 2) or (2, 0) for the component along z, x or y of the 3-D cross product): positive
  /// when `a`, `b`, `c` turn counter-clockwise there.
  static func orientation2D(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ i: Int, _ j: Int) -> Int {
    let ui = b[i] - a[i], uj = b[j] - a[j], vi = c[i] - a[i], vj = c[j] - a[j]
    let l = ui * vj, r = uj * vi
    let det = l - r
    let bound = 1e-14 * (abs(l) + abs(r))
    if det > bound { return 1 }
    if det < -bound { return -1 }
    var sum = Expansion()
    sum.addProduct(1, difference(b[i], a[i]), difference(c[j], a[j]))
    sum.addProduct(-1, difference(b[j], a[j]), difference(c[i], a[i]))
    return sum.sign
  }
}
