import Foundation
import ScanIO

/// libFuzzer entry: the input is a Record3D export's `metadata` JSON. Parsing it either throws a
/// `ScanIOError` naming the key or gives metadata whose JSON parses back to the same values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecord3DMetadata(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  guard let metadata = try? Record3DMetadata(json: data, path: "metadata") else { return 0 }
  if let again = try? metadata.jsonData(path: "again") {
    precondition((try? Record3DMetadata(json: again, path: "again")) != nil, "metadata that parses survives its own JSON")
  }
  return 0
}
