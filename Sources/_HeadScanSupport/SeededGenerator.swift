import Foundation

/// SplitMix64 (Steele, Lea & Flood 2014) with a few distributions: the only source of
/// randomness in headscan (the simulator, the bootstrap), so a seed fixes every result
/// bit for bit on every platform.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  package init(seed: UInt64) { state = seed }

  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in [0, 1).
  package mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

  /// Uniform in 0..<n; the modulo bias is below 2⁻⁴⁰ for any n under 2²⁴.
  /// - Precondition: n > 0 (a programmer error otherwise: there is nothing to draw from).
  package mutating func below(_ n: Int) -> Int {
    precondition(n > 0, "a draw from an empty range")
    return Int(next() % UInt64(n))
  }

  /// Standard normal (Box–Muller).
  package mutating func gaussian() -> Double {
    let u = max(uniform(), 1e-300), v = uniform()
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }
}
