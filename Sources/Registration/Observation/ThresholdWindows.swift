import ArucoBridge
import ScanIO
import _HeadScanSupport

/// How the marker detector's adaptive-threshold windows are chosen for a scan
/// (``ObservationOptions/thresholdWindows``).
///
/// OpenCV's detector thresholds the grey image once a window size (its defaults: 3, 13 and
/// 23 px) and looks for marker outlines in each result. A marker's black border is one cell
/// wide (a cell is the marker's side over the cells across it, 6 for `DICT_4X4_50`): a window
/// about two cells wide fills the borders of the scan's typical markers, and the smallest
/// window, which marks dark pixels next to any sharp edge, keeps the markers seen smaller or
/// more obliquely than those. OpenCV's 13 and 23 px windows, four to seven cells of markers of
/// 17–30 px, add few detections: the two windows observe a frame in about three quarters of the
/// time (docs/registration.md and docs/performance.md have the measurements).
public enum ThresholdWindows: Sendable, Hashable {
  /// The detector parameters' own windows on every frame.
  case detectorParameters
  /// Two windows: the detector parameters' smallest, and one `cellsPerWindow` times the median
  /// cell of the markers found in ``sampleFrames`` evenly spaced frames searched with the
  /// detector parameters' windows (rounded to an odd number of pixels, at least 3). A frame
  /// where these find fewer cap markers than ``ObservationOptions/searchAgainBelowMarkers`` is
  /// searched again with the detector parameters' windows.
  /// When the sample frames hold no cap marker, or `cellsPerWindow` is not a positive number,
  /// every frame is searched with those.
  case fromMarkerSize(cellsPerWindow: Double = ThresholdWindows.cellsPerWindow)

  /// The default window, in cells of the scan's median marker (docs/registration.md,
  /// "Observation", threshold windows).
  public static let cellsPerWindow = 2.0
  /// Frames sampled to measure the markers' size: evenly spaced over the scan.
  public static let sampleFrames = 24
}

/// The adaptive-threshold window sized from a scan's markers, which its frames were searched
/// with besides the detector parameters' smallest, and what it was chosen from
/// (``ThresholdWindows/fromMarkerSize(cellsPerWindow:)``).
public struct ThresholdWindowChoice: Sendable, Hashable, Codable {
  /// The window's side, pixels (odd).
  public var window: Int
  /// The median cell of the markers found in the sample frames, pixels (marker side in the
  /// image over the cells across a marker).
  public var markerCell: Double
  /// Frames sampled and the cap-marker detections found in them.
  public var sampleFrames: Int
  public var sampleDetections: Int
  /// Frames where the two windows found fewer cap markers than a frame needs to be placed,
  /// searched again with the detector parameters' windows.
  public var framesSearchedAgain = 0

  /// The window for markers whose median cell is `markerCell` pixels: `cellsPerWindow` cells,
  /// rounded to the nearest odd number of pixels, at least 3.
  public static func window(markerCell: Double, cellsPerWindow: Double) -> Int {
    // The odd integers nearest x are 2⌊x/2⌋ + 1.
    let pixels = min(max(markerCell * cellsPerWindow, 3), 255)
    return 2 * Int((pixels / 2).rounded(.down)) + 1
  }

  /// A detector like `detector` thresholding with its smallest window and this one: what
  /// ``observeScan(_:options:progress:)`` searches the scan's frames with.
  /// - Throws: `ArucoError` where OpenCV refuses the parameters.
  public func detector(like detector: MarkerDetector) throws -> MarkerDetector {
    var parameters = detector.parameters
    let smallest = parameters.adaptiveThreshWinSizeMin
    parameters.adaptiveThreshWinSizeMax = max(smallest, window)
    parameters.adaptiveThreshWinSizeStep = max(1, window - smallest)
    return try MarkerDetector(dictionary: detector.dictionary, parameters: parameters)
  }
}

extension DetectedMarker {
  /// Mean length of the four sides, pixels.
  var meanSide: Double {
    var sum = 0.0
    for k in 0..<4 {
      let edge = corners[(k + 1) % 4] - corners[k]
      sum += (edge * edge).sum().squareRoot()
    }
    return sum / 4
  }
}

/// Chooses the scan's threshold window (``ThresholdWindows``): `nil` where every frame is
/// searched with `detector`'s own windows.
func chooseThresholdWindow(
  _ scan: any ScanReader, detector: MarkerDetector, capMarkerCount: Int?, windows: ThresholdWindows, workers: Int
) throws -> ThresholdWindowChoice? {
  guard case .fromMarkerSize(let cellsPerWindow) = windows else { return nil }
  guard cellsPerWindow.isFinite, cellsPerWindow > 0 else { return nil }
  let count = min(scan.frameCount, ThresholdWindows.sampleFrames)
  let sample = (0..<count).map { ($0 * scan.frameCount + scan.frameCount / 2) / max(1, count) }
  var sides: [Double] = []
  try forEachInParallelBatches(
    sample, workers: workers,
    work: { index in
      let frame = try scan.frame(at: index)
      return try detector.detect(grey: frame.color.grey(), width: frame.color.width, height: frame.color.height)
        .filter { $0.isOnCap(capMarkerCount) }.map(\.meanSide)
    },
    consume: { sides += $0 })
  guard !sides.isEmpty else { return nil }
  let cell = lowerMedian(sides) / Double(detector.cellsAcross)
  return ThresholdWindowChoice(
    window: ThresholdWindowChoice.window(markerCell: cell, cellsPerWindow: cellsPerWindow), markerCell: cell,
    sampleFrames: count, sampleDetections: sides.count)
}
