import ArucoBridge
import Testing
import _ArucoShim

/// Bad input to the C shim comes back as a status and a message, never a crash.
struct ShimContractTests {
  @Test func unknownDictionaryIsATypedError() {
    #expect(throws: ArucoError.unknownDictionary("DICT_9X9_1")) {
      try MarkerDetector(dictionary: "DICT_9X9_1")
    }
  }

  @Test func zeroSizedImageIsRejected() throws {
    let detector = try MarkerDetector(dictionary: "DICT_4X4_50")
    #expect(throws: ArucoError.self) { try detector.detect(grey: [], width: 0, height: 0) }
  }

  @Test func undersizedBufferIsRejectedBeforeOpenCVSeesIt() throws {
    let detector = try MarkerDetector(dictionary: "DICT_4X4_50")
    #expect(throws: ArucoError.self) { try detector.detect(bgra: [0, 0, 0], width: 10, height: 10) }
  }

  @Test func nullPointersGiveAStatusFromTheCLayer() {
    var message = [CChar](repeating: 0, count: 128)
    var count: Int32 = 7
    let status = arb_detector_detect(nil, nil, 10, 10, 10, 1, nil, nil, 0, &count, &message, message.count)
    #expect(status == ARB_INVALID_ARGUMENT)
    #expect(count == 0)
    #expect(String(decoding: message.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self).contains("null"))
  }

  @Test func markerIdOutsideTheDictionaryIsRejected() {
    #expect(throws: ArucoError.self) { try MarkerBitmap(dictionary: "DICT_4X4_50", id: 50, sidePixels: 60) }
  }

  @Test func opencvDefaultsAreOpenCVs() {
    let p = DetectorParameters.opencvDefault
    #expect(p.cornerRefinement == .none)
    #expect(p.adaptiveThreshWinSizeMin == 3 && p.adaptiveThreshWinSizeMax == 23 && p.adaptiveThreshWinSizeStep == 10)
    #expect(p.markerBorderBits == 1)
  }

  @Test func drawnMarkerIsDetectedWithItsId() throws {
    // A 4×4 marker drawn at 60 px inside a 100 px white page.
    let bitmap = try MarkerBitmap(dictionary: "DICT_4X4_50", id: 23, sidePixels: 60)
    var page = [UInt8](repeating: 255, count: 100 * 100)
    for y in 0..<60 { for x in 0..<60 { page[(y + 20) * 100 + x + 20] = bitmap[x, y] } }
    let found = try MarkerDetector(dictionary: "DICT_4X4_50").detect(grey: page, width: 100, height: 100)
    #expect(found.map(\.id) == [23])
  }
}
