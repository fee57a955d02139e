import PointCloud
import Testing
import _HeadScanSupport

/// Known answers for the small numerical helpers.
struct NumericsTests {
  @Test func upperMedianEqualsTheSortedMiddleElement() {
    var random = SeededGenerator(seed: 7)
    for count in [1, 2, 3, 4, 5, 10, 11, 100, 257] {
      for _ in 0..<20 {
        // Few distinct values, so ties are common.
        let values = (0..<count).map { _ in Double(random.below(count / 3 + 1)) * 0.5 }
        #expect(upperMedian(values) == values.sorted()[count / 2], "\(values)")
      }
    }
  }

  /// Every order statistic equals the sorted array's element, on random values with and
  /// without ties and on the orders that defeat simple pivots (sorted, reversed, organ pipe,
  /// all equal, two values).
  @Test func orderStatisticsEqualTheSortedElements() {
    var random = SeededGenerator(seed: 11)
    var inputs: [[Double]] = []
    for count in [1, 2, 17, 18, 33, 100, 1000, 4097] {
      inputs.append((0..<count).map { _ in Double(random.below(1_000_000)) / 7 })
      inputs.append((0..<count).map { _ in Double(random.below(4)) })
      inputs.append((0..<count).map(Double.init))
      inputs.append((0..<count).reversed().map(Double.init))
      inputs.append((0..<count).map { Double(min($0, count - 1 - $0)) })
      inputs.append([Double](repeating: 2.5, count: count))
      inputs.append((0..<count).map { Double($0 % 2) })
    }
    for values in inputs {
      let sorted = values.sorted()
      let ks = values.count <= 100 ? Array(values.indices) : [0, 1, values.count / 3, values.count / 2, values.count - 2, values.count - 1]
      for k in ks {
        #expect(orderStatistic(values, k) == sorted[k], "k \(k) of \(values.count)")
      }
    }
  }

  @Test func rootMeanSquareOfKnownValues() {
    #expect(rootMeanSquare([3, 4, 0, 0]) == 2.5)
    #expect(rootMeanSquare(ofSquares: [1, 9]) == 5.0.squareRoot())
    #expect(rootMeanSquare([]) == 0)
    let a: [SIMD3<Double>] = [.zero, SIMD3(1, 0, 0)]
    let b: [SIMD3<Double>] = [SIMD3(0, 3, 4), SIMD3(1, 0, 0)]
    #expect(rootMeanSquareDistance(a, b) == (25.0 / 2).squareRoot())
  }

  /// A parabola sampled exactly is recovered; with noise, the fit matches the closed form
  /// of a straight line's least squares.
  @Test func leastSquaresRecoversKnownCoefficients() throws {
    let xs = stride(from: -2.0, through: 3.0, by: 0.5).map { $0 }
    let parabola = try #require(solveNormalEquations(rows: xs.map { [1, $0, $0 * $0] }, targets: xs.map { 0.5 - 2 * $0 + 0.25 * $0 * $0 }))
    for (found, truth) in zip(parabola, [0.5, -2, 0.25]) { #expect(abs(found - truth) < 1e-12) }

    let ys = [1.0, 2.9, 5.2, 7.1, 8.8]
    let line = try #require(leastSquares(Array(ys.enumerated()), unknowns: 2) { sample, a in
      (a[0], a[1]) = (1, Double(sample.offset))
      return sample.element
    })
    // Closed form: slope = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)², x̄ = 2.
    let mean = ys.reduce(0, +) / 5
    let slope = ys.enumerated().map { (Double($0.offset) - 2) * ($0.element - mean) }.reduce(0, +) / 10
    #expect(abs(line[1] - slope) < 1e-12)
    #expect(abs(line[0] - (mean - 2 * slope)) < 1e-12)
  }

  @Test func singularOrMalformedSystemsHaveNoSolution() {
    // Two identical rows in two unknowns: the normal matrix is singular.
    #expect(solveNormalEquations(rows: [[1, 2], [2, 4]], targets: [1, 2]) == nil)
    #expect(solveNormalEquations(rows: [], targets: []) == nil)
    #expect(solveNormalEquations(rows: [[1, 2], [1]], targets: [1, 2]) == nil)
    #expect(solveLinearSystem([0, 1, 1, 0], [2, 3]) == [3, 2])
    #expect(solveLinearSystem([1, 2, 3], [1]) == nil)
  }

  @Test func csvFieldsQuoteOnlyWhatNeedsIt() {
    #expect(csvField("plain name") == "plain name")
    #expect(csvField("a,b") == "\"a,b\"")
    #expect(csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
    #expect(csvField("two\nlines") == "\"two\nlines\"")
  }

  @Test func secondsSinceCountsForward() {
    let start = ContinuousClock.now - .milliseconds(250)
    let elapsed = seconds(since: start)
    #expect(elapsed >= 0.25 && elapsed < 10)
  }
}
