/// The longest run of unoccupied bins around a circle (wrapping from the last bin to the
/// first), in bins: the whole circle when none is occupied, 0 when all are.
package func largestGap(occupied: [Bool]) -> Int {
  var gap = 0, largest = 0
  for k in 0..<(2 * occupied.count) {
    if occupied[k % occupied.count] {
      gap = 0
    } else {
      gap += 1
      largest = max(largest, min(gap, occupied.count))
    }
  }
  return largest
}
