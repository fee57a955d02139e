import FuzzSupport
import ScanIO

/// libFuzzer entry: the input is a whole `.rgbdscan` file. Opening it parses the
/// magic, header length and JSON header; then every frame (at most 8) is decoded.
/// Any thrown `ScanIOError` is a correct answer; a crash, trap or sanitizer report is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScanStream(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let path = FuzzFiles.write(UnsafeRawBufferPointer(start: start, count: count), as: "input.rgbdscan")
  guard let reader = try? RGBDScanReader(path: path) else { return 0 }
  for index in 0..<min(reader.frameCount, 8) {
    guard let frame = try? reader.frame(at: index) else { return 0 }
    precondition(frame.depth.metres.count == frame.depth.width * frame.depth.height, "depth map size")
    precondition(frame.color.bgra.count == 4 * frame.color.width * frame.color.height, "colour image size")
  }
  return 0
}
