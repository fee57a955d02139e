import Foundation
import Testing
import _TestSupport

@testable import ScanSimulator

/// The simulator checks its parameters against its bounds and throws one line naming the
/// parameter, never traps (docs/reliability.md, "Option bounds"): every bound's edges pass,
/// what lies past them (NaN and ±∞ included) is refused by name.
struct SimulationBoundsTests {
  typealias Limits = SimulationOptions.Bounds

  /// One option of ``SimulationOptions``: its name in the error, its bounds, and how to set it.
  struct Knob: Sendable, CustomStringConvertible {
    var name: String
    var bounds: ClosedRange<Double>
    /// A range option, set to `value...value` (which cannot be built of NaN).
    var isRange = false
    var set: @Sendable (inout SimulationOptions, Double) -> Void
    var description: String { name }
  }

  static let knobs: [Knob] = [
    Knob(name: "fps", bounds: Limits.fps) { $0.fps = $1 },
    Knob(name: "markerSide", bounds: Limits.markerSide) { $0.markerSide = $1 },
    Knob(name: "markerMargin", bounds: Limits.markerMargin) { $0.markerMargin = $1 },
    Knob(name: "motionBlurRate", bounds: Limits.motionBlurRate) { $0.motionBlurRate = $1 },
    Knob(name: "motionBlurLength", bounds: Limits.motionBlurLength, isRange: true) { $0.motionBlurLength = $1...$1 },
    Knob(name: "focalLength", bounds: Limits.focalLength, isRange: true) { $0.focalLength = $1...$1 },
    Knob(name: "focalError", bounds: Limits.focalError) { $0.focalError = $1 },
    Knob(name: "depthScaleError", bounds: Limits.depthScaleError) { $0.depthScaleError = $1 },
    Knob(name: "printedSideError", bounds: Limits.printedSideError) { $0.printedSideError = $1 },
    Knob(name: "head.length", bounds: HeadShape.Parameters.Bounds.length) { $0.head.length = $1 },
    Knob(name: "head.cranialIndex", bounds: HeadShape.Parameters.Bounds.cranialIndex) { $0.head.cranialIndex = $1 },
    Knob(name: "head.cvai", bounds: HeadShape.Parameters.Bounds.cvai) { $0.head.cvai = $1 },
    Knob(name: "head.measurementHeight", bounds: HeadShape.Parameters.Bounds.measurementHeight) { $0.head.measurementHeight = $1 },
    Knob(name: "head.vaultHeight", bounds: HeadShape.Parameters.Bounds.vaultHeight) { $0.head.vaultHeight = $1 },
    Knob(name: "head.flankHeight", bounds: HeadShape.Parameters.Bounds.flankHeight) { $0.head.flankHeight = $1 },
    Knob(name: "head.vaultOffset", bounds: HeadShape.Parameters.Bounds.vaultOffset) { $0.head.vaultOffset = $1 },
    Knob(name: "sensor.depthNoise", bounds: SensorModel.Bounds.depthNoise) { $0.sensor.depthNoise = $1 },
    Knob(name: "sensor.noiseReferenceDepth", bounds: SensorModel.Bounds.noiseReferenceDepth) { $0.sensor.noiseReferenceDepth = $1 },
    Knob(name: "sensor.correlatedNoise", bounds: SensorModel.Bounds.depthNoise) { $0.sensor.correlatedNoise = $1 },
    Knob(name: "sensor.correlationLength", bounds: SensorModel.Bounds.correlationLength) { $0.sensor.correlationLength = $1 },
    Knob(name: "sensor.frameDepthOffset", bounds: SensorModel.Bounds.depthNoise) { $0.sensor.frameDepthOffset = $1 },
    Knob(name: "sensor.randomDropout", bounds: SensorModel.Bounds.fraction) { $0.sensor.randomDropout = $1 },
    Knob(name: "sensor.silhouetteLoss", bounds: SensorModel.Bounds.fraction) { $0.sensor.silhouetteLoss = $1 },
    Knob(name: "sensor.edgeJump", bounds: SensorModel.Bounds.edgeJump) { $0.sensor.edgeJump = $1 },
    Knob(name: "sensor.holesPerFrame", bounds: SensorModel.Bounds.holesPerFrame) { $0.sensor.holesPerFrame = $1 },
    Knob(name: "sensor.holeDiameter", bounds: SensorModel.Bounds.holeDiameter, isRange: true) { $0.sensor.holeDiameter = $1...$1 },
    Knob(name: "sensor.colourNoise", bounds: SensorModel.Bounds.colourNoise) { $0.sensor.colourNoise = $1 },
    Knob(name: "sensor.blur", bounds: SensorModel.Bounds.blur) { $0.sensor.blur = $1 },
    Knob(name: "path.distance", bounds: CameraPath.Bounds.distance) { $0.path.distance = $1 },
    Knob(name: "path.distanceSwing", bounds: CameraPath.Bounds.distanceSwing) { $0.path.distanceSwing = $1 },
    Knob(name: "path.surfaceDistance", bounds: CameraPath.Bounds.surfaceDistance, isRange: true) { $0.path.surfaceDistance = $1...$1 },
    Knob(name: "path.startAzimuth", bounds: CameraPath.Bounds.startAzimuth) { $0.path.startAzimuth = $1 },
    Knob(name: "path.coverage", bounds: CameraPath.Bounds.coverage) { $0.path.coverage = $1 },
    Knob(name: "path.tremor", bounds: CameraPath.Bounds.tremor) { $0.path.tremor = $1 },
    Knob(name: "path.fineTremor", bounds: CameraPath.Bounds.fineTremor) { $0.path.fineTremor = $1 },
    Knob(name: "path.roll", bounds: CameraPath.Bounds.roll) { $0.path.roll = $1 },
    Knob(name: "path.earPass.share", bounds: CameraPath.Bounds.fraction) { $0.path.earPass = .init(share: $1) },
    Knob(name: "path.earPass.descent", bounds: CameraPath.Bounds.fraction) { $0.path.earPass = .init(descent: $1) },
  ]

