import CVAI
import Foundation
import PointCloud
import ScanIO
import _HeadScanSupport

/// Everything that defines a simulated scan. Same options and seed, same bytes.
public struct SimulationOptions: Sendable, Hashable {
  /// The head (size, CI, CVAI, flattened side).
  public var head = HeadShape.Parameters()
  /// Stickers on the cap (ids 0..<markerCount).
  public var markerCount = 30
  /// Printed marker side, black border included, metres.
  public var markerSide = 0.016
  /// White paper around the printed marker on each edge, metres (nil: 20 % of the side).
  public var markerMargin: Double?
  /// How the stickers' print follows the curved cap.
  public var stickerWrap: CapLayout.Wrap = .tangentProjection
  /// ArUco dictionary of the stickers.
  public var dictionary = "DICT_4X4_50"
  /// Number of frames.
  public var frames = 240
  /// Frames per second.
  public var fps = 30.0
  /// Image width and height, pixels (depth and colour alike).
  public var width = 640
  public var height = 480
  /// The operator's path around the head.
  public var path = CameraPath()
  /// Noise and dropouts of the depth camera.
  public var sensor = SensorModel()
  /// How depth is stored in a stream.
  public var depthEncoding: RGBDStreamLayout.DepthEncoding = .float32
  /// Stickers that fall off: marker id → first frame without it.
  public var lostMarkers: [Int: Int] = [:]
  /// Frames taken while the phone jerked: frame index → length of the horizontal motion
  /// blur, pixels at 640 px width (scaled with the image).
  public var shakenFrames: [Int: Double] = [:]
  /// Fraction of frames (each drawn independently) with a colour motion blur in a random
  /// direction; ``shakenFrames`` take precedence on their frames.
  public var motionBlurRate: Double = 0
  /// Length range of those blurs, pixels at 640 px width (uniform).
  public var motionBlurLength: ClosedRange<Double> = 3...14
  /// The true focal length (fx = fy) the frames are rendered with, pixels at 640 px
  /// width: one value drawn uniformly from the range with the seed.
  public var focalLength: ClosedRange<Double> = 593...593
  /// Relative error of the header's intrinsics: the stated fx and fy are the true ones
  /// × (1 + focalError); the truth keeps the true ones.
  public var focalError: Double = 0
  /// Relative error of the depth sensor's scale: every written depth is the true one
  /// × (1 + depthScaleError); the truth keeps the true geometry.
  public var depthScaleError: Double = 0
  /// Relative error of the printed stickers: they are rendered with side ``markerSide``, while
  /// the header states ``markerSide`` / (1 + printedSideError) (a print 0.5 % too large
  /// for +0.005).
  public var printedSideError: Double = 0
  /// Record3D output only: also write `rgbd/<i>.conf` confidence maps (2 where there is
  /// depth, 0 where not). Front-camera exports have none, hence off by default.
  public var record3DConfidence = false
  /// The preset these options started from (recorded in the truth).
  public var preset: SimulationPreset = .default
  /// Seed of every random choice (marker layout, tremor, noise).
  public var seed: UInt64 = 1
  /// The header's `patientID`; default `simulated-SEED`.
  public var patientID: String?
  /// The header's `recordedAt` (ISO 8601); default `2026-11-21T10:15:00Z`.
  public var recordedAt: String?

  /// TrueDepth-like colour camera at 640 × 480 (scaled to other sizes).
  public static let baseIntrinsics = CameraIntrinsics(fx: 593, fy: 593, cx: 319.5, cy: 239.5, width: 640, height: 480)

  /// Worker threads (`nil`: one a core this process may use). The scan does not depend on it.
  public var workers: Int?

  public init() {}

  /// The options of `preset` (``SimulationPreset/default`` is ``init()``).
  public init(preset: SimulationPreset) {
    self.init()
    preset.apply(to: &self)
  }

  /// The options of `preset` for `frames` frames of `head`, drawn with `seed`.
  public init(preset: SimulationPreset, frames: Int, seed: UInt64, head: HeadShape.Parameters) {
    self.init(preset: preset)
    (self.frames, self.seed, self.head) = (frames, seed, head)
  }
}

