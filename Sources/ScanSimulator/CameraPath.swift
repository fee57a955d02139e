import Foundation
import PointCloud

/// A hand-held camera orbiting the head, as a therapist walks around the infant.
public struct CameraPath: Sendable, Hashable, Codable {
  /// Mean distance from the vault centre, metres.
  public var distance: Double = 0.30
  /// Slow in-and-out swing of the distance, metres (amplitude).
  public var distanceSwing: Double = 0.03
  /// Mean elevation above the widest layer's plane, degrees.
  public var elevation: Double = 28
  /// Slow up-and-down swing of the elevation, degrees (amplitude).
  public var elevationSwing: Double = 14
  /// Azimuth at the first frame, degrees (0 = in front of the face, 90 = the infant's left).
  public var startAzimuth: Double = -20
  /// Fraction of a full turn covered (1 = all round the head, 0.5 = half).
  public var coverage: Double = 1.1
  /// Hand tremor: position amplitude, metres.
  public var tremor: Double = 0.003
  /// Roll of the phone about its viewing axis, degrees (amplitude).
  public var roll: Double = 6
  /// When set, the camera's distance from the head surface along its line of sight,
  /// metres: it swings between the range's ends (at the frequency of ``distanceSwing``)
  /// and replaces ``distance`` and ``distanceSwing``.
  public var surfaceDistance: ClosedRange<Double>?
  /// Physiological hand tremor: position amplitude at 8–12 Hz, metres (0 = none),
  /// on top of the slow ``tremor``; the aim point shakes twice as much.
  public var fineTremor: Double = 0
  /// When set, a second, low pass after the orbit that sees the ears (`nil`: the orbit alone).
  public var earPass: EarPass?

  /// A pass at ear level after the orbit: the camera sinks to ``elevation`` and walks back
  /// over the orbit's azimuths (``CameraPath/coverage`` turns, in reverse), as a therapist
  /// lowers the phone to film the ears and the side of the head below the cap, whose surface
  /// faces 40–55° downwards and loses its depth at grazing incidence from above.
  public struct EarPass: Sendable, Hashable, Codable {
    /// Fraction of the scan's frames spent in this pass (the orbit takes the rest).
    public var share: Double
    /// Mean elevation above the widest layer's plane, degrees (the ears' plane is ~22 mm
    /// below it, so 0° looks at the ears about 5° from above at 30 cm).
    public var elevation: Double
    /// Slow up-and-down swing of the elevation, degrees (amplitude, one cycle over the pass).
    public var elevationSwing: Double
    /// Fraction of the pass (from its start) over which the camera sinks from the orbit's elevation.
    public var descent: Double

    public init(share: Double = 0.35, elevation: Double = -4, elevationSwing: Double = 4, descent: Double = 0.15) {
      self.share = share
      self.elevation = elevation
      self.elevationSwing = elevationSwing
      self.descent = descent
    }
  }

  public init() {}

  /// `headFromCamera` (OpenCV camera axes) at time fraction `t` ∈ [0, 1] of the scan.
  ///
  /// - Parameters:
  ///   - centre: what the camera looks at, head frame, metres.
  ///   - phases: seeded phases that make each scan's tremor its own (9, or 12 with ``fineTremor``).
  ///   - surfaceRadius: the distance from `centre` to the head surface along a unit
  ///     direction, metres; needed by ``surfaceDistance`` (without it the range is taken
  ///     from `centre`).
  public func headFromCamera(
    at t: Double, duration: Double, centre: SIMD3<Double>, phases: [Double], surfaceRadius: ((SIMD3<Double>) -> Double)? = nil
  ) -> RigidTransform {
    let degree = Double.pi / 180
    let (azimuthDegrees, elevationDegrees) = angles(at: t, phases: phases)
    let azimuth = azimuthDegrees * degree
    let el = elevationDegrees * degree
    let direction = SIMD3(cos(el) * cos(azimuth), cos(el) * sin(azimuth), sin(el))
    let r: Double
    if let range = surfaceDistance {
      let swing = sin(2 * .pi * 2.3 * t + phases[1])
      let middle = (range.lowerBound + range.upperBound) / 2, half = (range.upperBound - range.lowerBound) / 2
      r = (surfaceRadius?(direction) ?? 0) + middle + half * swing
    } else {
      r = distance + distanceSwing * sin(2 * .pi * 2.3 * t + phases[1])
    }
    let seconds = t * duration
    func wobble(_ k: Int) -> Double {
      sin(2 * .pi * 0.7 * seconds + phases[2 + k]) * 0.6 + sin(2 * .pi * 1.9 * seconds + phases[5 + k]) * 0.4
    }
    var eye = centre + r * direction + tremor * SIMD3(wobble(0), wobble(1), wobble(2))
    var target = centre + SIMD3(0, 0, 0.005) + 2 * tremor * SIMD3(wobble(1), wobble(2), wobble(0))
    if fineTremor > 0, phases.count >= 12 {
      func shiver(_ k: Int) -> Double {
        sin(2 * .pi * 8.3 * seconds + phases[9 + k]) * 0.7 + sin(2 * .pi * 11.7 * seconds + phases[9 + (k + 1) % 3]) * 0.3
      }
      eye += fineTremor * SIMD3(shiver(0), shiver(1), shiver(2))
      target += 2 * fineTremor * SIMD3(shiver(1), shiver(2), shiver(0))
    }
    let view = (target - eye).normalized
    let up = Rotation3(axis: view, angle: roll * degree * sin(2 * .pi * 0.4 * seconds + phases[8])) * SIMD3(0, 0, 1)
    return RigidTransform.lookAt(eye: eye, target: target, up: up)
  }

  /// Azimuth and elevation of the camera's direction from the centre at time fraction `t`, degrees.
  func angles(at t: Double, phases: [Double]) -> (azimuth: Double, elevation: Double) {
    func orbitElevation(_ s: Double) -> Double { elevation + elevationSwing * sin(2 * .pi * 1.5 * s + phases[0]) }
    guard let pass = earPass, pass.share > 0, pass.share < 1 else {
      return (startAzimuth + coverage * 360 * t, orbitElevation(t))
    }
    let orbitEnd = 1 - pass.share
    if t <= orbitEnd {
      let s = t / orbitEnd
      return (startAzimuth + coverage * 360 * s, orbitElevation(s))
    }
    let s = (t - orbitEnd) / pass.share
    let low = pass.elevation + pass.elevationSwing * sin(2 * .pi * s + phases[0])
    let sinking = pass.descent > 0 ? min(1, s / pass.descent) : 1
    let blend = sinking * sinking * (3 - 2 * sinking)
    return (startAzimuth + coverage * 360 * (1 - s), orbitElevation(1) + (low - orbitElevation(1)) * blend)
  }
}
