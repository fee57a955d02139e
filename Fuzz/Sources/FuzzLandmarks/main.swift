import FuzzSupport
import ScanIO

/// libFuzzer entry: the input is a `*.landmarks.json` file (docs/formats.md). A file that
/// opens must hold exactly the four landmarks and survive a round trip through its JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLandmarks(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let path = FuzzFiles.write(UnsafeRawBufferPointer(start: start, count: count), as: "input.landmarks.json")
  guard let file = try? LandmarkFile(path: path) else { return 0 }
  precondition(Set(file.positions.keys) == Set(LandmarkFile.names), "exactly the four landmarks")
  let again = FuzzFiles.write(file.jsonData(), as: "again.landmarks.json")
  precondition((try? LandmarkFile(path: again)) == file, "a file that opens survives its own JSON")
  return 0
}
