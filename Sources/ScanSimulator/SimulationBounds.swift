import Foundation

/// A simulation parameter outside what the simulator renders correctly: one line naming the
/// parameter (as ``SimulationOptions`` spells it, e.g. `head.cvai`, `sensor.depthNoise`) and its bounds.
public struct SimulationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The parameter at fault, e.g. `frames`, `head.cvai`, `path.elevation`.
  public var parameter: String
  /// What is wrong with it, e.g. `must be within 1…100000, got 0`.
  public var problem: String

  public init(parameter: String, problem: String) {
    self.parameter = parameter
    self.problem = problem
  }

  public var description: String { "simulation parameter \(parameter) \(problem)" }

  /// `value` is not finite or not within `range`.
  static func outside<Value: Comparable>(_ parameter: String, _ value: Value, _ range: ClosedRange<Value>) -> SimulationError {
    SimulationError(parameter: parameter, problem: "must be within \(range.lowerBound)…\(range.upperBound), got \(value)")
  }
}

/// Checks a number against its bounds (NaN and ±∞ are outside every bound).
func check(_ value: Double, within range: ClosedRange<Double>, _ parameter: String) throws(SimulationError) {
  guard value.isFinite, range.contains(value) else { throw .outside(parameter, value, range) }
}

func check(_ value: Int, within range: ClosedRange<Int>, _ parameter: String) throws(SimulationError) {
  guard range.contains(value) else { throw .outside(parameter, value, range) }
}

/// Checks that both ends of a range lie within `bounds`.
func check(_ value: ClosedRange<Double>, within bounds: ClosedRange<Double>, _ parameter: String) throws(SimulationError) {
  guard value.lowerBound.isFinite, value.upperBound.isFinite, bounds.contains(value.lowerBound), bounds.contains(value.upperBound) else {
    throw SimulationError(
      parameter: parameter, problem: "must lie within \(bounds.lowerBound)…\(bounds.upperBound), got \(value.lowerBound)…\(value.upperBound)")
  }
}

extension SimulationOptions {
  /// The bounds ``validate()`` checks every option against (``simulateScan(_:to:format:progress:)``
  /// validates first): what the simulator renders correctly and a computer holds. `headscan
  /// simulate` checks its options against the same values (docs/command-line.md, "Option bounds").
  public enum Bounds {
    /// Frames of a scan (100 000 frames are 55 minutes at 30 fps).
    public static let frames = 1...100_000
    /// Frames per second.
    public static let fps = 1.0...240.0
    /// Image width, pixels; the height is ¾ of it (4:3, like the TrueDepth camera): 16 × 12 to
    /// 2048 × 1536, which holds the TrueDepth's 640 × 480 and the phones' 1920 × 1440 colour.
    /// Rendering takes about 55 bytes a pixel for each frame in flight (two a core).
    public static let width = 16...2048
    /// Image height, pixels (¾ of ``width``).
    public static let height = 12...1536
    /// Stickers on the cap (ids 0…count − 1; the dictionary must have that many).
    public static let markerCount = 0...250
    /// Printed marker side, metres.
    public static let markerSide = 0.004...0.040
    /// White paper around the printed marker on each edge, metres.
    public static let markerMargin = 0.0...0.010
    /// Fraction of frames with a random motion blur.
    public static let motionBlurRate = 0.0...1.0
    /// Motion-blur lengths (``motionBlurLength`` and ``shakenFrames``' lengths), pixels at 640 px width.
    public static let motionBlurLength = 0.0...100.0
    /// The true focal length, pixels at 640 px width.
    public static let focalLength = 100.0...5000.0
    /// Relative error of the stated focal length.
    public static let focalError = -0.5...0.5
    /// Relative error of the depth scale and of the printed side.
    public static let depthScaleError = -0.2...0.2
    public static let printedSideError = -0.2...0.2
    /// Frame indices of ``lostMarkers`` and ``shakenFrames`` (frames past the scan's end are ignored).
    public static let frameIndex = 0...(frames.upperBound - 1)
    /// Marker ids of ``lostMarkers`` (ids not on the cap are ignored).
    public static let markerID = 0...(markerCount.upperBound - 1)
  }

