import Foundation

/// How the simulated TrueDepth camera departs from the truth.
///
/// Every effect defaults to the simulator's original behaviour; the added ones
/// (correlated noise, a per-frame offset, silhouette loss, holes) are off by
/// default. docs/simulator.md lists them with units and the `realistic` preset.
public struct SensorModel: Sendable, Hashable, Codable {
  /// Independent per-pixel depth noise σ at ``noiseReferenceDepth``, metres;
  /// σ(z) = depthNoise · (z / noiseReferenceDepth)².
  public var depthNoise: Double = 0.0005
  /// The distance at which ``depthNoise`` is stated, metres.
  public var noiseReferenceDepth: Double = 0.3
  /// Spatially correlated depth noise: standard deviation of a smooth random field
  /// added to every frame's depth, metres (0 = none). The field is white noise
  /// smoothed with a Gaussian of σ = ``correlationLength`` / 2, rescaled to this
  /// standard deviation over the image, so its autocorrelation falls to 1/e at
  /// ``correlationLength`` pixels.
  public var correlatedNoise: Double = 0
  /// Correlation length of ``correlatedNoise``, pixels.
  public var correlationLength: Double = 40
  /// Standard deviation of one depth offset drawn per frame and added to all its
  /// depth, metres (0 = none).
  public var frameDepthOffset: Double = 0
  /// No depth closer than this, metres (the camera's near limit).
  public var minimumDepth: Double = 0.20
  /// No depth farther than this, metres.
  public var maximumDepth: Double = 1.2
  /// Below this cosine between ray and surface normal, depth always drops out.
  public var grazingCutoff: Double = 0.20
  /// Between the cutoff and this cosine, depth drops out with a probability falling
  /// linearly in the cosine from 1 to 0.
  public var grazingFade: Double = 0.35
  /// Fraction of other valid pixels lost at random.
  public var randomDropout: Double = 0.003
  /// Fraction of edge pixels that lose their depth: pixels with depth whose 4-neighbour
  /// sees nothing or a surface more than ``edgeJump`` nearer or farther.
  public var silhouetteLoss: Double = 0
  /// The depth step that makes an edge for ``silhouetteLoss``, metres.
  public var edgeJump: Double = 0.01
  /// Mean number of random round holes a frame (Poisson), each centred on a pixel with depth.
  public var holesPerFrame: Double = 0
  /// Diameter range of the holes, pixels (uniform).
  public var holeDiameter: ClosedRange<Double> = 2...6
  /// Colour noise σ, grey levels.
  public var colourNoise: Double = 1.5
  /// Optical blur σ of the colour image, pixels.
  public var blur: Double = 0.5

  public init() {}

  /// Per-pixel depth noise σ at depth `z`, metres.
  @inline(__always)
  public func depthSigma(at z: Double) -> Double {
    depthNoise * (z / noiseReferenceDepth) * (z / noiseReferenceDepth)
  }

  /// Probability that a pixel seeing the surface at cosine `facing` (ray against
  /// normal) loses its depth to grazing incidence.
  public func grazingDropout(facing: Double) -> Double {
    if facing < grazingCutoff { return 1 }
    if facing >= grazingFade { return 0 }
    return (grazingFade - facing) / (grazingFade - grazingCutoff)
  }

  /// Sets the grazing cutoff and fade from incidence angles (degrees from the normal):
  /// dropouts start at `start` and are total beyond `end`.
  public mutating func setGrazingIncidence(from start: Double, to end: Double) {
    grazingFade = cos(start * .pi / 180)
    grazingCutoff = cos(end * .pi / 180)
  }
}