/// How a simulated scan is stored.
public enum SimulationFormat: String, Sendable, CaseIterable {
  /// A `.rgbdscan` stream (docs/formats.md).
  case stream
  /// A TUM-style folder (docs/formats.md), colour as PNG.
  case tum
  /// A TUM-style folder with JPEG colour (quality 92): about a tenth of the size.
  case tumJPEG = "tum-jpeg"
  /// A Record3D `.r3d` export: portrait frames (turned 90° clockwise, ``PortraitRecord3D``),
  /// JPEG colour (quality 92), LZFSE depth, and a `NAME.cap.json` sidecar for the cap.
  case record3D = "r3d"
}

/// The ground truth of a simulated scan: measures, landmarks, marker and camera poses.
///
/// Poses and points are in the clinical head frame (metres),
/// which the landmarks define; `worldFromHead` maps it to the world frame of
/// the scan (the lowest marker id's own frame).
public struct SimulationTruth: Sendable, Codable {
  public struct Marker: Sendable, Codable {
    public var id: Int
    public var headFromMarker: RigidTransform
    /// Printed corners, OpenCV order, head frame, metres.
    public var corners: [SIMD3<Double>]
  }
  public struct Camera: Sendable, Codable {
    public var frame: Int
    public var timestamp: Double
    public var headFromCamera: RigidTransform
    /// Stickers whose four corners are in view and unoccluded.
    public var visibleMarkers: [Int]
    /// The colour's motion blur on this frame, if any.
    public var motionBlur: MotionBlur?
  }
  /// A linear colour motion blur.
  public struct MotionBlur: Sendable, Codable, Hashable {
    /// Length, pixels of this scan's images.
    public var length: Double
    /// Direction, degrees from the image x axis.
    public var angle: Double
  }
  /// The conditions the scan was rendered under, for evaluation.
  public struct Conditions: Sendable, Codable {
    public var preset: SimulationPreset
    public var sensor: SensorModel
    public var path: CameraPath
    public var stickerWrap: CapLayout.Wrap
    /// Printed marker side and white margin on each edge, metres.
    public var markerSide: Double
    public var markerMargin: Double
    /// The intrinsics the frames were rendered with (at the image size).
    public var renderedIntrinsics: CameraIntrinsics
    /// The intrinsics the header states: rendered × (1 + focalError) in fx and fy.
    public var statedIntrinsics: CameraIntrinsics
    public var focalError: Double
    /// Every written depth over the true one, minus 1.
    public var depthScaleError: Double
    /// The rendered stickers' side over the header's, minus 1.
    public var printedSideError: Double
    /// Fraction of frames drawn for a random motion blur, and its length range (pixels at 640 px).
    public var motionBlurRate: Double
    public var motionBlurLength: ClosedRange<Double>
  }

  /// The clinical measures of the exact surface.
  public var measures: HeadTruth
  /// Shape parameters as asked for.
  public var parameters: HeadShape.Parameters
  /// Landmarks, head frame, metres.
  public var landmarks: HeadLandmarks
  /// Maps the head frame to the world frame (lowest marker id's frame).
  public var worldFromHead: RigidTransform
  public var markers: [Marker]
  public var cameras: [Camera]
  public var seed: UInt64
  /// The sensor model, path and intrinsics used (absent in truth files written before it).
  public var conditions: Conditions?
}

