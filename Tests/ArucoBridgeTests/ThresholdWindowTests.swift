import ArucoBridge
import Testing

/// One adaptive-threshold window sized from the markers' side in pixels
/// (`DetectorParameters.thresholdWindow(forMarkerSide:)`).
struct ThresholdWindowTests {
  @Test func theWindowIsTheOddNumberNearestHalfTheSide() {
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: 24.1) == 13)
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: 25.1) == 13)
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: 17.7) == 9)
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: 35.8) == 17)
    for side in stride(from: 0.5, through: 200, by: 0.7) {
      let w = DetectorParameters.thresholdWindow(forMarkerSide: side)
      #expect(w % 2 == 1 && w >= 3)
      #expect(w == 3 || abs(Double(w) - side / 2) <= 1, "side \(side) → \(w)")
    }
  }

  @Test func nonsenseSidesGiveTheSmallestWindow() {
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: .nan) == 3)
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: -4) == 3)
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: .infinity) == 3)
    #expect(DetectorParameters.thresholdWindow(forMarkerSide: 1e300) > 3)
  }

  @Test func oneWindowFindsADrawnMarkerWithTheCornersOfThree() throws {
    // A 4×4 marker drawn at 36 px inside a 100 px white page.
    let bitmap = try MarkerBitmap(dictionary: "DICT_4X4_50", id: 7, sidePixels: 36)
    var page = [UInt8](repeating: 255, count: 100 * 100)
    for y in 0..<36 { for x in 0..<36 { page[(y + 30) * 100 + x + 31] = bitmap[x, y] } }
    let three = try MarkerDetector(dictionary: "DICT_4X4_50", parameters: .subpixel).detect(grey: page, width: 100, height: 100)
    let parameters = DetectorParameters.subpixel.withThresholdWindow(forMarkerSide: 36)
    #expect(parameters.adaptiveThreshWinSizeMin == 17 && parameters.adaptiveThreshWinSizeMax == 17)
    let one = try MarkerDetector(dictionary: "DICT_4X4_50", parameters: parameters).detect(grey: page, width: 100, height: 100)
    #expect(one.map(\.id) == [7] && three.map(\.id) == [7])
    for (a, b) in zip(one[0].corners, three[0].corners) { #expect(((a - b) * (a - b)).sum().squareRoot() < 0.05) }
  }
}
