import CVAI
import Landmarks
import PointCloud
import Reconstruction
import Registration
import ScanIO
import _HeadScanSupport

extension MeasurementUncertainty {
  /// The errors of a measured scan, estimated from the scan itself (see
  /// `MeasurementUncertainty` and docs/intervals.md).
  ///
  /// - Landmarks placed on a frame's pixels: each was cast along its ray onto the fused surface
  ///   (or, where that failed, lifted by the frame's depth) and moved by the frame's pose. Along
  ///   its ray: on the fused surface, the depth noise at its depth (`ScanNoise`) over the square
  ///   root of the registered frames that face it (it projects into their image, and the fused
  ///   surface there faces their camera); by the
  ///   frame's depth, the median of a window's n valid pixels, variance `π/2 · σ(z)² / n`, plus
  ///   the surface's own relief across the window (the window's robust depth spread squared, less
  ///   σ(z)²: on the nose tip or a slope the median lands anywhere in it). In every direction,
  ///   the frame's pose error at the landmark: the frame's corner
  ///   residual `σ` (RMS, per axis `σ/√3`) through the rigid fit's leverage,
  ///   `σ_axis² (1/N + 3d² / (2 Σ|xᵢ − x̄|²))` for N corners xᵢ of its registered markers and a
  ///   landmark `d` from their centroid; `σ` is the frame's RMS times `√(3N / (3N − 6))` (the
  ///   pose took six of the residuals' degrees of freedom), never less than the median
  ///   registered frame's RMS (one sticker's four corners estimate their own noise poorly).
  ///   Landmarks given in the world are taken as exact.
  /// - Scale: the marker map's, `cornerRMS / (R √(4K))` for K registered markers spread R (RMS)
  ///   about their centroid: a marker's corner errors that are its own (print, fit to the curved
  ///   cap) do not average over its observations. (A depth scale error of the sensor itself
  ///   cannot be seen in the scan and is not included.)
  /// - Surface: the offsets the frames' pose errors leave on the fused contour, from each
  ///   registered frame's jackknife over its stickers (``FramePoseOffsets``, with `contour`).
  ///   Without a contour, or where no jackknifed frame (three depth-lifted stickers, finite
  ///   left-out fits) sees it, a smooth shared offset from each registered frame's corner
  ///   residual instead:
  ///   `σ_surface = RMS(residuals) / √(frames seeing a point)`, the frames that see a point of
  ///   the head being the registered frames times the share of the head a frame sees (its
  ///   markers over the cap's).
  /// - Contour roughness: measured by the bootstrap on the contour itself (``contourRoughness``).
  /// - Parameters:
  ///   - frame: the head frame the scan was measured in.
  ///   - reconstruction: the scan's reconstruction.
  ///   - landmarks: the landmarks file the frame came from, if any.
  ///   - capMarkers: how many markers the cap has.
  ///   - contour: the contour at the measurement level (head frame, millimetres), for the
  ///     surface's offsets.
  public init(
    frame: HeadFrameEstimate, reconstruction: HeadReconstruction, scan: any ScanReader, landmarks file: LandmarkFile?, capMarkers: Int,
    contour: LayerContour? = nil
  ) {
    self.init(contourRoughness: true)
    let noise = reconstruction.noise
    let markers = Dictionary(reconstruction.markers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    // Frames that see a point of the head: the registered frames times the share of the cap a frame sees.
    let registered = reconstruction.frames.filter { $0.worldFromCamera != nil }
    let seen = capMarkers > 0 ? registered.reduce(0.0) { $0 + Double($1.detectedIDs.count) } / Double(capMarkers) : 0
    let frameRMS = registered.compactMap(\.rms)
    let typicalRMS = frameRMS.isEmpty ? 0 : upperMedian(frameRMS)
    if let file, let lifted = frame.landmarks, frame.source == .landmarks {
      let placed = [("nasion", lifted.nasion), ("noseTip", lifted.noseTip), ("leftEar", lifted.leftEar), ("rightEar", lifted.rightEar)]
      landmarks = placed.map { name, world in
        let position = frame.headFromWorld.apply(world)
        guard case .pixel(let index, let u, let v)? = file.positions[name], reconstruction.frames.indices.contains(index),
          let pose = reconstruction.frames[index].worldFromCamera
        else { return Landmark(position: position, isotropicSD: 0) }
        let diagnostics = reconstruction.frames[index]
        let inCamera = pose.inverse.apply(world)
        let ray = frame.headFromWorld.rotation * (world - pose.translation).normalized
        let noiseSD = noise.depthNoise(atDistance: inCamera.z) ?? 0
        var alongRay = noiseSD
        let source = try? liftLandmark(name, of: file, path: "", scan: scan, reconstruction: reconstruction).source
        if source == .fusedSurface {
          alongRay = noiseSD / Double(max(1, framesFacing(world, reconstruction: reconstruction, scan: scan))).squareRoot()
        } else if let window = try? depthWindow(scan, frame: index, u: u, v: v) {
          // The median's noise, and the surface's own relief across the window beyond the noise.
          let relief = max(0, window.spread * window.spread - noiseSD * noiseSD)
          alongRay = (Double.pi / 2 * noiseSD * noiseSD / Double(window.count) + relief).squareRoot()
        }
        let corners = diagnostics.detectedIDs.compactMap { markers[$0] }.flatMap(\.corners)
        var poseSD = 0.0
        if let rms = diagnostics.rms, !corners.isEmpty {
          let centroid = corners.reduce(SIMD3<Double>.zero, +) / Double(corners.count)
          let spread = corners.reduce(0.0) { $0 + ($1 - centroid).dot($1 - centroid) }
          let d = world - centroid
          let leverage = 1 / Double(corners.count) + (spread > 0 ? 1.5 * d.dot(d) / spread : 0)
          // The fit took 6 of the corners' 3N coordinates' degrees of freedom, and a frame held
          // by few corners estimates its own noise poorly: never below the median frame's.
          let freedom = Double(3 * corners.count - 6)
          let noise = freedom > 0 ? max(rms * (Double(3 * corners.count) / freedom).squareRoot(), typicalRMS) : typicalRMS
          poseSD = noise / 3.0.squareRoot() * leverage.squareRoot()
        }
        return Landmark(position: position, isotropicSD: poseSD, alongRaySD: alongRay, ray: ray)
      }
    }
    // The map's scale: its markers' mutual distances. Each marker's corners carry an error its
    // observations do not average away (the print, its fit to the curved cap), so the scale is
    // known to the corner RMS over the markers' spread R (RMS about their centroid) and the
    // square root of the corners, 4 per marker.
    let mapped = reconstruction.markers.flatMap(\.corners)
    if mapped.count >= 8, reconstruction.cornerRMS.isFinite {
      let centroid = mapped.reduce(SIMD3<Double>.zero, +) / Double(mapped.count)
      let spread = (mapped.reduce(0.0) { $0 + ($1 - centroid).dot($1 - centroid) } / Double(mapped.count)).squareRoot()
      if spread > 0 { scaleSD = reconstruction.cornerRMS / (spread * Double(mapped.count).squareRoot()) }
    }
    // Where the stickers' scale was applied, the lengths are known to its uncertainty too.
    if let scale = reconstruction.scale, scale.applied, scale.uncertainty.isFinite {
      scaleSD = (scaleSD * scaleSD + scale.uncertainty * scale.uncertainty).squareRoot()
    }
    let residuals = reconstruction.frames.compactMap { $0.worldFromCamera != nil ? $0.rms : nil }
    if !residuals.isEmpty, capMarkers > 0 {
      let rms = (residuals.reduce(0) { $0 + $1 * $1 } / Double(residuals.count)).squareRoot()
      surfaceSD = rms / max(1, seen).squareRoot() * 1000
    }
    if let contour {
      poseOffsets = FramePoseOffsets(
        reconstruction: reconstruction, headFromWorld: frame.headFromWorld, contour: contour, intrinsics: scan.header.intrinsics)
    }
  }
}

/// The depth window a pixel landmark is lifted from (`landmarkDepthWindow(_:u:v:)`): its
/// robust spread (1.4826 × the median absolute deviation, metres) and how many pixels it holds;
/// `nil` for fewer than three.
func depthWindow(_ scan: any ScanReader, frame index: Int, u: Double, v: Double) throws -> (spread: Double, count: Int)? {
  let values = landmarkDepthWindow(try scan.frame(at: index), u: u, v: v).depths.map(Double.init)
  guard values.count >= 3 else { return nil }
  let median = upperMedian(values)
  return (1.4826 * upperMedian(values.map { abs($0 - median) }), values.count)
}

/// How many registered frames face a world point (metres): it projects inside their colour image
/// (the scan header's intrinsics) and the fused surface's normal nearest to it faces their camera
/// (cosine above 0.2, as `liftLandmarks(_:path:scan:reconstruction:)` asks). Occlusion is not
/// checked. The frames whose depth the fused surface there averages, for a landmark's noise.
func framesFacing(_ point: SIMD3<Double>, reconstruction: HeadReconstruction, scan: any ScanReader) -> Int {
  let cloud = reconstruction.cloud
  guard cloud.normals.count == cloud.positions.count else { return 0 }
  var nearest: (distance: Double, normal: SIMD3<Double>)?
  for (p, n) in zip(cloud.positions, cloud.normals) {
    let d = (SIMD3<Double>(p) - point).length
    if d < nearest?.distance ?? .infinity { nearest = (d, SIMD3<Double>(n)) }
  }
  guard let normal = nearest?.normal else { return 0 }
  let k = scan.header.intrinsics
  var count = 0
  for f in reconstruction.frames {
    guard let pose = f.worldFromCamera else { continue }
    let toCamera = (pose.translation - point).normalized
    guard toCamera.dot(normal) > 0.2, let pixel = k.project(pose.inverse.apply(point)) else { continue }
    if pixel.x >= 0, pixel.y >= 0, pixel.x < Double(k.width), pixel.y < Double(k.height) { count += 1 }
  }
  return count
}
