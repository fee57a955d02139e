import Foundation
import _HeadScanSupport

/// Refuses, before any long work, a file output that cannot be written or must not be: one
/// whose folder does not exist, one that is a folder or not a regular file (``AtomicFile``
/// replaces only regular files), one that is one of `inputs` (after resolving `..` and symbolic
/// links), or an existing file inside an input folder (a TUM scan's index and images, a folder of
/// reports), since readers would take it for their own on the next run; an output folder that
/// holds one of `inputs` is refused too (replacing it would delete the input).
/// - Parameter folder: the output is a folder (a TUM scan): it may replace only a folder
///   headscan wrote.
func checkOutput(_ output: String, isNot inputs: [String], folder: Bool = false) throws {
  guard !output.isEmpty else { throw CommandError("an output path is empty: give a file name") }
  // A folder output is checked against the inputs first: that it holds one says more than
  // that it holds files headscan did not write.
  if !folder { try AtomicFile.checkFileOutput(output) }
  let target = resolvedPath(output)
  for input in inputs {
    let source = resolvedPath(input)
    if source == target { throw CommandError("\(output): refusing to overwrite the input file") }
    if source.hasPrefix(target + "/") { throw CommandError("\(output): refusing to replace a folder that holds the input \(input)") }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: source, isDirectory: &isFolder), isFolder.boolValue,
      target.hasPrefix(source + "/"), FileManager.default.fileExists(atPath: target)
    {
      throw CommandError("\(output): refusing to overwrite a file inside the input folder \(input)")
    }
  }
  if folder { try AtomicFile.checkFolderOutput(output) }
}

/// ``checkOutput(_:isNot:folder:)`` for each of a command's file outputs (`nil`: the option was
/// not given), after refusing two options that name the same path: the second write would
/// replace the first, and one of the outputs would be lost without a word.
/// - Parameters:
///   - outputs: each file output's option, as the user types it (`--json`), and its path.
///   - folders: folders the command writes files into (`--plots`) and the names of the files it
///     may write there: created where missing, kept where they are folders; refused where
///     something else is there, and each file as a file output (so an existing file of that name
///     in an input folder is refused, as for any output).
func checkOutputs(
  _ outputs: [(option: String, path: String?)], folders: [(option: String, path: String?, files: [String])] = [], isNot inputs: [String]
) throws {
  var named: [String: String] = [:]
  // A folder's files are outputs too: `--json p/contour.svg --plots p` would lose the report.
  let folderFiles = folders.flatMap { folder in folder.files.map { file in (folder.option, folder.path.map { $0 + "/" + file }) } }
  for (option, path) in outputs + folders.map({ ($0.option, $0.path) }) + folderFiles {
    guard let path else { continue }
    let target = resolvedPath(path)
    if let other = named[target] { throw CommandError("\(path): named by both \(other) and \(option); give each output its own path") }
    named[target] = option
  }
  for case (_, let path?) in outputs { try checkOutput(path, isNot: inputs) }
  for case (_, let path?, let files) in folders {
    try AtomicFile.checkFolder(of: path)
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
      guard isFolder.boolValue else { throw CommandError("\(path): cannot write: not a folder") }
      for file in files { try checkOutput(path + "/" + file, isNot: inputs) }
    }
  }
}

/// Encodes a value as pretty JSON with sorted keys and writes it atomically.
func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  try AtomicFile.write(try encoder.encode(value), to: path)
}
