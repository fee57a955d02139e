/// Settings of the global optimisation (``optimiseMap(_:options:)``). Lengths in metres.
public struct OptimisationOptions: Sendable, Hashable {
  /// Huber threshold of the robust loss.
  public var huberThreshold = 0.0005
  /// Levenberg–Marquardt iterations at most, per round.
  public var iterations = 40
  /// A frame is rejected (``FrameRejection/largeResidual(millimetres:)``) and the rest optimised
  /// again when its corners' residuals after a round are larger than its markers' own spread
  /// allows: a χ² test of the frame's squared residuals, each against its marker's mean squared
  /// residual in the round, at this false-reject rate for a frame that fits as well as the rest.
  public var frameFalseRejectRate = 0.001
  /// …and when that frame's residuals per degree of freedom also lie more than this many robust
  /// standard deviations above the other frames' median (logarithmic scale, ``PeerTest``): real
  /// frames differ from each other more than independent noise would.
  public var frameDeviations = 3.5
  /// Rounds of optimisation and rejection at most.
  public var rounds = 3

  /// The defaults.
  public static let `default` = OptimisationOptions()

  public init() {}
}
