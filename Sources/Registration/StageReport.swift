/// What one stage of ``reconstructHead(_:options:progress:)`` did: its wall-clock and processor
/// time and its diagnostics as counts, in the order the stage reports them (for logs: `headscan -v`).
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
  /// Processor seconds of the whole process (user + system, every thread) while the stage ran:
  /// on a shared machine the measure of its cost that does not depend on the load; `nil` where
  /// the system does not say.
  public var processorSeconds: Double?
  /// Its diagnostics counts.
  public var counts: [Count]

  /// A report.
  public init(stage: String, seconds: Double, processorSeconds: Double? = nil, counts: [Count]) {
    self.stage = stage
    self.seconds = seconds
    self.processorSeconds = processorSeconds
    self.counts = counts
  }
}
