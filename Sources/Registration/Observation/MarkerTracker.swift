import ArucoBridge

/// Where to look for markers in the next of a run of consecutive frames: around where each was
/// last seen in the run, grown by how far markers moved between the run's frames.
///
/// A marker's region is the box round its last corners grown by the detector's
/// `MarkerDetector/regionMargin` (so the search there finds it as the whole-image search does)
/// plus the ``allowance`` for each frame since it was seen: twice the largest corner movement
/// between the last two frames that shared markers (the camera may speed up to twice its last
/// speed between two frames), or the largest marker side before any movement was measured.
/// Overlapping regions are merged.
struct MarkerTracker {
  /// Each id's last corners (pixels) and the frame (position in the run) it was seen in.
  private var lastSeen: [Int: (corners: [SIMD2<Double>], frame: Int)] = [:]
  /// The largest corner movement between the last two consecutive frames sharing a marker, pixels a frame.
  private var motion: Double?
  /// The largest marker side seen, pixels: the movement assumed before any was measured.
  private var largestSide = 0.0
  /// Ids found in the last recorded frame.
  private(set) var previousIDs: Set<Int> = []
  /// The last recorded frame's position.
  private var previousFrame: Int?

  /// Whether any marker has been seen.
  var isEmpty: Bool { lastSeen.isEmpty }

  /// Records the markers found in the frame at position `frame` of the run (positions increase).
  mutating func record(_ markers: [DetectedMarker], frame: Int) {
    if previousFrame == frame - 1, let moved = movement(of: markers) { motion = moved }
    for marker in markers {
      lastSeen[marker.id] = (marker.corners, frame)
      for k in 0..<4 { largestSide = max(largestSide, length(marker.corners[k] - marker.corners[(k + 1) % 4])) }
    }
    previousIDs = Set(markers.map(\.id))
    previousFrame = frame
  }

  /// How far a marker may move in one frame and still be inside its region, pixels.
  var allowance: Double { motion.map { 2 * $0 } ?? largestSide }

  /// The largest corner movement of `markers` from where they were in the last recorded frame,
  /// pixels; `nil` when none of them was in it.
  func movement(of markers: [DetectedMarker]) -> Double? {
    guard let previousFrame else { return nil }
    var moved: Double?
    for marker in markers {
      guard let seen = lastSeen[marker.id], seen.frame == previousFrame else { continue }
      moved = max(moved ?? 0, zip(seen.corners, marker.corners).map { length($0 - $1) }.max() ?? 0)
    }
    return moved
  }

  /// The regions to search in the frame at position `frame` for markers of a detector with
  /// `contextMargin` (`MarkerDetector/regionMargin`), clipped to a `width × height` image.
  func regions(frame: Int, contextMargin: Int, width: Int, height: Int) -> [PixelRegion] {
    let perFrame = allowance
    var boxes = lastSeen.keys.sorted(by: >).compactMap { id -> PixelRegion? in
      guard let seen = lastSeen[id] else { return nil }
      return PixelRegion(around: seen.corners, margin: Double(contextMargin) + perFrame * Double(max(1, frame - seen.frame)))?
      .clipped(toWidth: width, height: height)
    }
    // Merge overlapping boxes until none overlap.
    var merged: [PixelRegion] = []
    while var box = boxes.popLast() {
      var grown = true
      while grown {
        grown = false
        if let k = merged.firstIndex(where: { $0.intersects(box) }) {
          box = box.union(merged.remove(at: k))
          grown = true
        }
      }
      merged.append(box)
    }
    return merged.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
  }
}

private func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
