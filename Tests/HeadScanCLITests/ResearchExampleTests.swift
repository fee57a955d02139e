import Foundation
import Testing
import _TestSupport

/// The research-tool example: the code shown in the README and the DocC catalog is the
/// `MeasureExample` target, it is short, and its numbers are `headscan measure`'s.
@Suite struct ResearchExampleTests {
  let example = TestFiles.repositoryRoot.appendingPathComponent("Examples/MeasureExample/main.swift")

  /// The first Swift code block after `marker` in a Markdown file.
  func codeBlock(in relativePath: String, after marker: String) throws -> String {
    let text = try String(contentsOf: TestFiles.repositoryRoot.appendingPathComponent(relativePath), encoding: .utf8)
    let start = try #require(text.range(of: marker)).upperBound
    let open = try #require(text.range(of: "```swift\n", range: start..<text.endIndex)).upperBound
    let close = try #require(text.range(of: "```", range: open..<text.endIndex)).lowerBound
    return String(text[open..<close])
  }

  @Test func readmeAndDocCShowTheExampleTarget() throws {
    let code = try String(contentsOf: example, encoding: .utf8)
    #expect(try codeBlock(in: "README.md", after: "### In a research tool") == code)
    #expect(
      try codeBlock(in: "Sources/HeadScan/Documentation.docc/GettingStartedInAResearchTool.md", after: "Then measure") == code)
    let lines = code.split(separator: "\n", omittingEmptySubsequences: true)
    #expect(lines.count <= 16, "the example should stay about 15 lines, has \(lines.count)")
    #expect(lines.filter { $0.hasPrefix("import ") } == ["import Foundation", "import HeadScan"])
    #expect(code.components(separatedBy: "measureScan(").count == 2, "one call")
  }

  @Test func theExamplePrintsWhatMeasureReports() throws {
    let binary = Headscan.executable.deletingLastPathComponent().appendingPathComponent("MeasureExample")
    try #require(FileManager.default.isExecutableFile(atPath: binary.path), "MeasureExample is built with the tests")
    let process = Process()
    process.executableURL = binary
    process.currentDirectoryURL = TestFiles.repositoryRoot
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)

    try TestFiles.withTemporaryFolder { folder in
      let report = folder.appendingPathComponent("r.json").path
      let run = try Headscan.run([
        "measure", "fixtures/scans/orbit-small", "--json", report, "--quiet",
      ])
      #expect(run.status == 0, "\(run.stderr)")
      let json = try #require(
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
      let cvai = try #require(json["cvai"] as? Double), hc = try #require(json["circumference"] as? Double)
      let severity = try #require(json["severity"] as? Int)
      let expected = String(format: "CVAI %.1f %%  ", cvai)
      #expect(printed.hasPrefix(expected), "\(printed)")
      #expect(printed.contains(String(format: "circumference %.1f mm  severity %d", hc, severity)), "\(printed)")
    }
  }
}
