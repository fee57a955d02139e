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

/// Writes one line to standard error, at most ``longestErrorLine`` characters of `message`: an
/// error that quotes its input (a 10 MB dictionary name, a 100 MB index line) keeps its start
/// and end, the middle replaced by `…`.
func printError(_ message: String) {
  var text = message.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
  if text.count > longestErrorLine {
    text = String(text.prefix(longestErrorLine * 3 / 4)) + " … " + String(text.suffix(longestErrorLine / 4))
  }
  FileHandle.standardError.write(Data(("headscan: error: " + text + "\n").utf8))
}

/// The most characters of an error message ``printError(_:)`` prints: 2000.
let longestErrorLine = 2000

/// Writes a warning line to standard error (not with --quiet).
func printWarning(_ message: String, options: GlobalOptions) {
  guard !options.quiet else { return }
  FileHandle.standardError.write(Data(("headscan: warning: " + message + "\n").utf8))
}

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
