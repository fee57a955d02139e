/// The upper median, `values.sorted()[values.count / 2]`, found by selection in O(n)
/// expected time instead of sorting (Hoare's quickselect with a middle pivot).
/// - Precondition: `values` is not empty and holds no NaN.
@inlinable  // specialised in the caller's module: no generic comparisons per step
package func upperMedian<Value: Comparable>(_ values: [Value]) -> Value {
  precondition(!values.isEmpty, "the median of nothing")
  var a = values
  let k = a.count / 2
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
