/// Settings of the global optimisation (``optimiseMap(_:options:)``). Lengths in metres.
public struct OptimisationOptions: Sendable, Hashable {
  /// Huber threshold of the robust loss.
  public var huberThreshold = 0.0005
  /// Levenberg–Marquardt iterations at most, per round.
  public var iterations = 40
  /// Frames whose corner RMS after a round exceeds this are rejected
  /// (``FrameRejection/largeResidual(millimetres:)``) and the rest optimised again.
  public var maximumFrameRMS = 0.003
  /// Rounds of optimisation and rejection at most.
  public var rounds = 3

  /// The defaults.
  public static let `default` = OptimisationOptions()

  public init() {}
}
