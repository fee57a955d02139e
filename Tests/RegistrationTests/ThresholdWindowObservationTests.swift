import ArucoBridge
import Foundation
@testable import Registration
import ScanIO
import Testing
import _TestSupport

/// The observation stage searches a scan with one adaptive-threshold window sized from its own
/// markers (``ObservationOptions/thresholdWindowFromMarkers``) and finds what OpenCV's three
/// windows find, within the markers at the edge of detectability.
struct ThresholdWindowObservationTests {
  @Test func theFixtureIsSearchedWithOneWindowSizedFromItsMarkers() throws {
    let scan = try TUMFolderReader(path: TestFiles.fixture("scans/orbit-small").path)
    let side = try #require(
      try medianMarkerSide(in: scan, parameters: .subpixel, capMarkerCount: scan.header.capMarkerCount, samples: 9))
    // 16 mm stickers 25–40 cm away at 320×240 (fx 296.5 px).
    #expect(side > 10 && side < 25, "median side \(side) px")
    var options = ObservationOptions()
    options.thresholdWindowMinimumCell = 0
    let one = try observeScan(scan, options: options)
    let window = DetectorParameters.thresholdWindow(forMarkerSide: side)
    #expect(one.detector.adaptiveThreshWinSizeMin == window && one.detector.adaptiveThreshWinSizeMax == window)
    var opencv = ObservationOptions()
    opencv.thresholdWindowFromMarkers = false
    let three = try observeScan(scan, options: opencv)
    #expect(three.detector == .subpixel)
    let detections = (one.frames.map(\.diagnostics.detectedIDs.count).reduce(0, +), three.frames.map(\.diagnostics.detectedIDs.count).reduce(0, +))
    #expect(abs(detections.0 - detections.1) <= detections.1 / 20, "\(detections.0) detections with one window, \(detections.1) with three")
    #expect(Set(one.markersDetected).isSuperset(of: three.markersDetected), "\(one.markersDetected) against \(three.markersDetected)")
    // Its 2.9 px cells are under the default's smallest cell: the three windows stay.
    #expect(try observeScan(scan).detector == .subpixel)
  }

  @Test func withoutMarkersInTheSamplesTheDetectorKeepsItsWindows() throws {
    let scan = try TUMFolderReader(path: TestFiles.fixture("scans/orbit-small").path)
    // A cap of no markers: every detection is off the cap, so no sample keeps one.
    #expect(try medianMarkerSide(in: scan, parameters: .subpixel, capMarkerCount: 0, samples: 3) == nil)
  }
}