extension SimulationTruth.Conditions {
  /// Decodes conditions; truth files written before the depth-scale and printed-side errors
  /// were simulated have neither key, and were rendered without them (0).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    preset = try c.decode(SimulationPreset.self, forKey: .preset)
    sensor = try c.decode(SensorModel.self, forKey: .sensor)
    path = try c.decode(CameraPath.self, forKey: .path)
    stickerWrap = try c.decode(CapLayout.Wrap.self, forKey: .stickerWrap)
    markerSide = try c.decode(Double.self, forKey: .markerSide)
    markerMargin = try c.decode(Double.self, forKey: .markerMargin)
    renderedIntrinsics = try c.decode(CameraIntrinsics.self, forKey: .renderedIntrinsics)
    statedIntrinsics = try c.decode(CameraIntrinsics.self, forKey: .statedIntrinsics)
    focalError = try c.decode(Double.self, forKey: .focalError)
    depthScaleError = try c.decodeIfPresent(Double.self, forKey: .depthScaleError) ?? 0
    printedSideError = try c.decodeIfPresent(Double.self, forKey: .printedSideError) ?? 0
    motionBlurRate = try c.decode(Double.self, forKey: .motionBlurRate)
    motionBlurLength = try c.decode(ClosedRange<Double>.self, forKey: .motionBlurLength)
  }
}

/// What a simulation wrote.
public struct SimulationResult: Sendable {
  /// The scan (stream file or TUM folder).
  public var scanPath: String
  /// `<scan>.landmarks.json` beside it (docs/formats.md, "Landmarks").
  public var landmarksPath: String
  /// `<scan>.truth.json` beside it.
  public var truthPath: String
  /// `<scan>.cap.json` beside it, for formats that do not record the cap (Record3D).
  public var capPath: String?
  public var truth: SimulationTruth
}

