/// The upper median, `values.sorted()[values.count / 2]`, found by selection in O(n)
/// expected time instead of sorting.
/// - Precondition: `values` is not empty and holds no NaN.
@inlinable  // specialised in the caller's module: no generic comparisons per step
package func upperMedian<Value: Comparable>(_ values: [Value]) -> Value {
  precondition(!values.isEmpty, "the median of nothing")
  return orderStatistic(values, values.count / 2)
}

/// The lower median, `values.sorted()[(values.count - 1) / 2]` (the same as ``upperMedian(_:)``
/// for an odd count), by selection.
/// - Precondition: `values` is not empty and holds no NaN.
@inlinable
package func lowerMedian<Value: Comparable>(_ values: [Value]) -> Value {
  precondition(!values.isEmpty, "the median of nothing")
  return orderStatistic(values, (values.count - 1) / 2)
}

/// `values.sorted()[k]` by quickselect, O(n) expected time.
///
/// Each step takes the median of the range's first, middle and last elements as pivot and
/// moves the elements below it to the front, then those equal to it after them, in passes
/// without a data-dependent branch (every element is swapped; a comparison's result only moves
/// the end of the front part, by the comparison's bit), so unpredictable comparisons cost no mispredicted branches. A
/// k among the equal ones returns the pivot; otherwise the search goes on in the part that
/// holds k. Ranges of 16 or fewer are sorted, as is a range still large after 2·log₂ n + 8
/// steps (so the worst case stays O(n log n)). Any correct selection returns the same value.
/// - Precondition: `0 ≤ k < values.count`, no NaN.
@inlinable
package func orderStatistic<Value: Comparable>(_ values: [Value], _ k: Int) -> Value {
  precondition(k >= 0 && k < values.count, "order statistic out of range")
  var a = values
  // On the buffer: no bounds or uniqueness checks in the inner loops.
  return a.withUnsafeMutableBufferPointer { a in
    var low = 0, high = a.count  // the half-open range holding k
    var steps = 2 * (Int.bitWidth - high.leadingZeroBitCount) + 8
    while high - low > 16 && steps > 0 {
      steps -= 1
      let x = a[low], y = a[low + (high - low) / 2], z = a[high - 1]
      let pivot = max(min(x, y), min(max(x, y), z))
      // Below the pivot to the front: [low, less).
      var less = low
      for i in low..<high {
        let v = a[i]
        a[i] = a[less]
        a[less] = v
        less &+= Int(unsafeBitCast(v < pivot, to: UInt8.self))
      }
      if k < less {
        high = less
        continue
      }
      // Equal to the pivot next: [less, equal); the pivot is among them, so the range shrinks.
      // Nothing from `less` on is below the pivot, so equal is not above it.
      var equal = less
      for i in less..<high {
        let v = a[i]
        a[i] = a[equal]
        a[equal] = v
        equal &+= Int(unsafeBitCast(!(pivot < v), to: UInt8.self))
      }
      if k < equal { return pivot }
      low = equal
    }
    a[low..<high].sort()
    return a[k]
  }
}
