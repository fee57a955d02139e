/// The format's fixed sizes and the L, M, D value codes, and the construction of the
/// finite-state-entropy (tANS) decoding tables from a block's frequencies.
enum LZFSETables {
  /// Most literals one block may hold.
  static let maximumLiteralCount = 40_000
  /// Most (L, M, D) triples one block may hold.
  static let maximumMatchCount = 10_000
  /// States of the literal decoders, and of the L, M and D decoders.
  static let literalStateCount = 1024, lStateCount = 64, mStateCount = 64, dStateCount = 256
  /// Symbols of the L, M, D and literal alphabets.
  static let lSymbolCount = 20, mSymbolCount = 20, dSymbolCount = 64, literalSymbolCount = 256
  /// All frequencies of a block header: L, M, D, literals.
  static let frequencyCount = lSymbolCount + mSymbolCount + dSymbolCount + literalSymbolCount

  /// Extra bits read after each L symbol; symbol i stands for values `base[i] ..< base[i] + 2^extra[i]`.
  static let lExtraBits: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 5, 8]
  /// Extra bits read after each M symbol.
  static let mExtraBits: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 8, 11]
  /// Extra bits read after each D symbol: symbols come in fours, 0 extra bits for the first
  /// four, then one more bit each four (`i / 4`).
  static let dExtraBits: [UInt8] = (0..<64).map { UInt8($0 / 4) }

  /// The first value of each symbol: the values are contiguous, so each base is the previous
  /// base plus the previous symbol's value count.
  static func baseValues(_ extraBits: [UInt8]) -> [Int32] {
    var bases: [Int32] = [], next: Int32 = 0
    for bits in extraBits {
      bases.append(next)
      next += 1 << Int32(bits)
    }
    return bases
  }

  static let lBaseValues = baseValues(lExtraBits)
  static let mBaseValues = baseValues(mExtraBits)
  static let dBaseValues = baseValues(dExtraBits)

  /// For a symbol of frequency `frequency` among `stateCount` states (a power of two): the
  /// number of state bits `k` such that `stateCount <= frequency << k < 2 * stateCount`, and
  /// how many of its states (`threshold`) read `k` bits; the others read `k - 1`.
  ///
  /// The symbol's j-th state moves to `delta + next bits`, where `delta` is
  /// `((frequency + j) << k) - stateCount` below the threshold and `(j - threshold) << (k - 1)`
  /// from it on; both stay below `stateCount`.
  @inline(__always)
  private static func spread(frequency: Int, stateCount: Int, state j: Int) -> (bits: Int, delta: Int) {
    let k = frequency.leadingZeroBitCount - stateCount.leadingZeroBitCount
    let threshold = ((2 * stateCount) >> k) - frequency
    if j < threshold { return (k, ((frequency + j) << k) - stateCount) }
    return (k - 1, (j - threshold) << (k - 1))
  }

  /// Fills `table` (`stateCount` entries) for the literal alphabet: each entry packs the bits
  /// to read (bits 0–7), the symbol (8–15) and the next state's delta (16–31). Unused states,
  /// when the frequencies sum below `stateCount`, decode symbol 0 and stay in state 0.
  /// Returns `false` when the frequencies sum past `stateCount`.
  static func fillLiteralTable(
    _ table: UnsafeMutablePointer<UInt32>, stateCount: Int, frequencies: ArraySlice<UInt16>
  ) -> Bool {
    guard frequencies.reduce(0, { $0 + Int($1) }) <= stateCount else { return false }
    table.update(repeating: 0, count: stateCount)
    var state = 0
    for (symbol, frequency) in zip(0..., frequencies.lazy.map(Int.init)) where frequency > 0 {
      for j in 0..<frequency {
        let (bits, delta) = spread(frequency: frequency, stateCount: stateCount, state: j)
        table[state] = UInt32(bits) | UInt32(symbol) << 8 | UInt32(delta) << 16
        state += 1
      }
    }
    return true
  }

  /// Fills `table` (`stateCount` entries) for an L, M or D alphabet: each entry holds the state
  /// bits plus extra bits to read, the extra bits, the next state's delta and the symbol's
  /// base value. Unused states decode value 0 and stay in state 0. Returns `false` when the
  /// frequencies sum past `stateCount`.
  static func fillValueTable(
    _ table: UnsafeMutablePointer<ValueDecoderEntry>, stateCount: Int, frequencies: ArraySlice<UInt16>,
    extraBits: [UInt8], baseValues: [Int32]
  ) -> Bool {
    guard frequencies.reduce(0, { $0 + Int($1) }) <= stateCount else { return false }
    table.update(repeating: ValueDecoderEntry(totalBits: 0, valueBits: 0, delta: 0, base: 0), count: stateCount)
    var state = 0
    for (symbol, frequency) in zip(0..., frequencies.lazy.map(Int.init)) where frequency > 0 {
      for j in 0..<frequency {
        let (bits, delta) = spread(frequency: frequency, stateCount: stateCount, state: j)
        table[state] = ValueDecoderEntry(
          totalBits: UInt8(bits) + extraBits[symbol], valueBits: extraBits[symbol], delta: UInt16(delta),
          base: baseValues[symbol])
        state += 1
      }
    }
    return true
  }
}

/// One state of an L, M or D decoding table.
struct ValueDecoderEntry {
  /// State bits plus extra value bits to read.
  var totalBits: UInt8
  /// Extra value bits (the low bits of those read).
  var valueBits: UInt8
  /// Added to the state bits to give the next state.
  var delta: UInt16
  /// The symbol's first value.
  var base: Int32
}
