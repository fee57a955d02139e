import Foundation
import Testing
import _TestSupport

/// `--threshold-window`: the default sizes a window from the scan's markers and `reconstruct -v`
/// says which; `opencv` searches with OpenCV's three windows and prints no such line. And
/// `--marker-search`, the other option of the marker detection.
struct ThresholdWindowOptionTests {
  @Test func reconstructSaysWhichWindowItUsed() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = TestFiles.fixture("scans/orbit-small").path
      let sized = try Headscan.run(["reconstruct", scan, "-o", folder.appendingPathComponent("a.ply").path, "-v"])
      #expect(sized.status == 0, "\(sized.stderr)")
      // 320×240 stickers of about 18 px: cells of 3 px, a window of 5 px.
      #expect(sized.stdout.contains("threshold window, px 5, frames searched again with every window 0"), "\(sized.stdout)")
      let opencv = try Headscan.run(["reconstruct", scan, "-o", folder.appendingPathComponent("b.ply").path, "-v", "--threshold-window", "opencv"])
      #expect(opencv.status == 0, "\(opencv.stderr)")
      #expect(!opencv.stdout.contains("threshold window"), "\(opencv.stdout)")
    }
  }

  /// `--marker-search`: tracked (the default) searches the run starts and frames whose box
  /// missed markers whole, 5 of the fixture's 36 frames, and finds what `whole` finds searching
  /// all 36: the same cloud byte for byte.
  @Test func trackedFramesGiveTheCloudOfWholeSearches() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = TestFiles.fixture("scans/orbit-small").path
      var clouds: [Data] = []
      for (search, whole) in [("tracked", 5), ("whole", 36)] {
        let ply = folder.appendingPathComponent("\(search).ply")
        let run = try Headscan.run(["reconstruct", scan, "-o", ply.path, "-v", "--marker-search", search])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("frames searched whole \(whole),"), "\(run.stdout)")
        clouds.append(try Data(contentsOf: ply))
      }
      #expect(sameContents(clouds[0], clouds[1]))
    }
  }
}
