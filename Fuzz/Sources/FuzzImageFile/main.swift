import FuzzSupport
import ScanIO

/// libFuzzer entry: the input is an image file (PNG or JPEG), decoded by the C codec over
/// libpng and libjpeg both as colour and as 16-bit depth. A decoded image has exactly the
/// pixels its size says.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageFile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let path = FuzzFiles.write(UnsafeRawBufferPointer(start: start, count: count), as: "input.image")
  if let colour = try? ImageFiles.readColor(at: path) {
    precondition(colour.bytes.count == 4 * colour.width * colour.height, "colour pixels")
  }
  if let depth = try? ImageFiles.readGray16(at: path) {
    precondition(depth.values.count == depth.width * depth.height, "depth pixels")
  }
  return 0
}
