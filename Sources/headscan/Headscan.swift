import ArgumentParser

/// The `headscan` command: infant head shape from TrueDepth scans with an ArUco cap.
@main
struct Headscan: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "headscan",
    abstract: "Infant head shape (CVAI, CI, circumference) from depth-camera scans of an ArUco cap.",
    discussion: """
      Scans are .rgbdscan recorder files or TUM-style folders (see docs/formats.md).
      Exit codes: 0 success, 1 bad input or failed processing (one line on stderr
      names the file and the problem), 64 bad command line.

      Examples:
        headscan inspect fixtures/scans/orbit-small.rgbdscan
        headscan markers fixtures/scans/orbit-small.rgbdscan --json markers.json
        headscan simulate out/plagio.rgbdscan --cvai 8 --frames 300
      """,
    subcommands: [InspectCommand.self, MarkersCommand.self, ReconstructCommand.self, MeasureCommand.self, SimulateCommand.self, EvaluateCommand.self])
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
  @Flag(name: .shortAndLong, help: "Print only errors and the final result.")
  var quiet = false

  @Flag(name: .shortAndLong, help: "Print more detail while working.")
  var verbose = false
}
