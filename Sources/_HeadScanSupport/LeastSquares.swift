/// The normal equations `AᵀA x = Aᵀb` of a linear least-squares problem over samples:
/// `row(sample, a)` writes a sample's coefficients (one per unknown) into `a` and returns its
/// target. `matrix` is `AᵀA`, row-major `unknowns × unknowns`; `vector` is `Aᵀb`.
/// Inlinable so callers in other modules get it specialised for their samples and `row`
/// (unspecialised, the generic iteration and closure calls took most of its time).
@inlinable
package func normalEquations<Samples: Sequence>(
  _ samples: Samples, unknowns n: Int, row: (Samples.Element, inout [Double]) -> Double
) -> (matrix: [Double], vector: [Double]) {
  var m = [Double](repeating: 0, count: n * n), v = [Double](repeating: 0, count: n)
  var a = [Double](repeating: 0, count: n)
  for sample in samples {
    let target = row(sample, &a)
    // The upper triangle only (aᵢaⱼ = aⱼaᵢ exactly, so the mirror below is the same matrix).
    a.withUnsafeBufferPointer { a in
      m.withUnsafeMutableBufferPointer { m in
        v.withUnsafeMutableBufferPointer { v in
          for i in 0..<n {
            v[i] += a[i] * target
            for j in i..<n { m[i * n + j] += a[i] * a[j] }
          }
        }
      }
    }
  }
  for i in 0..<n {
    for j in 0..<i { m[i * n + j] = m[j * n + i] }
  }
  return (m, v)
}

/// Linear least squares over samples (see ``normalEquations(_:unknowns:row:)``), the normal
/// equations solved by ``solveLinearSystem(_:_:)``. For small, well-conditioned systems.
/// - Returns: the `unknowns` coefficients, or `nil` when the system is singular.
///
/// Inlinable like ``normalEquations(_:unknowns:row:)``, so that a caller's samples and `row`
/// reach it specialised (a lifted marker's quadric fits are a tenth of a frame's observation).
@inlinable
package func leastSquares<Samples: Sequence>(
  _ samples: Samples, unknowns n: Int, row: (Samples.Element, inout [Double]) -> Double
) -> [Double]? {
  guard n > 0 else { return nil }
  let (m, v) = normalEquations(samples, unknowns: n, row: row)
  return solveLinearSystem(m, v)
}

/// Linear least squares `rows · x ≈ targets` (each row one sample's coefficients) through the
/// normal equations; `nil` when singular or when there are no rows.
package func solveNormalEquations(rows: [[Double]], targets: [Double]) -> [Double]? {
  guard let n = rows.first?.count, rows.allSatisfy({ $0.count == n }) else { return nil }
  return leastSquares(zip(rows, targets), unknowns: n) { sample, a in
    a = sample.0
    return sample.1
  }
}

/// Solves the square system `m · x = v` (`m` row-major n × n) by Gaussian elimination with
/// partial pivoting; `nil` when a pivot is below 1e-12 (singular for the small systems here).
@usableFromInline
package func solveLinearSystem(_ matrix: [Double], _ vector: [Double]) -> [Double]? {
  let n = vector.count
  guard n > 0, matrix.count == n * n else { return nil }
  var m = matrix, v = vector
  for c in 0..<n {
    guard let pivot = (c..<n).max(by: { abs(m[$0 * n + c]) < abs(m[$1 * n + c]) }), abs(m[pivot * n + c]) > 1e-12 else { return nil }
    if pivot != c {
      for j in 0..<n { m.swapAt(c * n + j, pivot * n + j) }
      v.swapAt(c, pivot)
    }
    for r in (c + 1)..<n {
      let f = m[r * n + c] / m[c * n + c]
      if f == 0 { continue }
      for j in c..<n { m[r * n + j] -= f * m[c * n + j] }
      v[r] -= f * v[c]
    }
  }
  var x = [Double](repeating: 0, count: n)
  for r in stride(from: n - 1, through: 0, by: -1) {
    var s = v[r]
    for j in (r + 1)..<n { s -= m[r * n + j] * x[j] }
    x[r] = s / m[r * n + r]
  }
  return x
}