  /// The error's parameter, or nil when `options` are valid.
  static func refusal(_ options: SimulationOptions) -> SimulationError? {
    do {
      try options.validate()
      return nil
    } catch {
      return error
    }
  }

  @Test func thePresetsAreWithinTheBounds() throws {
    for preset in SimulationPreset.allCases {
      try SimulationOptions(preset: preset).validate()
    }
  }

  @Test(arguments: knobs)
  func eachOptionTakesItsEdgesAndRefusesWhatLiesPast(_ knob: Knob) {
    let span = knob.bounds.upperBound - knob.bounds.lowerBound
    for edge in [knob.bounds.lowerBound, knob.bounds.upperBound] {
      var options = SimulationOptions()
      knob.set(&options, edge)
      #expect(Self.refusal(options) == nil, "\(knob.name) = \(edge) refused: \(Self.refusal(options)?.description ?? "")")
    }
    let past = [
      knob.bounds.lowerBound - max(span, 1) * 0.01, knob.bounds.upperBound + max(span, 1) * 0.01, .nan, .infinity, -.infinity,
      1e308, -1e308,
    ]
    for value in past where !(knob.isRange && value.isNaN) {
      var options = SimulationOptions()
      knob.set(&options, value)
      let error = Self.refusal(options)
      #expect(error?.parameter == knob.name, "\(knob.name) = \(value): \(error?.description ?? "accepted")")
      #expect(error.map { !$0.description.contains("\n") } ?? false)
    }
  }

