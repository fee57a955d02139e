import Foundation
import ScanIO

/// libFuzzer entry: the input is a cap sidecar `NAME.cap.json`. It either throws a `ScanIOError`
/// naming the key or gives a cap with a positive printed side under a metre.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCap(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  guard let cap = try? ScanCap(json: data, path: "input.cap.json") else { return 0 }
  precondition(cap.markers.sideLength > 0 && cap.markers.sideLength < 1, "a printed side in metres")
  return 0
}
