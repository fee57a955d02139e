/// What one stage of ``reconstructHead(_:options:progress:)`` did: its wall-clock time and its
/// diagnostics as counts, in the order the stage reports them (for logs: `headscan -v`).
public struct StageReport: Sendable, Hashable {
  /// One counted quantity, e.g. ("frames rejected: motion blur", 3).
  public struct Count: Sendable, Hashable {
    /// What is counted.
    public var label: String
    /// How many.
    public var value: Int

    /// A count.
    public init(_ label: String, _ value: Int) {
      self.label = label
      self.value = value
    }
  }

  /// The stage's name: "observe", "chain", "optimise", "resect", "keep markers", "fuse", "clean", "settle".
  public var stage: String
  /// Wall-clock seconds.
  public var seconds: Double
  /// Its diagnostics counts.
  public var counts: [Count]

  /// A report.
  public init(stage: String, seconds: Double, counts: [Count]) {
    self.stage = stage
    self.seconds = seconds
    self.counts = counts
  }
}