  /// Checks every option against ``Bounds``, ``HeadShape/Parameters/Bounds``,
  /// ``SensorModel/Bounds`` and ``CameraPath/Bounds``.
  /// - Throws: ``SimulationError`` naming the first option out of bounds.
  public func validate() throws(SimulationError) {
    try check(frames, within: Bounds.frames, "frames")
    try check(fps, within: Bounds.fps, "fps")
    try check(width, within: Bounds.width, "width")
    try check(height, within: Bounds.height, "height")
    // Both within 2048, so the products cannot overflow.
    guard width * 3 == height * 4 else {
      throw SimulationError(parameter: "width", problem: "and height must be 4:3 like the TrueDepth camera, got \(width)×\(height)")
    }
    try check(markerCount, within: Bounds.markerCount, "markerCount")
    try check(markerSide, within: Bounds.markerSide, "markerSide")
    if let markerMargin { try check(markerMargin, within: Bounds.markerMargin, "markerMargin") }
    try check(motionBlurRate, within: Bounds.motionBlurRate, "motionBlurRate")
    try check(motionBlurLength, within: Bounds.motionBlurLength, "motionBlurLength")
    try check(focalLength, within: Bounds.focalLength, "focalLength")
    try check(focalError, within: Bounds.focalError, "focalError")
    try check(depthScaleError, within: Bounds.depthScaleError, "depthScaleError")
    try check(printedSideError, within: Bounds.printedSideError, "printedSideError")
    for (id, frame) in lostMarkers.sorted(by: { $0.key < $1.key }) {
      try check(id, within: Bounds.markerID, "lostMarkers (id)")
      try check(frame, within: Bounds.frameIndex, "lostMarkers[\(id)]")
    }
    for (frame, length) in shakenFrames.sorted(by: { $0.key < $1.key }) {
      try check(frame, within: Bounds.frameIndex, "shakenFrames (frame)")
      try check(length, within: Bounds.motionBlurLength, "shakenFrames[\(frame)]")
    }
    try head.validate()
    try sensor.validate()
    try path.validate()
  }
}

extension HeadShape.Parameters {
  /// The bounds of a head the solver builds and the simulator renders correctly (metres, percent).
  public enum Bounds {
    /// Nominal head length, metres (newborn to about two years).
    public static let length = 0.100...0.220
    /// Target cranial index.
    public static let cranialIndex = 60.0...110.0
    /// Target CVAI, percent. The flattening reaches about 13 % at CI 60 and more at higher CI;
    /// 12 % is past CHOA's severest level (8.75 %) and within reach at every CI and length.
    public static let cvai = 0.0...12.0
    /// Height of the widest layer above the ears' plane, metres: at least 10 mm above
    /// ``HeadShape/bumpCeiling``, so the measurement band has no face or ear bumps.
    public static let measurementHeight = 0.018...0.030
    /// Vertical semi-axis of the vault, metres.
    public static let vaultHeight = 0.060...0.100
    /// Vertical semi-axis of the flank below the widest layer, metres.
    public static let flankHeight = 0.035...0.060
    /// How far the vault's axis sits anterior of the ears, metres.
    public static let vaultOffset = -0.010...0.012
  }

  /// Checks every parameter against ``Bounds``.
  /// - Throws: ``SimulationError`` naming the first parameter out of bounds.
  public func validate() throws(SimulationError) {
    try check(length, within: Bounds.length, "head.length")
    try check(cranialIndex, within: Bounds.cranialIndex, "head.cranialIndex")
    try check(cvai, within: Bounds.cvai, "head.cvai")
    try check(measurementHeight, within: Bounds.measurementHeight, "head.measurementHeight")
    try check(vaultHeight, within: Bounds.vaultHeight, "head.vaultHeight")
    try check(flankHeight, within: Bounds.flankHeight, "head.flankHeight")
    try check(vaultOffset, within: Bounds.vaultOffset, "head.vaultOffset")
  }
}

extension SensorModel {
  /// The bounds of the depth camera's model (metres, pixels, fractions).
  public enum Bounds {
    /// Per-pixel depth noise σ0, and the correlated noise's and the frame offset's σ, metres.
    public static let depthNoise = 0.0...0.050
    /// The reference distance of the depth noise, metres.
    public static let noiseReferenceDepth = 0.05...2.0
    /// Correlation length of the correlated noise, pixels.
    public static let correlationLength = 1.0...1000.0
    /// Nearest and farthest depth, metres (nearest below farthest).
    public static let depthRange = 0.05...10.0
    /// Grazing-incidence cosines (the cutoff at or below the fade).
    public static let cosine = 0.0...1.0
    /// Fractions (random dropout, silhouette loss).
    public static let fraction = 0.0...1.0
    /// The depth step that makes an edge, metres.
    public static let edgeJump = 0.0001...1.0
    /// Mean holes a frame.
    public static let holesPerFrame = 0.0...100.0
    /// Hole diameters, pixels.
    public static let holeDiameter = 1.0...50.0
    /// Colour noise σ, grey levels.
    public static let colourNoise = 0.0...50.0
    /// Optical blur σ of the colour, pixels.
    public static let blur = 0.0...10.0
  }

