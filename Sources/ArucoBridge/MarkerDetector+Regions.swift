internal import _ArucoShim

extension MarkerDetector {
  /// How far, in pixels, a region must reach beyond a marker's corners on every side for
  /// ``detect(grey:width:height:in:)`` to find the marker with the corners a search of the whole
  /// image gives it: half the largest adaptive-threshold window (the thresholds near the marker
  /// see the same pixels), the corner refinement's window, the distance OpenCV keeps from an
  /// image's edge, and two pixels for the corners' movement during refinement.
  public var regionMargin: Int {
    parameters.adaptiveThreshWinSizeMax / 2 + parameters.cornerRefinementWinSize + parameters.minDistanceToBorder + 2
  }

  /// Detects markers inside regions of a grey image (one byte a pixel, rows tightly packed).
  ///
  /// Each region is searched on its own with the whole image's size limits, so a marker that
  /// lies inside a region with ``regionMargin`` to spare is found with the same id and corners
  /// (bit for bit: sub-pixel corners are refined in the whole image) as by
  /// ``detect(grey:width:height:)``; markers elsewhere are not found. (A region can rarely find
  /// a marker the whole-image search misses: OpenCV groups nearby candidates, and a candidate
  /// outside the region may win the group there.)
  /// Regions are clipped to the image; a marker found in two overlapping regions is given once.
  /// - Returns: the markers, corners in the whole image's pixels, sorted by id.
  /// - Throws: ``ArucoError/invalidArgument(_:)`` when the buffer is smaller than the image.
  public func detect(grey pixels: [UInt8], width: Int, height: Int, in regions: [PixelRegion]) throws(ArucoError) -> [DetectedMarker] {
    guard width > 0, height > 0, pixels.count >= width * height else {
      throw .invalidArgument("grey buffer holds \(pixels.count) bytes, \(width)×\(height) needs \(width * height)")
    }
    var markers: [DetectedMarker] = []
    for region in regions {
      guard let inside = region.clipped(toWidth: width, height: height) else { continue }
      let found = try collect { ids, corners, capacity, count, message, messageCapacity in
        pixels.withUnsafeBufferPointer { buffer in
          arb_detector_detect_region(
            handle, buffer.baseAddress, Int32(clamping: width), Int32(clamping: height), Int32(clamping: width),
            Int32(clamping: inside.x), Int32(clamping: inside.y), Int32(clamping: inside.width), Int32(clamping: inside.height),
            ids, corners, capacity, count, message, messageCapacity)
        }
      }
      for marker in found where !markers.contains(where: { $0.id == marker.id && simdLength($0.centre - marker.centre) < 1 }) {
        markers.append(marker)
      }
    }
    return markers.sorted(by: DetectedMarker.detectionOrder)
  }
}

private func simdLength(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