/// Renders and writes a synthetic scan of an infant head wearing an ArUco cap.
///
/// Frames are rendered in parallel batches (bounded by the cores) and written
/// in order; each frame's noise comes from its own seed, so output does not
/// depend on thread timing.
/// - Parameters:
///   - options: the scene; see ``SimulationOptions``.
///   - path: the scan to write (a `.rgbdscan` file or a folder); companions go beside it.
///   - format: stream or TUM folder.
///   - progress: called after each written frame with (done, total).
/// - Throws: ``SimulationError`` for an option outside its bounds (``SimulationOptions/validate()``,
///   checked before anything is written) or a head the solver cannot build; `ScanIOError` when
///   writing fails; `ArucoError` for an unknown dictionary or more stickers than it has;
///   ``CapLayout/PlacementError`` for a sticker far too large for the cap;
///   ``CapLayout/OverlapError`` for stickers whose prints would overlap.
public func simulateScan(
  _ options: SimulationOptions, to path: String, format: SimulationFormat,
  progress: ((Int, Int) -> Void)? = nil
) throws -> SimulationResult {
  try options.validate()
  let head = try HeadShape(validating: options.head)
  let margin = options.markerMargin.map { $0 / options.markerSide } ?? 0.2
  let layout = try CapLayout(
    head: head, count: options.markerCount, sideLength: options.markerSide, margin: margin, wrap: options.stickerWrap,
    dictionary: options.dictionary, seed: options.seed)
  var trueIntrinsics = SimulationOptions.baseIntrinsics
  if options.focalLength.lowerBound < options.focalLength.upperBound {
    var draw = SeededGenerator(seed: options.seed ^ 0xF0CA_1000)
    trueIntrinsics.fx = options.focalLength.lowerBound + (options.focalLength.upperBound - options.focalLength.lowerBound) * draw.uniform()
  } else {
    trueIntrinsics.fx = options.focalLength.lowerBound
  }
  trueIntrinsics.fy = trueIntrinsics.fx
  var statedIntrinsics = trueIntrinsics
  statedIntrinsics.fx *= 1 + options.focalError
  statedIntrinsics.fy *= 1 + options.focalError
  let intrinsics = trueIntrinsics.scaled(toWidth: options.width, height: options.height)
  let blurs = motionBlurPlan(options)
  let lost = Dictionary(uniqueKeysWithValues: options.lostMarkers.compactMap { id, frame in
    layout.markers.firstIndex { $0.id == id }.map { ($0, frame) }
  })
  let renderer = try FrameRenderer(
    head: head, layout: layout, intrinsics: intrinsics, sensor: options.sensor, lostFrom: lost,
    motionBlurs: blurs.mapValues { ($0.length, $0.angle * .pi / 180) })

  let header = ScanHeader(
    depthWidth: options.width, depthHeight: options.height,
    colorWidth: options.width, colorHeight: options.height, intrinsics: statedIntrinsics,
    fps: options.fps, markers: .init(dictionary: options.dictionary, sideLength: options.markerSide / (1 + options.printedSideError)),
    capMarkerCount: options.markerCount > 0 ? options.markerCount : nil, recordedAt: options.recordedAt ?? "2026-11-21T10:15:00Z",
    patientID: options.patientID ?? "simulated-\(options.seed)")
  let append: (Double, [Float], [UInt8]) throws -> Void
  let finish: () throws -> Void
  switch format {
  case .stream:
    let writer = try RGBDScanWriter(path: path, header: header, layout: RGBDStreamLayout(depthEncoding: options.depthEncoding))
    append = { try writer.append(timestamp: $0, depthMetres: $1, colorBGRA: $2) }
    finish = { try writer.finish() }
  case .tum, .tumJPEG:
    let writer = try TUMFolderWriter(path: path, header: header, colorFormat: format == .tum ? .png : .jpeg(quality: 92))
    append = { try writer.append(timestamp: $0, depthMetres: $1, colorBGRA: $2) }
    finish = { try writer.finish() }
  case .record3D:
    let writer = try PortraitRecord3D(path: path, landscape: header, writesConfidence: options.record3DConfidence)
    append = { try writer.append(timestamp: $0, depthMetres: $1, colorBGRA: $2) }
    finish = { try writer.finish() }
  }

  var phaseRandom = SeededGenerator(seed: options.seed ^ 0x7A7E)
  let phases = (0..<12).map { _ in phaseRandom.uniform() * 2 * .pi }
  let duration = Double(options.frames - 1) / options.fps
  let lookAt = head.vaultCentre
  let surfaceRadius = { (direction: SIMD3<Double>) -> Double in
    head.crossing(from: lookAt, direction: direction, in: 0...0.3).map { ($0 - lookAt).length } ?? 0
  }
  let poses = (0..<options.frames).map { i in
    options.path.headFromCamera(
      at: options.frames > 1 ? Double(i) / Double(options.frames - 1) : 0, duration: duration, centre: lookAt, phases: phases,
      surfaceRadius: surfaceRadius)
  }

  var best: [String: (frame: Int, u: Double, v: Double, score: Double)] = [:]
  var cameras: [SimulationTruth.Camera] = []
  try forEachInParallelBatches(
    Array(0..<options.frames), workers: options.workers,
    work: { i in
      let frameSeed = options.seed &+ UInt64(i + 1) &* 0x9E37_79B9_7F4A_7C15
      let shake = (options.shakenFrames[i] ?? 0) * Double(options.width) / 640
      return (i, renderer.render(headFromCamera: poses[i], frameIndex: i, seed: frameSeed, motionBlur: shake))
    },
    consume: { i, frame in
      let timestamp = Double(i) / options.fps
      if options.depthScaleError == 0 {
        try append(timestamp, frame.depth, frame.bgra)
      } else {
        let factor = Float(1 + options.depthScaleError)
        try append(timestamp, frame.depth.map { $0 * factor }, frame.bgra)
      }
      // A user marks a landmark where it is seen squarely, in a frame that also shows
      // enough stickers to be registered: frames with five or more in view come first.
      // Nobody marks a landmark on a blurred frame.
      let registrable = frame.visibleMarkers.count >= 5 ? 1.0 : 0.0
      for seen in frame.landmarks where blurs[i] == nil && seen.score + registrable > (best[seen.name]?.score ?? -1) {
        best[seen.name] = (i, seen.u, seen.v, seen.score + registrable)
      }
      cameras.append(.init(frame: i, timestamp: timestamp, headFromCamera: poses[i], visibleMarkers: frame.visibleMarkers, motionBlur: blurs[i]))
      progress?(i + 1, options.frames)
    })
  try finish()

  // Truth in the clinical head frame.
  let clinicalFromModel = head.clinicalFrame.headFromWorld
  let markers = layout.markers.map { m in
    SimulationTruth.Marker(id: m.id, headFromMarker: clinicalFromModel * m.headFromMarker, corners: m.corners.map(clinicalFromModel.apply))
  }
  let worldFromHead = markers.min { $0.id < $1.id }.map { $0.headFromMarker.inverse } ?? .identity
  let landmarks = head.landmarks
  var truth = SimulationTruth(
    measures: head.truth(), parameters: options.head,
    landmarks: HeadLandmarks(
      nasion: clinicalFromModel.apply(landmarks.nasion), noseTip: clinicalFromModel.apply(landmarks.noseTip),
      leftEar: clinicalFromModel.apply(landmarks.leftEar), rightEar: clinicalFromModel.apply(landmarks.rightEar)),
    worldFromHead: worldFromHead, markers: markers,
    cameras: cameras.map { c in
      var moved = c
      moved.headFromCamera = clinicalFromModel * c.headFromCamera
      return moved
    },
    seed: options.seed,
    conditions: .init(
      preset: options.preset, sensor: options.sensor, path: options.path, stickerWrap: options.stickerWrap,
      markerSide: options.markerSide, markerMargin: options.markerMargin ?? margin * options.markerSide, renderedIntrinsics: intrinsics,
      statedIntrinsics: statedIntrinsics.scaled(toWidth: options.width, height: options.height), focalError: options.focalError,
      depthScaleError: options.depthScaleError, printedSideError: options.printedSideError,
      motionBlurRate: options.motionBlurRate, motionBlurLength: options.motionBlurLength))

  // Landmarks: the frame that sees each most squarely; a world point where none sees it.
  var positions: [String: LandmarkFile.Position] = [:]
  for (name, point) in truth.landmarks.named {
    if let seen = best[name] {
      positions[name] = .pixel(frame: seen.frame, u: seen.u, v: seen.v)
    } else {
      positions[name] = .world(worldFromHead.apply(point))
    }
  }
  let base = companionBase(of: path)
  let landmarksPath = base + ".landmarks.json"
  let truthPath = base + ".truth.json"
  var capPath: String?
  if format == .record3D {
    positions = PortraitRecord3D.portraitLandmarks(positions, landscapeHeight: options.height)
    truth = PortraitRecord3D.portraitTruth(truth)
    let cap = ScanCap(markers: header.markers, markerCount: header.capMarkerCount)
    let sidecar = ScanCap.sidecarPath(forScan: path)
    let json = try cap.jsonData(path: sidecar)
    try scanIO { () throws(FileAccessError) in try AtomicFile.write(json, to: sidecar) }
    capPath = sidecar
  }
  try scanIO { () throws(FileAccessError) in try AtomicFile.write(LandmarkFile(positions: positions).jsonData(), to: landmarksPath) }
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  let truthJSON = try encoder.encode(truth)
  try scanIO { () throws(FileAccessError) in try AtomicFile.write(truthJSON, to: truthPath) }
  return SimulationResult(scanPath: path, landmarksPath: landmarksPath, truthPath: truthPath, capPath: capPath, truth: truth)
}

/// Each blurred frame's motion blur (pixels of this scan's images, degrees): the
/// ``SimulationOptions/shakenFrames`` (horizontal), then frames drawn at
/// ``SimulationOptions/motionBlurRate`` from a generator of their own, so the rate
/// changes no other random choice.
func motionBlurPlan(_ options: SimulationOptions) -> [Int: SimulationTruth.MotionBlur] {
  var plan: [Int: SimulationTruth.MotionBlur] = [:]
  if options.motionBlurRate > 0 {
    var random = SeededGenerator(seed: options.seed ^ 0xB1_0B1A_5E00)
    let low = options.motionBlurLength.lowerBound, span = options.motionBlurLength.upperBound - low
    for i in 0..<options.frames {
      let pick = random.uniform(), length = low + span * random.uniform(), angle = 180 * random.uniform()
      if pick < options.motionBlurRate { plan[i] = .init(length: length * Double(options.width) / 640, angle: angle) }
    }
  }
  for (i, pixels) in options.shakenFrames where i >= 0 && i < options.frames {
    plan[i] = .init(length: pixels * Double(options.width) / 640, angle: 0)
  }
  return plan
}
