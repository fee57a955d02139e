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

/// `values.sorted()[k]` by Hoare's quickselect with a middle pivot, O(n) expected time.
/// - Precondition: `0 ≤ k < values.count`, no NaN.
@inlinable
package func orderStatistic<Value: Comparable>(_ values: [Value], _ k: Int) -> Value {
  var a = values
  // On the buffer: no bounds or uniqueness checks in the inner loops (the same steps and result).
  return a.withUnsafeMutableBufferPointer { a in
    var low = 0, high = a.count - 1
    while low < high {
      let pivot = a[(low + high) / 2]
      var i = low, j = high
      while i <= j {
        while a[i] < pivot { i += 1 }
        while pivot < a[j] { j -= 1 }
        if i <= j {
          a.swapAt(i, j)
          i += 1
          j -= 1
        }
      }
      if k <= j { high = j } else if k >= i { low = i } else { break }
    }
    return a[k]
  }
}
