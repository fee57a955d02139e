extension MeasureReport {
  /// The scan's stated focal length against the one its markers show (the report's
  /// `intrinsicsCheck`); colour-image pixels.
  public struct IntrinsicsCheckSummary: Codable, Sendable, Hashable {
    /// The focal length the scan states, pixels.
    public var statedFocalLength: Double
    /// The focal length the markers of known printed side show with the depth, pixels.
    public var focalLengthEstimate: Double
    /// Whether the two agree within the check's limit (2 %, or twice the estimate's
    /// relative uncertainty where that is larger).
    public var consistent: Bool
    /// One standard error of the estimate, pixels.
    public var focalLengthUncertainty: Double?
    /// The focal length the depth was lifted with where it was not the stated one
    /// (`--focal-length`), pixels.
    public var focalLengthUsed: Double?

    /// A summary from its values.
    public init(
      statedFocalLength: Double, focalLengthEstimate: Double, consistent: Bool, focalLengthUncertainty: Double? = nil,
      focalLengthUsed: Double? = nil
    ) {
      self.statedFocalLength = statedFocalLength
      self.focalLengthEstimate = focalLengthEstimate
      self.consistent = consistent
      self.focalLengthUncertainty = focalLengthUncertainty
      self.focalLengthUsed = focalLengthUsed
    }
  }

  /// The reconstruction's length scale against the printed stickers (`scale` in both JSON
  /// reports).
  public struct ScaleSummary: Codable, Sendable, Hashable {
    /// The map's lengths over the printed stickers' as the depth was read (1.01: 1 % too large):
    /// the focal-length estimate over the focal length the depth was lifted with.
    public var depthScaleFactor: Double
    /// One standard uncertainty of the factor (relative).
    public var uncertainty: Double
    /// Whether every depth was divided by the factor (`--scale auto` where the markers tell it, `--scale markers` always).
    public var applied: Bool

    /// A summary from its values.
    public init(depthScaleFactor: Double, uncertainty: Double, applied: Bool) {
      (self.depthScaleFactor, self.uncertainty, self.applied) = (depthScaleFactor, uncertainty, applied)
    }
  }
}
