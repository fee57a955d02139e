import FuzzSupport
import ScanIO

/// libFuzzer entry: the input is a whole Record3D `.r3d` export (a ZIP archive of `metadata`,
/// LZFSE depth and confidence, JPEG colour), opened with a fixed cap; every frame (at most 4) is
/// decoded. A thrown `ScanIOError` is a correct answer; a crash, trap, sanitizer report or an
/// allocation over the run's malloc limit is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecord3D(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let path = FuzzFiles.write(UnsafeRawBufferPointer(start: start, count: count), as: "input.r3d")
  let cap = ScanCap(markers: .init(dictionary: "DICT_4X4_50", sideLength: 0.016), markerCount: 30)
  guard let reader = try? Record3DReader(path: path, options: ScanOpenOptions(cap: cap)) else { return 0 }
  for index in 0..<min(reader.frameCount, 4) {
    guard let frame = try? reader.frame(at: index) else { return 0 }
    precondition(frame.depth.width <= ScanHeader.maximumSide && frame.color.width <= ScanHeader.maximumSide, "frame within the size limit")
    precondition(frame.depth.metres.allSatisfy { $0.isNaN || DepthMap.validRange.contains($0) }, "depth in the valid range")
  }
  return 0
}
