import Foundation

/// Named sets of ``SimulationOptions``; individual options set after a preset override it.
public enum SimulationPreset: String, Sendable, Hashable, Codable, CaseIterable {
  /// The simulator's base conditions (``SimulationOptions/init()``): 240 frames,
  /// 30 tangent-projected stickers, σ = 0.5 mm·(z / 0.3 m)², dropouts from 69.5° to 78.5°.
  case `default`
  /// A TrueDepth recording as an independent simulator renders it:
  /// 600 frames, 40 decal stickers of 16 mm with a 2 mm margin, σ = 0.4 mm·(z / 0.2 m)²
  /// per pixel, dropouts ramping in at 72–80° incidence, half the silhouette pixels lost,
  /// 3 random 2–6 px holes a frame, motion blur of 3–14 px in 5 % of frames, the camera
  /// 24–39 cm from the surface with hand tremor, fx drawn in 587.5…592.5 px. The camera
  /// orbits the head from 14–42° above the widest layer for the first 65 % of the frames, then
  /// sinks to ear level (−8…0°) and walks back round (``CameraPath/EarPass``): a clinical
  /// recording shows the ears, where the tragions are placed.
  case realistic

  /// Sets the preset's values in `options` (leaving the head, size, seed and format alone).
  public func apply(to options: inout SimulationOptions) {
    options.preset = self
    switch self {
    case .default:
      let original = SimulationOptions()
      options.frames = original.frames
      options.markerCount = original.markerCount
      options.markerSide = original.markerSide
      options.markerMargin = original.markerMargin
      options.stickerWrap = original.stickerWrap
      options.sensor = original.sensor
      options.path = original.path
      options.motionBlurRate = original.motionBlurRate
      options.motionBlurLength = original.motionBlurLength
      options.focalLength = original.focalLength
      options.focalError = original.focalError
      options.depthScaleError = original.depthScaleError
      options.printedSideError = original.printedSideError
    case .realistic:
      options.frames = 600
      options.markerCount = 40
      options.markerSide = 0.016
      options.markerMargin = 0.002
      options.stickerWrap = .decal
      var sensor = SensorModel()
      sensor.depthNoise = 0.0004
      sensor.noiseReferenceDepth = 0.2
      sensor.setGrazingIncidence(from: 72, to: 80)
      sensor.randomDropout = 0
      sensor.silhouetteLoss = 0.5
      sensor.holesPerFrame = 3
      sensor.holeDiameter = 2...6
      options.sensor = sensor
      var path = CameraPath()
      path.surfaceDistance = 0.24...0.39
      path.tremor = 0.003
      path.fineTremor = 0.0005
      path.earPass = CameraPath.EarPass()
      options.path = path
      options.motionBlurRate = 0.05
      options.motionBlurLength = 3...14
      options.focalLength = 587.5...592.5
      options.focalError = 0
      options.depthScaleError = 0
      options.printedSideError = 0
    }
  }
}
