import Foundation
import Reports

/// libFuzzer entry: the input is a `measure --json` report as `validate`, `history` and `batch`
/// read it. It either throws a `FileProblem` naming the key or decodes to a report that encodes
/// and decodes again to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReportJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  guard let report = try? MeasureReport(json: data, path: "input.json") else { return 0 }
  if let encoded = try? report.jsonData() {
    precondition((try? MeasureReport(json: encoded, path: "again.json")) != nil, "a report that decodes survives its own JSON")
  }
  return 0
}
