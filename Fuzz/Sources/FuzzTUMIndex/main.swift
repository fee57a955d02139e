import FuzzSupport
import ScanIO

/// A valid `camera.json` so that the fuzzed index files are what gets parsed.
let camera = """
  {"color": {"width": 8, "height": 6}, "depth": {"width": 8, "height": 6}, "depthScale": 5000,
   "intrinsics": {"fx": 10, "fy": 10, "cx": 3.5, "cy": 2.5, "width": 8, "height": 6},
   "markers": {"dictionary": "DICT_4X4_50", "sideLength": 0.016}}
  """

/// libFuzzer entry: the input up to its first zero byte is `rgb.txt`, the rest `depth.txt`
/// of a TUM folder (docs/formats.md). Opening parses and pairs both indexes; the first frame is
/// then read (its image files do not exist, so that must be a clean error).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTUMIndex(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = UnsafeRawBufferPointer(start: start, count: count)
  let split = bytes.firstIndex(of: 0) ?? count
  FuzzFiles.write(camera, as: "camera.json")
  FuzzFiles.write(UnsafeRawBufferPointer(rebasing: bytes[0..<split]), as: "rgb.txt")
  FuzzFiles.write(UnsafeRawBufferPointer(rebasing: bytes[min(count, split + 1)..<count]), as: "depth.txt")
  guard let reader = try? TUMFolderReader(path: FuzzFiles.folder) else { return 0 }
  var last = -Double.infinity
  for index in 0..<reader.frameCount {
    let time = try! reader.timestamp(at: index)
    precondition(time >= last, "pairs are in colour-timestamp order")
    last = time
  }
  if reader.frameCount > 0 { _ = try? reader.frame(at: 0) }
  return 0
}
