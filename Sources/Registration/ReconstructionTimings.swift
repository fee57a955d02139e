/// Wall-clock seconds spent in each stage of ``reconstructHead(_:options:progress:)``.
public struct ReconstructionTimings: Sendable, Hashable {
  /// Pass 1: reading every frame, detecting markers, lifting them to 3D.
  public var detection = 0.0
  /// Chaining frames through markers and the global optimisation.
  public var registration = 0.0
  /// Pass 2: reading the registered frames again, back-projecting and averaging per voxel (with ICP if asked).
  public var fusion = 0.0
  /// Statistical outlier removal and smoothing onto local planes (normals).
  public var cleaning = 0.0
  /// Settling the markers onto the surface and re-expressing the world.
  public var settling = 0.0

  /// All zero.
  public init() {}

  /// All stages.
  public var total: Double { detection + registration + fusion + cleaning + settling }
}
