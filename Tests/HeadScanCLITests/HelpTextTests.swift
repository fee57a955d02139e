import Foundation
import Testing
import _TestSupport

/// Help texts are written as paragraphs, one line in the source each, so ArgumentParser's own
/// wrapping at the terminal's width is the only line break inside a sentence: rendered on a
/// terminal too wide to wrap anything, no line ends in the middle of a sentence.
struct HelpTextTests {
  static let commands = [
    "", "inspect", "markers", "reconstruct", "measure", "validate", "batch", "history", "annotate", "convert", "simulate",
    "simulate-calliper", "evaluate",
  ]

  /// Line pairs of `text` where the first stops mid-sentence (a word, a comma or an open
  /// parenthesis, no closing punctuation) and the second goes on in lower case. Example command
  /// lines (`headscan …`, `scripts/…`), option and usage lines, and ArgumentParser's list of
  /// values are not sentences.
  static func brokenSentences(in text: String) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    func isCommandLine(_ line: String) -> Bool {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      return trimmed.hasPrefix("headscan ") || trimmed.hasPrefix("scripts/") || trimmed.hasPrefix("-") || trimmed.hasPrefix("<")
        || trimmed.hasPrefix("USAGE:") || trimmed.hasSuffix(":")
    }
    var broken: [String] = []
    for (line, next) in zip(lines, lines.dropFirst()) {
      let first = line.trimmingCharacters(in: .whitespaces), second = next.trimmingCharacters(in: .whitespaces)
      guard let end = first.last, let start = second.first, !isCommandLine(line), !isCommandLine(next) else { continue }
      let stopsMidSentence = end.isLowercase || end.isNumber || ",;(—–".contains(end)
      let goesOn = start.isLowercase || start == "("
      if stopsMidSentence && goesOn { broken.append("\(first) ⏎ \(second)") }
    }
    return broken
  }

  @Test(arguments: commands)
  func helpParagraphsAreOneLineEach(command: String) throws {
    let run = try Headscan.run(
      program: Headscan.executable, (command.isEmpty ? [] : [command]) + ["--help"], environment: ["COLUMNS": "100000"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("USAGE:"), "\(run.stdout)")
    let broken = Self.brokenSentences(in: run.stdout)
    #expect(broken.isEmpty, "headscan \(command) --help breaks sentences: \(broken.joined(separator: " | "))")
  }

  /// The check itself: a paragraph broken in the source is found, a wrapped example is not.
  @Test func theCheckFindsABrokenSentence() {
    #expect(Self.brokenSentences(in: "Writes a binary little-endian PLY (x y z in metres in the world frame of\nthe lowest registered marker id's own frame).").count == 1)
    #expect(Self.brokenSentences(in: "One paragraph.\n\nAnother, which goes on.\nExamples:\n  headscan inspect a\n  headscan inspect b").isEmpty)
  }
}
