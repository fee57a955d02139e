/// One level of the coarse-to-fine harmonic fill of ``ImplicitGrid``: free vertices take the
/// mean of their six neighbours (Laplace's equation), fixed ones keep their value.
struct DiffusionLevel {
  let size: SIMD3<Int>
  var values: [Float]
  let fixed: [Bool]

  /// Solves for the free values: on a grid half as fine first (recursively, until it is
  /// small), whose solution, interpolated, starts Gauss–Seidel sweeps here. Boundary vertices
  /// must be fixed.
  mutating func solve(outside: Float) {
    let coarse = (size &- 1) / 2 &+ 1
    if size.min() > 8, coarse.max() >= 6 {
      var lower = restricted(to: coarse, outside: outside)
      lower.solve(outside: outside)
      prolong(from: lower)
      sweep(rounds: 100, tolerance: 1e-5 * outside, near: 4)
    } else {
      sweep(rounds: 4000, tolerance: 1e-5 * outside, near: nil)
    }
  }

  /// A level with every other vertex: fixed where any fine vertex within one step is fixed
  /// (keeping a thin measured shell closed), with their mean value; boundary fixed outside.
  private func restricted(to coarse: SIMD3<Int>, outside: Float) -> DiffusionLevel {
    var values = [Float](repeating: outside, count: coarse.x * coarse.y * coarse.z)
    var fixed = [Bool](repeating: false, count: values.count)
    let size = self.size
    self.values.withUnsafeBufferPointer { fineValues in
      self.fixed.withUnsafeBufferPointer { fineFixed in
        for k in 0..<coarse.z {
          for j in 0..<coarse.y {
            for i in 0..<coarse.x {
              let c = (k * coarse.y + j) * coarse.x + i
              if i == 0 || j == 0 || k == 0 || i == coarse.x - 1 || j == coarse.y - 1 || k == coarse.z - 1 {
                fixed[c] = true
                continue
              }
              var sum: Float = 0
              var n = 0
              for fk in max(0, 2 * k - 1)...min(size.z - 1, 2 * k + 1) {
                for fj in max(0, 2 * j - 1)...min(size.y - 1, 2 * j + 1) {
                  let row = (fk * size.y + fj) * size.x
                  for fi in max(0, 2 * i - 1)...min(size.x - 1, 2 * i + 1) where fineFixed[row + fi] {
                    sum += fineValues[row + fi]
                    n += 1
                  }
                }
              }
              if n > 0 {
                fixed[c] = true
                values[c] = sum / Float(n)
              }
            }
          }
        }
      }
    }
    return DiffusionLevel(size: coarse, values: values, fixed: fixed)
  }

  /// Free vertices take the trilinear interpolation of the coarse solution.
  private mutating func prolong(from coarse: DiffusionLevel) {
    let cs = coarse.size, size = self.size
    coarse.values.withUnsafeBufferPointer { c in
      fixed.withUnsafeBufferPointer { fixed in
        values.withUnsafeMutableBufferPointer { u in
          for k in 0..<size.z {
            let k0 = min(k / 2, cs.z - 1), k1 = min(k0 + (k & 1), cs.z - 1)
            for j in 0..<size.y {
              let j0 = min(j / 2, cs.y - 1), j1 = min(j0 + (j & 1), cs.y - 1)
              let r00 = (k0 * cs.y + j0) * cs.x, r01 = (k0 * cs.y + j1) * cs.x
              let r10 = (k1 * cs.y + j0) * cs.x, r11 = (k1 * cs.y + j1) * cs.x
              let row = (k * size.y + j) * size.x
              for i in 0..<size.x where !fixed[row + i] {
                let i0 = min(i / 2, cs.x - 1), i1 = min(i0 + (i & 1), cs.x - 1)
                let sum = c[r00 + i0] + c[r00 + i1] + c[r01 + i0] + c[r01 + i1] + c[r10 + i0] + c[r10 + i1] + c[r11 + i0] + c[r11 + i1]
                u[row + i] = sum / 8
              }
            }
          }
        }
      }
    }
  }

  /// Vertices within `steps` (along the axes) of one whose sign differs from a neighbour's.
  private func nearZero(_ steps: Int) -> [Bool] {
    let sx = size.x, sxy = size.x * size.y, n = values.count
    var marked = [Bool](repeating: false, count: n)
    values.withUnsafeBufferPointer { u in
      for v in sxy..<(n - sxy) {
        let s = u[v] >= 0
        if (u[v + 1] >= 0) != s || (u[v + sx] >= 0) != s || (u[v + sxy] >= 0) != s {
          marked[v] = true
          marked[v + 1] = true
          marked[v + sx] = true
          marked[v + sxy] = true
        }
      }
    }
    for _ in 0..<steps {
      var grown = marked
      marked.withUnsafeBufferPointer { m in
        for v in sxy..<(n - sxy) where !m[v] {
          grown[v] = m[v - 1] || m[v + 1] || m[v - sx] || m[v + sx] || m[v - sxy] || m[v + sxy]
        }
      }
      marked = grown
    }
    return marked
  }

  /// Gauss–Seidel sweeps over the free vertices — only those within `near` steps of a sign
  /// change when given (farther away the interpolated coarser solution is kept: only the zero
  /// level matters) — at most `rounds`, stopping early once no value moves more than `tolerance`.
  private mutating func sweep(rounds: Int, tolerance: Float, near: Int?) {
    var free: [Int32] = []
    let band = near.map(nearZero)
    fixed.withUnsafeBufferPointer { fixed in
      for v in 0..<fixed.count where !fixed[v] && (band?[v] ?? true) { free.append(Int32(v)) }
    }
    let sx = size.x, sxy = size.x * size.y
    values.withUnsafeMutableBufferPointer { u in
      free.withUnsafeBufferPointer { free in
      for _ in 0..<rounds {
        var largest: Float = 0
        for f in free {
          let v = Int(f)
          let mean = (u[v - 1] + u[v + 1] + u[v - sx] + u[v + sx] + u[v - sxy] + u[v + sxy]) / 6
          largest = max(largest, abs(mean - u[v]))
          u[v] = mean
        }
        if largest <= tolerance { break }
      }
      }
    }
  }
}
