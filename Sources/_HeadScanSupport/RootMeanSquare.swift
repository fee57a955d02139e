/// Root mean square of values given as their squares: `sqrt(Σ squares / count)`; 0 for none.
package func rootMeanSquare(ofSquares squares: [Double]) -> Double {
  guard !squares.isEmpty else { return 0 }
  return (squares.reduce(0, +) / Double(squares.count)).squareRoot()
}

/// Root mean square of `values`; 0 for none.
package func rootMeanSquare(_ values: [Double]) -> Double {
  rootMeanSquare(ofSquares: values.map { $0 * $0 })
}

/// Root mean square distance between corresponding points (same unit as the points); 0 for none.
/// - Precondition: `a` and `b` have the same count.
package func rootMeanSquareDistance(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> Double {
  precondition(a.count == b.count, "the point lists must correspond")
  return rootMeanSquare(ofSquares: zip(a, b).map { p, q in ((p - q) * (p - q)).sum() })
}
