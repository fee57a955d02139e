import Foundation

/// Runs the built `headscan` binary and captures what it prints.
public struct CommandRun: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String
}

public enum Headscan {
  /// The `headscan` executable next to the test bundle.
  public static var executable: URL {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidate = products.appendingPathComponent("headscan")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    return TestFiles.repositoryRoot.appendingPathComponent(".build/debug/headscan")
  }

  /// Runs `headscan arguments…` in the repository root.
  public static func run(_ arguments: [String]) throws -> CommandRun {
    try run(program: executable, arguments)
  }

  /// Runs `program arguments…` in the repository root, with `environment` added to this process's.
  public static func run(program: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandRun {
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    process.currentDirectoryURL = TestFiles.repositoryRoot
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes to the end before waiting, so a chatty child never blocks.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandRun(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }
}
