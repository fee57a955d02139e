/// When the recorder app announces progress: shares of the cap's markers seen so far.
///
/// The app lets the operator choose between an announcement every quarter, every half, or
/// only when the whole cap has been seen.
public enum ProgressMilestones: String, Sendable, Hashable, Codable, CaseIterable {
  /// At 25, 50, 75 and 100 % (the default).
  case everyQuarter
  /// At 50 and 100 %.
  case everyHalf
  /// At 100 % only.
  case completion

  /// The milestones, percent of the cap's markers, ascending.
  public var percents: [Int] {
    switch self {
    case .everyQuarter: return [25, 50, 75, 100]
    case .everyHalf: return [50, 100]
    case .completion: return [100]
    }
  }
}

/// A progress milestone reached: `percent` of the cap's markers seen so far.
public struct ProgressEvent: Sendable, Hashable, Codable {
  /// The milestone, percent (one of ``ProgressMilestones/percents``).
  public var percent: Int

  public init(percent: Int) { self.percent = percent }
}
