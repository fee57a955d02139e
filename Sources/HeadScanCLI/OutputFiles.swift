import Foundation
import _HeadScanSupport

/// Refuses to write over an input: an output that is one of `inputs` (after resolving `..` and
/// symbolic links), or an existing file inside an input folder (a TUM scan's index and images,
/// a folder of reports), since readers would take it for their own on the next run.
func checkOutput(_ output: String, isNot inputs: [String]) throws {
  func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
  let target = resolved(output)
  for input in inputs {
    let source = resolved(input)
    if source == target { throw CommandError("\(output): refusing to overwrite the input file") }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: source, isDirectory: &isFolder), isFolder.boolValue,
      target.hasPrefix(source + "/"), FileManager.default.fileExists(atPath: target)
    {
      throw CommandError("\(output): refusing to overwrite a file inside the input folder \(input)")
    }
  }
}

/// Encodes a value as pretty JSON with sorted keys and writes it atomically.
func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  try AtomicFile.write(try encoder.encode(value), to: path)
}