  @Test func integersAndCombinationsAreChecked() {
    func refused(_ change: (inout SimulationOptions) -> Void) -> String? {
      var options = SimulationOptions()
      change(&options)
      return Self.refusal(options)?.parameter
    }
    // Edges.
    #expect(refused { $0.frames = 1 } == nil && refused { $0.frames = Limits.frames.upperBound } == nil)
    #expect(refused { ($0.width, $0.height) = (16, 12) } == nil && refused { ($0.width, $0.height) = (2048, 1536) } == nil)
    #expect(refused { $0.markerCount = 0 } == nil && refused { $0.markerCount = 250 } == nil)
    #expect(refused { $0.lostMarkers = [249: 99_999]; $0.shakenFrames = [99_999: 100] } == nil)
    // Past them: huge, negative, the products that overflowed.
    #expect(refused { $0.frames = 0 } == "frames" && refused { $0.frames = -1 } == "frames" && refused { $0.frames = .max } == "frames")
    #expect(refused { ($0.width, $0.height) = (.max, 1) } == "width" && refused { ($0.width, $0.height) = (16384, 12288) } == "width")
    #expect(refused { ($0.width, $0.height) = (640, 481) } == "width" && refused { ($0.width, $0.height) = (640, .min) } == "height")
    #expect(refused { $0.markerCount = -1 } == "markerCount" && refused { $0.markerCount = 251 } == "markerCount")
    #expect(refused { $0.lostMarkers = [-1: 3] } == "lostMarkers (id)" && refused { $0.lostMarkers = [3: .max] } == "lostMarkers[3]")
    #expect(refused { $0.shakenFrames = [.min: 3] } == "shakenFrames (frame)" && refused { $0.shakenFrames = [3: .nan] } == "shakenFrames[3]")
    // Ranges: both ends.
    #expect(refused { $0.focalLength = 590...1e9 } == "focalLength" && refused { $0.sensor.holeDiameter = 2...Double.infinity } == "sensor.holeDiameter")
    // Rules between parameters.
    #expect(refused { $0.sensor.minimumDepth = 0.5; $0.sensor.maximumDepth = 0.4 } == "sensor.minimumDepth")
    #expect(refused { $0.sensor.grazingCutoff = 0.4; $0.sensor.grazingFade = 0.3 } == "sensor.grazingCutoff")
    #expect(refused { $0.path.elevation = 80; $0.path.elevationSwing = 10 } == "path.elevation")
    #expect(refused { $0.path.elevationSwing = .nan } == "path.elevationSwing")
    #expect(refused { $0.path.earPass = .init(elevation: -82, elevationSwing: 4) } == "path.earPass.elevation")
  }

  /// `simulateScan` validates before it writes: no trap (the `--length 0` of the audit stopped in
  /// the truth's head frame), no file.
  @Test func simulateScanRefusesBadOptionsBeforeWritingAnything() throws {
    try TestFiles.withTemporaryFolder { folder in
      let changes: [(inout SimulationOptions) -> Void] = [
        { $0.head.length = 0 }, { $0.head.length = .nan }, { $0.head.length = 1e308 }, { $0.head.length = 1e-300 }, { $0.frames = .max },
        { ($0.width, $0.height) = (Int.max, 1) }, { $0.sensor.colourNoise = .infinity },
      ]
      for change in changes {
        var options = SimulationOptions()
        options.frames = 2
        (options.width, options.height) = (64, 48)
        change(&options)
        #expect(throws: SimulationError.self) { try simulateScan(options, to: folder.appendingPathComponent("s.rgbdscan").path, format: .stream) }
      }
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      #expect(left.isEmpty, "written: \(left)")
    }
  }

  @Test func aHeadFromBadParametersIsAnErrorNotATrap() throws {
    for parameters in [
      HeadShape.Parameters(length: 0), .init(length: .nan), .init(length: -.infinity), .init(cranialIndex: 55), .init(cvai: 20),
      .init(cvai: -0.1),
    ] {
      #expect(throws: SimulationError.self) { try HeadShape(validating: parameters) }
    }
    let head = HeadShape(solving: .init())
    for spacing in [0, -0.001, .nan, .infinity, 1] {
      #expect(throws: SimulationError.self) { try head.truth(layerSpacing: spacing) }
    }
    #expect(head.layerContour(height: 0.02, frame: head.clinicalFrame, samples: -5).points.count == 3)
    for (count, side, margin) in [(-1, 0.016, 0.2), (251, 0.016, 0.2), (3, .nan, 0.2), (3, 0.016, -.infinity)] {
      #expect(throws: SimulationError.self) { try CapLayout(head: head, count: count, sideLength: side, margin: margin, seed: 1) }
    }
  }

