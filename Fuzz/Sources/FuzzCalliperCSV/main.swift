import Agreement
import FuzzSupport

/// libFuzzer entry: the input is a calliper CSV (docs/formats.md, "Calliper table"). A table that opens has
/// the required measures as finite numbers and each scan once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalliperCSV(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let path = FuzzFiles.write(UnsafeRawBufferPointer(start: start, count: count), as: "input.csv")
  guard let table = try? CalliperTable(path: path) else { return 0 }
  precondition(Set(table.rows.map(\.scan)).count == table.rows.count, "each scan once")
  precondition(table.rows.allSatisfy { $0.diagonalA.isFinite && $0.diagonalB.isFinite }, "finite diagonals")
  return 0
}
