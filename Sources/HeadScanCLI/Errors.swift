import ArgumentParser
import ArucoBridge
import Foundation

/// Prints `headscan: error: …` (one line) and exits 1, for any error a command throws.
func reportingErrors(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let exit as ExitCode {
    throw exit
  } catch let error as CommandError {
    printError(error.description)
    throw ExitCode(1)
  } catch {
    printError(String(describing: error))
    throw ExitCode(1)
  }
}

/// Writes one line to standard error (``oneLine(_:)``).
func printError(_ message: String) {
  FileHandle.standardError.write(Data(("headscan: error: " + oneLine(message) + "\n").utf8))
}

/// Writes a warning line to standard error (``oneLine(_:)``; not with --quiet).
func printWarning(_ message: String, options: GlobalOptions) {
  guard !options.quiet else { return }
  FileHandle.standardError.write(Data(("headscan: warning: " + oneLine(message) + "\n").utf8))
}

/// `message` as one line of at most ``longestMessageLine`` characters: every line break (LF,
/// CR, vertical tab, NEL, U+2028…) a space, and a message that quotes its input (a 10 MB
/// dictionary name, a 100 MB index line, a header's text) cut to its start and end, the middle
/// replaced by `…`.
func oneLine(_ message: String) -> String {
  var text = String(message.map { $0.isNewline ? " " : $0 })
  if text.count > longestMessageLine {
    text = String(text.prefix(longestMessageLine * 3 / 4)) + " … " + String(text.suffix(longestMessageLine / 4))
  }
  return text
}

/// The most characters of a message ``oneLine(_:)`` keeps: 2000.
let longestMessageLine = 2000

/// Problems found by the commands themselves (the libraries' errors print as they are).
struct CommandError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Adds the file name to an error that does not carry it (e.g. an unknown dictionary in a header).
func naming<T>(_ path: String, _ body: () throws -> T) throws -> T {
  do {
    return try body()
  } catch let error as ArucoError {
    throw CommandError("\(path): \(error)")
  }
}
