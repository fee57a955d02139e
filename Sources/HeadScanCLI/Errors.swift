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

/// Writes one line to standard error.
func printError(_ message: String) {
  let line = "headscan: error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
  FileHandle.standardError.write(Data(line.utf8))
}

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
