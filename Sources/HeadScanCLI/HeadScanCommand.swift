import ArgumentParser
import Foundation
import Registration
import Reports
import _HeadScanSupport

/// The `headscan` command: infant head shape from TrueDepth scans with an ArUco cap.
@main
struct HeadScanCommand: ParsableCommand {
  /// Frame-sized buffers go back to the system when freed, so peak memory does not grow with
  /// the worker threads' arenas; then the command line is parsed and run.
  static func main() {
    NativeGeometry.returnLargeBlocksToTheSystem()
    if let text = ProcessInfo.processInfo.environment[coresVariable], !text.isEmpty, coreCount(text) == nil {
      printError("\(coresVariable) must be a whole number of cores, 1…4096, got '\(text)'")
      Foundation.exit(64)
    }
    // Ctrl-C and SIGTERM leave no hidden temporary file; annotate's server stops on them itself.
    if CommandLine.arguments.dropFirst().first != AnnotateCommand.configuration.commandName {
      AtomicFile.removeTemporariesOnInterrupt()
    }
    runCommandLine(negativeValuesJoined(Array(CommandLine.arguments.dropFirst())))
  }

  /// Parses and runs the command line. A bad command line (exit 64) prints one line,
  /// `headscan: error: <problem> (see 'headscan <command> --help')`, instead of the parser's
  /// error, usage and hint lines; help, version and every other outcome are the parser's own.
  static func runCommandLine(_ arguments: [String]) -> Never {
    do {
      var command = try parseAsRoot(arguments)
      try command.run()
      Foundation.exit(0)
    } catch {
      guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
      printError(usageLine(for: error))
      Foundation.exit(ExitCode.validationFailure.rawValue)
    }
  }

  /// A usage error as one line: the parser's message and, where it gives one, the command whose
  /// help to read.
  static func usageLine(for error: any Error) -> String {
    let problem = message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    // The parser's own hint is its last line, `  See 'headscan COMMAND --help' …`; earlier lines
    // may quote the user's arguments, which must not be taken for it.
    let hint = fullMessage(for: error).split(whereSeparator: \.isNewline).reversed().lazy.compactMap { line -> Substring? in
      let trimmed = line.drop { $0 == " " }
      guard trimmed.hasPrefix("See '"), let end = trimmed.dropFirst(5).firstIndex(of: "'") else { return nil }
      return trimmed[trimmed.index(trimmed.startIndex, offsetBy: 5)..<end]
    }.first
    return problem + (hint.map { " (see '\($0)')" } ?? "")
  }

  /// The command line with each long option followed by a negative number (`--frames -5`,
  /// `--lose-marker -1@3`, `--focal-length -inf`) written as one argument, `--frames=-5`.
  ///
  /// The parser reads an argument that starts with a minus as an option, so `--frames -5`
  /// would be "missing a value" instead of a value outside the option's bounds; joined, the
  /// value reaches the option's own check and its message. Nothing after `--` is touched.
  static func negativeValuesJoined(_ arguments: [String]) -> [String] {
    var joined: [String] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "--" {
        joined += arguments[index...]
        break
      }
      if argument.hasPrefix("--"), argument.count > 2, !argument.contains("="), index + 1 < arguments.count,
        isNegativeValue(arguments[index + 1])
      {
        joined.append(argument + "=" + arguments[index + 1])
        index += 2
      } else {
        joined.append(argument)
        index += 1
      }
    }
    return joined
  }

  /// A number with a minus: a digit or a point after it, and then only what numbers and the
  /// options' number forms hold (`-5`, `-.5`, `-1e-3`, `-1@3`, `-2x3`, `-1:2`); or a minus
  /// before infinity or NaN in any case. `-5.rgbdscan` is not one.
  static func isNegativeValue(_ argument: String) -> Bool {
    guard argument.hasPrefix("-") else { return false }
    let rest = argument.dropFirst()
    if ["inf", "infinity", "nan"].contains(rest.lowercased()) { return true }
    guard let first = rest.first, first.isASCII, first.isNumber || first == "." else { return false }
    return rest.allSatisfy { "0123456789.eE+-@x:".contains($0) }
  }

  static let configuration = CommandConfiguration(
    commandName: "headscan",
    abstract: "Infant head shape (CVAI, CI, circumference) from depth-camera scans of an ArUco cap.",
    discussion: """
      Scans are .rgbdscan recorder files, TUM-style folders or Record3D .r3d exports (with the cap in NAME.cap.json or --cap; see docs/formats.md).

      Exit codes: 0 success, 1 bad input or failed processing (one line on stderr names the file and the problem; batch: some scans failed), 64 bad command line (among them a number outside its option's bounds, which each command's help gives; docs/command-line.md, "Option bounds").

      Examples:
        headscan cap cap.pdf
        headscan inspect fixtures/scans/orbit-small
        headscan simulate out/plagio.rgbdscan --cvai 8 --frames 300
        headscan annotate out/plagio.rgbdscan
        headscan measure out/plagio.rgbdscan --json out/plagio.json --plots out/figures
        headscan batch scans --out reports
        headscan validate calliper.csv --reports reports --plots bland-altman
        headscan history reports --html history.html --csv history.csv
      """,
    version: HeadScanVersion.current,
    subcommands: [
      InspectCommand.self, MarkersCommand.self, ReconstructCommand.self, MeasureCommand.self, ValidateCommand.self,
      BatchCommand.self, HistoryCommand.self, AnnotateCommand.self, ConvertCommand.self, CapCommand.self, SimulateCommand.self, SimulateCalliperCommand.self, EvaluateCommand.self,
    ])
}
