import ArucoBridge

/// Where to look for markers in the next of a run of consecutive frames: one box round every
/// cap marker seen earlier in the run, reaching a sticker spacing beyond them.
///
/// A marker that was not found in the last frame (it was blurred, turned too far, or had not
/// come into view) lies on the cap next to ones that were: its centre is about one sticker
/// spacing from a found neighbour's. So the box holds each marker seen in the run grown by the
/// detector's `MarkerDetector/regionMargin` (so the search there finds it as the whole-image
/// search does), by the ``spacing`` of the stickers in the image, and by the ``allowance`` for
/// each frame since it was seen: twice the largest corner movement between the last two frames
/// that shared markers (the camera may speed up to twice its last speed between two frames), or
/// the largest marker side before any movement was measured. Only a marker more than a spacing
/// from every one seen (the view uncovered after a hand hid half the cap, say) is left for the
/// next whole-image search.
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
  /// The stickers' spacing in the image, pixels: the median over the last frame that showed two
  /// or more markers of the distance from each marker's centre to its nearest neighbour's.
  private(set) var spacing: Double?

  /// Whether the next frame can be searched in a box: markers have been seen, and the spacing
  /// of the stickers measured.
  var canPredict: Bool { !lastSeen.isEmpty && spacing != nil }

  /// Records the markers found in the frame at position `frame` of the run (positions increase).
  mutating func record(_ markers: [DetectedMarker], frame: Int) {
    if previousFrame == frame - 1, let moved = movement(of: markers) { motion = moved }
    for marker in markers {
      lastSeen[marker.id] = (marker.corners, frame)
      for k in 0..<4 { largestSide = max(largestSide, length(marker.corners[k] - marker.corners[(k + 1) % 4])) }
    }
    if markers.count >= 2 {
      let nearest = markers.map { marker in
        markers.filter { $0.id != marker.id }.map { length($0.centre - marker.centre) }.min() ?? 0
      }.sorted()
      spacing = nearest[nearest.count / 2]
    }
    previousIDs = Set(markers.map(\.id))
    previousFrame = frame
  }

  /// How far a marker may move in one frame and still be inside the box, pixels.
  var allowance: Double { motion.map { 2 * $0 } ?? largestSide }

  /// How far the box reaches beyond the corners of the markers seen in the last frame, less the
  /// detector's margin, pixels: a sticker spacing and a frame's allowance.
  var reach: Double { (spacing ?? 0) + allowance }

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

  /// The box to search in the frame at position `frame` for markers of a detector with
  /// `contextMargin` (`MarkerDetector/regionMargin`), clipped to a `width × height` image;
  /// `nil` when the frame must be searched whole (``canPredict`` is false).
  func region(frame: Int, contextMargin: Int, width: Int, height: Int) -> PixelRegion? {
    guard let spacing, !lastSeen.isEmpty else { return nil }
    var box: PixelRegion?
    for seen in lastSeen.values {
      let margin = Double(contextMargin) + spacing + allowance * Double(max(1, frame - seen.frame))
      guard let around = PixelRegion(around: seen.corners, margin: margin) else { continue }
      box = box.map { $0.union(around) } ?? around
    }
    return box?.clipped(toWidth: width, height: height)
  }
}

private func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
