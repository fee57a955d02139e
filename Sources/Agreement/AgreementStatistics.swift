import Foundation
import _HeadScanSupport

/// Agreement between two methods measuring the same subjects (differences are first minus second).
///
/// - Bland–Altman: bias (mean difference), SD of the differences, 95 % limits of agreement
///   `bias ± 1.96 SD` and their approximate 95 % confidence intervals (Bland & Altman 1999:
///   SE of a limit `≈ SD √(3/n)`, with Student's t at n − 1 degrees of freedom).
/// - Mean absolute difference, Pearson's r.
/// - ICC(2,1): two-way random effects, absolute agreement, single measures (Shrout & Fleiss 1979;
///   McGraw & Wong 1996 "ICC(A,1)").
public struct PairedAgreement: Sendable, Hashable, Codable {
  /// Pairs.
  public var n: Int
  /// Mean difference.
  public var bias: Double
  /// 95 % confidence interval of the bias.
  public var biasCI: ClosedInterval
  /// Standard deviation of the differences (n − 1 denominator).
  public var sd: Double
  /// Lower and upper 95 % limits of agreement.
  public var lowerLoA: Double
  public var upperLoA: Double
  /// Their 95 % confidence intervals.
  public var lowerLoACI: ClosedInterval
  public var upperLoACI: ClosedInterval
  /// Mean absolute difference.
  public var meanAbsoluteDifference: Double
  /// Pearson's correlation of the two methods' values; `nil` when either is constant.
  public var pearsonR: Double?
  /// ICC(2,1); `nil` when undefined (fewer than 2 pairs or no variance at all).
  public var icc: Double?

  /// - Parameters: `first` and `second`: one value per subject each, same order.
  /// - Returns: `nil` for fewer than 2 pairs.
  public init?(first: [Double], second: [Double]) {
    precondition(first.count == second.count, "one value per subject from each method")
    let n = first.count
    guard n >= 2 else { return nil }
    let differences = zip(first, second).map { $0 - $1 }
    let bias = mean(differences)
    let sd = (differences.map { ($0 - bias) * ($0 - bias) }.reduce(0, +) / Double(n - 1)).squareRoot()
    let t = studentTQuantile(0.975, degreesOfFreedom: Double(n - 1))
    self.n = n
    self.bias = bias
    self.sd = sd
    biasCI = ClosedInterval(bias - t * sd / Double(n).squareRoot(), bias + t * sd / Double(n).squareRoot())
    lowerLoA = bias - 1.96 * sd
    upperLoA = bias + 1.96 * sd
    let seLimit = sd * (3 / Double(n)).squareRoot()
    lowerLoACI = ClosedInterval(lowerLoA - t * seLimit, lowerLoA + t * seLimit)
    upperLoACI = ClosedInterval(upperLoA - t * seLimit, upperLoA + t * seLimit)
    meanAbsoluteDifference = mean(differences.map(abs))
    pearsonR = pearson(first, second)
    icc = intraclassCorrelation(first, second)
  }
}

/// A closed interval `[low, high]`.
public struct ClosedInterval: Sendable, Hashable, Codable {
  public var low: Double
  public var high: Double

  public init(_ low: Double, _ high: Double) {
    self.low = low
    self.high = high
  }

  public func contains(_ x: Double) -> Bool { low <= x && x <= high }
}

/// Agreement of two ordinal ratings (e.g. CHOA severity 1–5): confusion table and Cohen's κ.
public struct RatingAgreement: Sendable, Hashable, Codable {
  /// The levels, in order (rows and columns of ``table``).
  public var levels: [Int]
  /// `table[i][j]`: subjects rated `levels[i]` by the first method and `levels[j]` by the second.
  public var table: [[Int]]
  /// Fraction of subjects rated the same.
  public var observedAgreement: Double
  /// Cohen's unweighted κ; `nil` when chance agreement is 1 (every rating one level).
  public var kappa: Double?

  public init(first: [Int], second: [Int], levels: [Int] = [1, 2, 3, 4, 5]) {
    precondition(first.count == second.count, "one rating per subject from each method")
    self.levels = levels
    var table = [[Int]](repeating: [Int](repeating: 0, count: levels.count), count: levels.count)
    for (a, b) in zip(first, second) {
      guard let i = levels.firstIndex(of: a), let j = levels.firstIndex(of: b) else { continue }
      table[i][j] += 1
    }
    self.table = table
    let n = Double(table.joined().reduce(0, +))
    guard n > 0 else {
      observedAgreement = 0
      kappa = nil
      return
    }
    let agree = Double(levels.indices.map { table[$0][$0] }.reduce(0, +)) / n
    let rows = table.map { Double($0.reduce(0, +)) }, columns = levels.indices.map { j in Double(table.map { $0[j] }.reduce(0, +)) }
    let chance = zip(rows, columns).map { $0 * $1 }.reduce(0, +) / (n * n)
    observedAgreement = agree
    kappa = chance < 1 ? (agree - chance) / (1 - chance) : nil
  }
}

func mean(_ x: [Double]) -> Double { x.reduce(0, +) / Double(x.count) }

/// Pearson's r; `nil` when either sample has no variance.
func pearson(_ x: [Double], _ y: [Double]) -> Double? {
  let mx = mean(x), my = mean(y)
  var sxy = 0.0, sxx = 0.0, syy = 0.0
  for (a, b) in zip(x, y) {
    sxy += (a - mx) * (b - my)
    sxx += (a - mx) * (a - mx)
    syy += (b - my) * (b - my)
  }
  guard sxx > 0, syy > 0 else { return nil }
  return sxy / (sxx * syy).squareRoot()
}

/// ICC(2,1) of two raters from the two-way ANOVA mean squares:
/// `(MSR − MSE) / (MSR + (k − 1) MSE + k (MSC − MSE) / n)` with k = 2.
func intraclassCorrelation(_ x: [Double], _ y: [Double]) -> Double? {
  let n = Double(x.count), k = 2.0
  guard x.count >= 2 else { return nil }
  let grand = (x.reduce(0, +) + y.reduce(0, +)) / (n * k)
  let rowMeans = zip(x, y).map { ($0 + $1) / 2 }
  let columnMeans = [mean(x), mean(y)]
  let ssRows = k * rowMeans.map { ($0 - grand) * ($0 - grand) }.reduce(0, +)
  let ssColumns = n * columnMeans.map { ($0 - grand) * ($0 - grand) }.reduce(0, +)
  let ssTotal = (x + y).map { ($0 - grand) * ($0 - grand) }.reduce(0, +)
  let ssError = ssTotal - ssRows - ssColumns
  let msRows = ssRows / (n - 1), msColumns = ssColumns / (k - 1), msError = ssError / ((n - 1) * (k - 1))
  let denominator = msRows + (k - 1) * msError + k * (msColumns - msError) / n
  guard denominator > 0 else { return nil }
  return (msRows - msError) / denominator
}

/// The p-quantile of Student's t with ν degrees of freedom (bisection on the CDF, to 1e-12).
public func studentTQuantile(_ p: Double, degreesOfFreedom nu: Double) -> Double { tQuantile(p, degreesOfFreedom: nu) }

/// Student's t CDF through the regularised incomplete beta function:
/// for t ≥ 0, `F(t) = 1 − ½ I_{ν/(ν+t²)}(ν/2, ½)`.
public func studentTCDF(_ t: Double, degreesOfFreedom nu: Double) -> Double { tCDF(t, degreesOfFreedom: nu) }
