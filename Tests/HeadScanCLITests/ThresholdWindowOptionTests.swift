import Foundation
import Testing
import _TestSupport

/// `--threshold-window`: the default sizes a window from the scan's markers and `reconstruct -v`
/// says which; `opencv` searches with OpenCV's three windows and prints no such line.
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
      #expect(!opencv.stdout.contains("threshold window") && opencv.stdout.contains("frames searched whole 36"), "\(opencv.stdout)")
    }
  }
}