  /// Checks every parameter against ``Bounds``.
  /// - Throws: ``SimulationError`` naming the first parameter out of bounds.
  public func validate() throws(SimulationError) {
    try check(depthNoise, within: Bounds.depthNoise, "sensor.depthNoise")
    try check(noiseReferenceDepth, within: Bounds.noiseReferenceDepth, "sensor.noiseReferenceDepth")
    try check(correlatedNoise, within: Bounds.depthNoise, "sensor.correlatedNoise")
    try check(correlationLength, within: Bounds.correlationLength, "sensor.correlationLength")
    try check(frameDepthOffset, within: Bounds.depthNoise, "sensor.frameDepthOffset")
    try check(minimumDepth, within: Bounds.depthRange, "sensor.minimumDepth")
    try check(maximumDepth, within: Bounds.depthRange, "sensor.maximumDepth")
    guard minimumDepth < maximumDepth else {
      throw SimulationError(parameter: "sensor.minimumDepth", problem: "must be below sensor.maximumDepth, got \(minimumDepth) and \(maximumDepth)")
    }
    try check(grazingCutoff, within: Bounds.cosine, "sensor.grazingCutoff")
    try check(grazingFade, within: Bounds.cosine, "sensor.grazingFade")
    guard grazingCutoff <= grazingFade else {
      throw SimulationError(parameter: "sensor.grazingCutoff", problem: "must be at most sensor.grazingFade, got \(grazingCutoff) and \(grazingFade)")
    }
    try check(randomDropout, within: Bounds.fraction, "sensor.randomDropout")
    try check(silhouetteLoss, within: Bounds.fraction, "sensor.silhouetteLoss")
    try check(edgeJump, within: Bounds.edgeJump, "sensor.edgeJump")
    try check(holesPerFrame, within: Bounds.holesPerFrame, "sensor.holesPerFrame")
    try check(holeDiameter, within: Bounds.holeDiameter, "sensor.holeDiameter")
    try check(colourNoise, within: Bounds.colourNoise, "sensor.colourNoise")
    try check(blur, within: Bounds.blur, "sensor.blur")
  }
}

extension CameraPath {
  /// The bounds of the operator's path (metres, degrees, fractions).
  public enum Bounds {
    /// Mean camera distance from the vault centre, metres.
    public static let distance = 0.1...1.0
    /// Swing of that distance, metres.
    public static let distanceSwing = 0.0...0.1
    /// Camera distance from the surface (``surfaceDistance``), metres.
    public static let surfaceDistance = 0.05...1.0
    /// Mean elevations, degrees; with their swing they stay within ±``steepest`` (the view
    /// never turns vertical, where the phone's up direction is lost).
    public static let elevation = -80.0...80.0
    /// Swings of the elevation, degrees.
    public static let elevationSwing = 0.0...80.0
    /// The steepest view, degrees: |elevation| + swing at most.
    public static let steepest = 85.0
    /// Azimuth at the first frame, degrees.
    public static let startAzimuth = -360.0...360.0
    /// Turns covered.
    public static let coverage = 0.0...2.0
    /// Slow hand tremor, metres.
    public static let tremor = 0.0...0.050
    /// Fast (8–12 Hz) hand tremor, metres.
    public static let fineTremor = 0.0...0.020
    /// Roll amplitude, degrees.
    public static let roll = 0.0...90.0
    /// Fractions of the ear pass (its share of the frames, its descent).
    public static let fraction = 0.0...1.0
  }

  /// Checks every parameter against ``Bounds``.
  /// - Throws: ``SimulationError`` naming the first parameter out of bounds.
  public func validate() throws(SimulationError) {
    try check(distance, within: Bounds.distance, "path.distance")
    try check(distanceSwing, within: Bounds.distanceSwing, "path.distanceSwing")
    if let surfaceDistance { try check(surfaceDistance, within: Bounds.surfaceDistance, "path.surfaceDistance") }
    try Self.checkElevation(elevation, swing: elevationSwing, "path.elevation")
    try check(startAzimuth, within: Bounds.startAzimuth, "path.startAzimuth")
    try check(coverage, within: Bounds.coverage, "path.coverage")
    try check(tremor, within: Bounds.tremor, "path.tremor")
    try check(fineTremor, within: Bounds.fineTremor, "path.fineTremor")
    try check(roll, within: Bounds.roll, "path.roll")
    if let earPass {
      try check(earPass.share, within: Bounds.fraction, "path.earPass.share")
      try Self.checkElevation(earPass.elevation, swing: earPass.elevationSwing, "path.earPass.elevation")
      try check(earPass.descent, within: Bounds.fraction, "path.earPass.descent")
    }
  }

  static func checkElevation(_ elevation: Double, swing: Double, _ parameter: String) throws(SimulationError) {
    try check(elevation, within: Bounds.elevation, parameter)
    try check(swing, within: Bounds.elevationSwing, parameter + "Swing")
    guard abs(elevation) + swing <= Bounds.steepest else {
      throw SimulationError(
        parameter: parameter, problem: "and its swing must stay within ±\(Bounds.steepest)°, got \(elevation) ± \(swing)")
    }
  }
}
