import Fusion
import Reconstruction
import Registration
import Reports

/// Millimetres in a metre: reports give lengths in millimetres, the pipeline works in metres.
private let mmPerMetre = 1000.0

extension MeasureReport.RegistrationSummary {
  /// The counts of a reconstruction, as `measure --json` reports them under `registration` (corner RMS in mm).
  public init(_ reconstruction: HeadReconstruction) {
    self.init(
      frames: reconstruction.frames.count, framesRegistered: reconstruction.framesRegistered,
      markers: reconstruction.markersDetected.count, markersRegistered: reconstruction.markers.count,
      cornerRMS: reconstruction.cornerRMS * mmPerMetre)
  }
}

extension MeasureReport.IntrinsicsCheckSummary {
  /// The report's summary of an intrinsics check (`intrinsicsCheck` in both JSON reports).
  /// - Parameter focalLengthUsed: the focal length the depth was lifted with, where not the stated one.
  public init(_ check: IntrinsicsCheck, focalLengthUsed: Double?) {
    self.init(
      statedFocalLength: check.statedFocalLength, focalLengthEstimate: check.focalLengthEstimate, consistent: check.consistent,
      focalLengthUncertainty: check.focalLengthUncertainty, focalLengthUsed: focalLengthUsed)
  }
}

extension MeasureReport.ScaleSummary {
  /// The report's summary of a metric scale (`scale` in both JSON reports).
  public init(_ scale: MetricScale) {
    self.init(depthScaleFactor: scale.depthScaleFactor, uncertainty: scale.uncertainty, applied: scale.applied)
  }
}

extension ReconstructionReport {
  /// The report of a reconstruction, as `headscan reconstruct --json` writes it.
  /// - Parameter fusion: the fusion options it was made with (for the signed-distance band).
  public init(_ result: HeadReconstruction, fusion: FusionOptions) {
    let noise = result.noise
    self.init(
      frames: result.frames.count, framesRegistered: result.framesRegistered, framesFused: result.framesFused,
      markers: result.markersDetected.count, markersRegistered: result.markers.count, worldMarker: result.worldMarkerID,
      cornerRMS: result.cornerRMS * mmPerMetre, points: result.cloud.count, offCapDetections: result.offCapDetections,
      framesRefinedByICP: result.frames.filter(\.refinedByICP).count,
      framesPlacedByResection: result.frames.filter(\.placedByResection).count,
      outliers: result.frames.flatMap { f in f.outlierIDs.map { Outlier(frame: f.index, id: $0) } },
      rejected: result.frames.compactMap { f in f.rejection.map { Rejected(frame: f.index, reason: $0.description) } },
      noise: Noise(
        depthNoiseAt20cm: noise.depthNoiseAt20cm.map { $0 * mmPerMetre }, depthSamples: noise.depthSamples,
        typicalMisfit: noise.typicalMisfit.map { $0 * mmPerMetre },
        outlierDistance: noise.outlierDistance.isFinite ? noise.outlierDistance * mmPerMetre : nil,
        farDepth: noise.farDepth.map { $0 * mmPerMetre },
        signedDistanceBand: fusion.method == .signedDistance ? fusion.truncation(for: noise) * mmPerMetre : nil),
      markerMap: result.markers.map { m in MappedMarker(id: m.id, corners: m.corners.map { [$0.x, $0.y, $0.z] }, observations: m.observations) },
      markerFits: result.markerFits.map { f in
        Fit(
          id: f.id, observations: f.observations, rms: f.rms * mmPerMetre, shapeError: f.shapeError * mmPerMetre,
          rmsLimit: f.rmsLimit * mmPerMetre, shapeLimit: f.shapeLimit * mmPerMetre, kept: f.kept)
      },
      seconds: [
        "detection": result.timings.detection, "registration": result.timings.registration, "fusion": result.timings.fusion,
        "cleaning": result.timings.cleaning, "settling": result.timings.settling, "total": result.timings.total,
      ],
      intrinsicsCheck: result.intrinsicsCheck.map { .init($0, focalLengthUsed: result.focalLengthUsed) })
    scale = result.scale.map(MeasureReport.ScaleSummary.init)
  }
}
