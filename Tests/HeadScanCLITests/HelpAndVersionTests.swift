import Foundation
import Testing
import _TestSupport

/// `--version`, and help texts whose examples and pages exist.
struct HelpAndVersionTests {
  @Test func versionPrintsTheVersionNumber() throws {
    let run = try Headscan.run(["--version"])
    #expect(run.status == 0, "\(run.stderr)")
    let version = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil }, "\(version)")
  }

  /// Every repository path a command's help names (examples' `fixtures/…` inputs, `docs/…`
  /// pages) exists; `../shared/…` ones too when that folder is beside the repository.
  @Test(arguments: ["inspect", "markers", "batch"])
  func helpNamesOnlyFilesThatExist(command: String) throws {
    let run = try Headscan.run([command, "--help"])
    #expect(run.status == 0, "\(run.stderr)")
    let tokens = run.stdout.split(whereSeparator: { " \n(),\"".contains($0) }).map(String.init)
    let named = tokens.filter { $0.hasPrefix("fixtures/") || $0.hasPrefix("docs/") || $0.hasPrefix("../shared/") }
    #expect(!named.isEmpty, "the help of \(command) names no example file or page")
    let sharedPresent = TestFiles.sharedData("") != nil
    for path in named where sharedPresent || !path.hasPrefix("../shared/") {
      let url = TestFiles.repositoryRoot.appendingPathComponent(path)
      #expect(FileManager.default.fileExists(atPath: url.path), "\(command) --help names \(path), which does not exist")
    }
  }
}
