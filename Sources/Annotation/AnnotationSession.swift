import Foundation
import HeadScan

/// One scan made ready for annotation: opened, registered and fused once, with what the page
/// shows of it. Immutable after ``prepare(scan:proposer:workers:progress:)``; safe to share between requests.
public final class AnnotationSession: Sendable {
  /// The scan (frames are read from it on demand).
  public let scan: any ScanReader
  /// The reconstruction made at start, reused for every lift and preview.
  public let reconstruction: HeadReconstruction
  /// The strip: one entry per frame.
  public let frames: [FrameStatus]
  /// Automatic proposals by landmark name (empty without a proposer).
  public let proposals: [String: GhostLandmark]
  /// Why the proposer gave nothing, if it failed.
  public let proposalProblem: String?
  /// A frame to draw the fused head in before the landmarks define one: the experimental
  /// automatic head frame when it can be found, else the world frame.
  public let overviewFromWorld: RigidTransform
  let detector: MarkerDetector

  init(
    scan: any ScanReader, reconstruction: HeadReconstruction, frames: [FrameStatus], proposals: [String: GhostLandmark],
    proposalProblem: String?, overviewFromWorld: RigidTransform, detector: MarkerDetector
  ) {
    self.scan = scan
    self.reconstruction = reconstruction
    self.frames = frames
    self.proposals = proposals
    self.proposalProblem = proposalProblem
    self.overviewFromWorld = overviewFromWorld
    self.detector = detector
  }

  /// Reconstructs `scan` (the long part) and gathers the strip, the proposals and the overview frame.
  /// - Parameters:
  ///   - proposer: automatic landmarks, if any (its failure is kept as ``proposalProblem``).
  ///   - workers: worker threads of the reconstruction (`nil`: one a core this process may use).
  ///   - progress: the reconstruction's (stage, done, total), on the calling thread.
  /// - Throws: the reconstruction's errors (`ReconstructionError`, `ScanIOError`), and
  ///   `FileProblem` for a dictionary the detector does not know.
  public static func prepare(
    scan: any ScanReader, proposer: LandmarkProposer? = nil, workers: Int? = nil, progress: ((ReconstructionStage, Int, Int) -> Void)? = nil
  ) throws -> AnnotationSession {
    let recording = CoverageRecordingReader(scan)
    let reconstruction: HeadReconstruction
    let detector: MarkerDetector
    do {
      detector = try MarkerDetector(dictionary: scan.header.markers.dictionary, parameters: ReconstructionOptions.default.observation.detector)
      var options = ReconstructionOptions.default
      options.workers = workers
      reconstruction = try reconstructHead(recording, options: options, progress: progress)
    } catch let error as ArucoError {
      throw FileProblem(path: scan.path, problem: error.description)
    }
    // Clicks are lifted with the depth scale and focal length the registration used.
    let scan = try reconstruction.liftingScan(scan)
    var proposals: [String: GhostLandmark] = [:]
    var problem: String?
    if let proposer {
      do {
        proposals = try proposer(AnnotationContext(scan: scan, reconstruction: reconstruction))
          .filter { LandmarkFile.names.contains($0.key) && $0.value.point.x.isFinite && $0.value.point.y.isFinite && $0.value.point.z.isFinite }
      } catch {
        problem = String(describing: error)
      }
    }
    let overview = (try? HeadFrameEstimate.automatic(reconstruction).headFromWorld) ?? .identity
    // Live coverage for the strip: a second pass over the frames in recording order, as the
    // recorder would have followed them. Its failure leaves the strip without it.
    let live = (try? replayCoverage(in: scan, workers: workers)) ?? []
    return AnnotationSession(
      scan: scan, reconstruction: reconstruction,
      frames: FrameStatus.strip(of: reconstruction, coverage: recording.coverage, live: live),
      proposals: proposals, proposalProblem: problem, overviewFromWorld: overview, detector: detector)
  }

  /// The markers detected in frame `index`'s colour image (cap ids only), corners in pixels.
  /// - Throws: `ScanIOError`, `ArucoError`.
  public func markers(inFrame index: Int) throws -> [DetectedMarker] {
    let frame = try scan.frame(at: index)
    var found = try detector.detect(bgra: frame.color.bgra, width: frame.color.width, height: frame.color.height)
    if let count = scan.header.capMarkerCount { found.removeAll { $0.id >= count } }
    return found
  }

  /// Where a world point (metres) appears in frame `index`'s colour image, if the frame has a
  /// pose and the point is in front of the camera and inside the image; `visible` is false when
  /// the frame's depth there differs from the point's by more than 1 cm (something nearer hides
  /// it, or the pixel sees past it), true when the pixel has no depth to tell.
  public func projection(of point: SIMD3<Double>, inFrame index: Int, depth: DepthMap?) -> (u: Double, v: Double, visible: Bool)? {
    guard frames.indices.contains(index), let pose = reconstruction.frames[index].worldFromCamera else { return nil }
    let camera = pose.inverse.apply(point)
    let intrinsics = scan.header.colorIntrinsics
    guard camera.z > 0, let pixel = intrinsics.project(camera), pixel.x >= -0.5, pixel.y >= -0.5,
      pixel.x < Double(intrinsics.width) - 0.5, pixel.y < Double(intrinsics.height) - 0.5
    else { return nil }
    var visible = true
    if let depth {
      let x = Int(((pixel.x + 0.5) * Double(depth.width) / Double(intrinsics.width)).rounded(.down))
      let y = Int(((pixel.y + 0.5) * Double(depth.height) / Double(intrinsics.height)).rounded(.down))
      if x >= 0, y >= 0, x < depth.width, y < depth.height, depth[x, y].isFinite {
        visible = abs(Double(depth[x, y]) - camera.z) < 0.01
      }
    }
    return (pixel.x, pixel.y, visible)
  }

  /// Where accepting a proposal places the landmark: among the eight registered frames that
  /// show `point` unhidden nearest their image centre, the pixel whose lift (the project's
  /// lifting, as `measure` will do it) lands nearest the point. `nil` when no frame shows it.
  /// - Throws: `ScanIOError` reading a frame.
  public func bestView(of point: SIMD3<Double>) throws -> (frame: Int, u: Double, v: Double)? {
    let intrinsics = scan.header.colorIntrinsics
    var candidates: [(distance: Double, frame: Int)] = []
    for status in frames where status.registered {
      guard let seen = projection(of: point, inFrame: status.frame, depth: nil) else { continue }
      candidates.append(((seen.u - intrinsics.cx) * (seen.u - intrinsics.cx) + (seen.v - intrinsics.cy) * (seen.v - intrinsics.cy), status.frame))
    }
    var best: (error: Double, frame: Int, u: Double, v: Double)?
    var tried = 0
    for candidate in candidates.sorted(by: { $0.distance < $1.distance }) where tried < 8 {
      let depth = try scan.frame(at: candidate.frame).depth
      guard let seen = projection(of: point, inFrame: candidate.frame, depth: depth), seen.visible else { continue }
      tried += 1
      guard let lifted = lift("proposal", at: .pixel(frame: candidate.frame, u: seen.u, v: seen.v), path: "proposal").point else { continue }
      let error = (lifted - point).length
      if error < best?.error ?? .infinity { best = (error, candidate.frame, seen.u, seen.v) }
    }
    return best.map { ($0.frame, $0.u, $0.v) }
  }
}