  /// No sticker's print lies over another's: a turn that would lay it there is drawn again,
  /// and a cap with more printed squares than the head has room for is refused with the two
  /// stickers named.
  @Test func stickersArePlacedWithoutOverlappingPrints() throws {
    func overlapping(_ layout: CapLayout) -> Int {
      let m = layout.markers
      return m.indices.reduce(0) { n, i in n + m.indices.filter { $0 > i && CapLayout.printsOverlap(m[i], m[$0], half: layout.sideLength / 2) }.count }
    }
    let small = try HeadShape(validating: .init(length: 0.125))
    let error = #expect(throws: CapLayout.OverlapError.self) {
      try CapLayout(head: small, count: 48, sideLength: 0.016, margin: 0.125, wrap: .decal, seed: 309)
    }
    if let error {
      let (a, b) = error.markerIDs
      #expect(a < b && b < 48)
      #expect(error.description.contains("markers \(a) and \(b) overlap"), "\(error)")
    }
    // A severe plagiocephalic head whose first-drawn turns put two prints over each other
    // (seed 3) and the presets' caps on the default head: every print clear of the others.
    let severe = HeadShape(solving: .init(cranialIndex: 82, cvai: 12, flattenedSide: .left))
    #expect(overlapping(try CapLayout(head: severe, count: 30, seed: 3)) == 0)
    let head = HeadShape(solving: .init())
    for seed in UInt64(1)...40 {
      #expect(overlapping(try CapLayout(head: head, count: 40, sideLength: 0.016, margin: 0.125, wrap: .decal, seed: seed)) == 0)
      #expect(overlapping(try CapLayout(head: head, count: 30, seed: seed)) == 0)
    }
    // The test sees an overlap where there is one: squares as large as the nearest centres are apart.
    let layout = try CapLayout(head: head, count: 30, seed: 3)
    let pairs = layout.markers.indices.flatMap { i in layout.markers.indices.filter { $0 > i }.map { (i, $0) } }
    let (i, j) = pairs.min { a, b in
      (layout.markers[a.1].surfaceCentre - layout.markers[a.0].surfaceCentre).length
        < (layout.markers[b.1].surfaceCentre - layout.markers[b.0].surfaceCentre).length
    }!
    let nearest = (layout.markers[j].surfaceCentre - layout.markers[i].surfaceCentre).length
    #expect(CapLayout.printsOverlap(layout.markers[i], layout.markers[j], half: nearest))
    #expect(!CapLayout.printsOverlap(layout.markers[i], layout.markers[j], half: 0.2 * nearest))
  }

  /// A truth file's parameters are checked as they are read (a head solved from a file cannot trap).
  @Test func truthParametersOutOfBoundsDoNotDecode() throws {
    let good = try JSONEncoder().encode(HeadShape.Parameters(cvai: 6))
    let decoded = try JSONDecoder().decode(HeadShape.Parameters.self, from: good)
    #expect(decoded == HeadShape.Parameters(cvai: 6))
    let text = String(decoding: good, as: UTF8.self)
    for (key, value) in [("\"cvai\":6", "\"cvai\":40"), ("\"length\":0.15", "\"length\":0"), ("\"cranialIndex\":80", "\"cranialIndex\":1e300")] {
      #expect(text.contains(key), "\(text)")
      let bad = Data(text.replacingOccurrences(of: key, with: value).utf8)
      #expect(throws: SimulationError.self) { try JSONDecoder().decode(HeadShape.Parameters.self, from: bad) }
    }
  }

  /// The corners of the head's bounds are solved onto their targets (the truth's CVAI and CI
  /// within 0.01), the other shape parameters at both ends.
  @Test(arguments: [
    (0.100, 60.0, 12.0, HeadShape.FlattenedQuarter.left), (0.220, 60, 12, .right), (0.100, 110, 12, .right), (0.220, 110, 12, .left),
    (0.100, 110, 0, .right),
  ])
  func theHeadsAtTheBoundsHitTheirTargets(length: Double, ci: Double, cvai: Double, side: HeadShape.FlattenedQuarter) throws {
    let head = try HeadShape(validating: .init(length: length, cranialIndex: ci, cvai: cvai, flattenedSide: side))
    let truth = head.truth()
    #expect(abs(truth.cvai - cvai) < 0.01 && abs(truth.ci - ci) < 0.01, "CVAI \(truth.cvai), CI \(truth.ci)")
  }

  @Test(arguments: [false, true])
  func theShapeParametersAtTheirEndsHitTheTargets(high: Bool) throws {
    typealias B = HeadShape.Parameters.Bounds
    var parameters = HeadShape.Parameters(cranialIndex: 84, cvai: 12)
    func end(_ range: ClosedRange<Double>) -> Double { high ? range.upperBound : range.lowerBound }
    parameters.measurementHeight = end(B.measurementHeight)
    parameters.vaultHeight = end(B.vaultHeight)
    parameters.flankHeight = end(B.flankHeight)
    parameters.vaultOffset = end(B.vaultOffset)
    let truth = try HeadShape(validating: parameters).truth()
    #expect(abs(truth.cvai - 12) < 0.01 && abs(truth.ci - 84) < 0.01, "CVAI \(truth.cvai), CI \(truth.ci)")
  }
}
