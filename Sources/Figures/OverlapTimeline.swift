import Foundation
import OperatorGuidance

/// `inspect --overlap`: each marker's overlap state over time, and the operator guidance.
public enum OverlapTimeline {
  /// One row a marker, one column a frame (or a bin of frames on long scans):
  /// green `G`, red `R`, blue `b`, unseen `.`; with `colour`, as coloured blocks (ANSI escapes,
  /// for a terminal). Then a line at each progress milestone and each change of the guidance shown.
  /// - Parameters:
  ///   - columns: the most frame columns; longer scans are binned, each bin showing its best
  ///     state (green over red over blue).
  ///   - colour: draw coloured blocks instead of letters.
  public static func render(_ feedback: [FrameFeedback], columns: Int = 90, colour: Bool = false) -> String {
    let ids = Set(feedback.flatMap { $0.overlap.keys }).sorted()
    guard !feedback.isEmpty, !ids.isEmpty else { return "overlap     no markers" }
    let bins = min(columns, feedback.count)
    func rank(_ s: OverlapState?) -> Int { s == .green ? 3 : (s == .red ? 2 : (s == .blue ? 1 : 0)) }
    var lines = ["overlap     \(feedback.count) frames\(bins < feedback.count ? " in \(bins) columns" : ""): G linked (green), R new (red), b seen before (blue)"]
    for id in ids {
      var row = String(format: "  id %3d    ", id)
      for b in 0..<bins {
        let range = (b * feedback.count / bins)..<max(b * feedback.count / bins + 1, (b + 1) * feedback.count / bins)
        let best = range.map { feedback[$0].overlap[id] }.max { rank($0) < rank($1) } ?? nil
        switch (best, colour) {
        case (.green?, true): row += "\u{1B}[32m█\u{1B}[0m"
        case (.red?, true): row += "\u{1B}[31m█\u{1B}[0m"
        case (.blue?, true): row += "\u{1B}[34m▒\u{1B}[0m"
        case (.green?, false): row += "G"
        case (.red?, false): row += "R"
        case (.blue?, false): row += "b"
        default: row += "."
        }
      }
      lines.append(row)
    }
    // Guidance: milestones and every change of the debounced position/direction.
    var previous: String?
    for f in feedback {
      for event in f.events { lines.append(String(format: "  frame %4d  %d %% of the cap seen", f.frame, event.percent)) }
      let now = f.position.rawValue + (f.direction.map { ", markers \($0.rawValue) of centre" } ?? "")
      if now != previous {
        lines.append(String(format: "  frame %4d  %@", f.frame, now))
        previous = now
      }
    }
    return lines.joined(separator: "\n")
  }
}
