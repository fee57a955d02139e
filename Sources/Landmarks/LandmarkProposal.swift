import PointCloud

/// One landmark found automatically on a reconstruction (see ``detectLandmarks(cloud:markers:)``).
public struct LandmarkProposal: Sendable, Hashable, Codable {
  /// Where a proposal is seen in the scan's colour images.
  public struct PixelView: Sendable, Hashable, Codable {
    /// Zero-based frame index in the scan.
    public var frame: Int
    /// Colour-image pixel (as in a landmarks file: column `u`, row `v`, pixel centres at integers).
    public var u: Double
    public var v: Double

    public init(frame: Int, u: Double, v: Double) { (self.frame, self.u, self.v) = (frame, u, v) }
  }

  /// The landmark's name in a landmarks file (`nasion`, `noseTip`, `leftEar`, `rightEar`).
  public var name: String
  /// The point in the reconstruction's world frame (the lowest kept marker's own frame), metres.
  public var position: SIMD3<Double>
  /// How sure the detector is, 0…1 (see ``AutomaticLandmarks/minimumConfidence``): the
  /// feature's size against the least an infant's feature has and against the surface noise,
  /// times the share of the surface around it that was scanned.
  public var confidence: Double
  /// What was found or missing, one line (e.g. `lateral protrusion 7.6 mm, noise 0.21 mm`).
  public var detail: String
  /// A registered frame that sees the point nearly head-on and its colour pixel, when looked up
  /// (``AutomaticLandmarks/locatingViews(reconstruction:intrinsics:)``).
  public var view: PixelView?

  public init(name: String, position: SIMD3<Double>, confidence: Double, detail: String, view: PixelView? = nil) {
    (self.name, self.position, self.confidence, self.detail, self.view) = (name, position, confidence, detail, view)
  }
}
