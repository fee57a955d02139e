import Foundation
import PointCloud
import ScanIO
import Testing
import _HeadScanSupport
import _TestSupport

@testable import ScanSimulator

/// Presets, decal stickers, the motion-blur rate, the camera's distance range and the
/// focal-length error, checked against their parameters.
struct SimulationConditionsTests {
  static func options(frames: Int, width: Int) -> SimulationOptions {
    var o = SimulationOptions()
    o.frames = frames
    o.width = width
    o.height = width * 3 / 4
    o.seed = 3
    return o
  }

  static func scan(_ options: SimulationOptions, in folder: URL, _ name: String) throws -> (any ScanReader, SimulationResult) {
    let path = folder.appendingPathComponent(name).path
    let result = try simulateScan(options, to: path, format: .stream)
    return (try openScan(at: path), result)
  }

  @Test func theDefaultPresetIsTheOriginalSimulatorWithEveryValueSpelledOut() throws {
    #expect(SimulationOptions(preset: .default) == SimulationOptions())
    var explicit = SimulationOptions()
    explicit.frames = 240
    explicit.markerCount = 30
    explicit.markerSide = 0.016
    explicit.markerMargin = nil  // 20 % of the side: 3.2 mm
    explicit.stickerWrap = .tangentProjection
    explicit.sensor.depthNoise = 0.0005
    explicit.sensor.noiseReferenceDepth = 0.3
    explicit.sensor.correlatedNoise = 0
    explicit.sensor.frameDepthOffset = 0
    explicit.sensor.grazingCutoff = 0.20
    explicit.sensor.grazingFade = 0.35
    explicit.sensor.randomDropout = 0.003
    explicit.sensor.silhouetteLoss = 0
    explicit.sensor.holesPerFrame = 0
    explicit.path.distance = 0.30
    explicit.path.distanceSwing = 0.03
    explicit.path.surfaceDistance = nil
    explicit.path.tremor = 0.003
    explicit.path.fineTremor = 0
    explicit.motionBlurRate = 0
    explicit.focalLength = 593...593
    explicit.focalError = 0
    #expect(explicit == SimulationOptions())
    // A preset applied over changed options restores them.
    var changed = SimulationOptions(preset: .realistic)
    SimulationPreset.default.apply(to: &changed)
    #expect(changed == SimulationOptions())
    // And renders the same bytes (the baseline script checks the CLI's against the old binary).
    try TestFiles.withTemporaryFolder { folder in
      var a = Self.options(frames: 2, width: 160), b = a
      a.preset = .default
      SimulationPreset.default.apply(to: &b)
      b.frames = 2
      _ = try Self.scan(a, in: folder, "a.rgbdscan")
      _ = try Self.scan(b, in: folder, "b.rgbdscan")
      #expect(try Data(contentsOf: folder.appendingPathComponent("a.rgbdscan")) == Data(contentsOf: folder.appendingPathComponent("b.rgbdscan")))
    }
  }

  /// A depth scale error multiplies every written depth and nothing else; a printed-side error
  /// changes the header's side only (the stickers are rendered at the side asked for).
  @Test func depthScaleAndPrintedSideErrorsChangeWhatTheyName() throws {
    try TestFiles.withTemporaryFolder { folder in
      let plain = Self.options(frames: 2, width: 160)
      var erred = plain
      erred.depthScaleError = 0.01
      erred.printedSideError = 0.005
      let (a, truthA) = try Self.scan(plain, in: folder, "a.rgbdscan")
      let (b, truthB) = try Self.scan(erred, in: folder, "b.rgbdscan")
      #expect(truthA.truth.measures == truthB.truth.measures)
      #expect(abs(b.header.markers.sideLength * 1.005 - plain.markerSide) < 1e-12)
      #expect(a.header.markers.sideLength == plain.markerSide)
      for index in 0..<2 {
        let fa = try a.frame(at: index), fb = try b.frame(at: index)
        #expect(fa.color.bgra == fb.color.bgra)
        var compared = 0
        for (za, zb) in zip(fa.depth.metres, fb.depth.metres) where za.isFinite && za > 0 {
          #expect(abs(zb / za - 1.01) < 1e-6)
          compared += 1
        }
        #expect(compared > 1000)
      }
    }
  }

  /// A truth file written before the depth-scale and printed-side errors existed (the bundled
  /// fixture's) decodes with both 0; one written now round-trips them.
  @Test func truthWithoutTheScaleErrorsDecodesWithNone() throws {
    let url = TestFiles.fixture("scans/orbit-small.truth.json")
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(!text.contains("depthScaleError"))
    let truth = try JSONDecoder().decode(SimulationTruth.self, from: Data(text.utf8))
    let conditions = try #require(truth.conditions)
    #expect(conditions.depthScaleError == 0 && conditions.printedSideError == 0 && conditions.markerSide == 0.016)
    var erred = conditions
    erred.depthScaleError = 0.01
    erred.printedSideError = -0.005
    let again = try JSONDecoder().decode(SimulationTruth.Conditions.self, from: try JSONEncoder().encode(erred))
    #expect(again.depthScaleError == 0.01 && again.printedSideError == -0.005 && again.focalError == conditions.focalError)
  }

  /// The realistic preset as docs/simulator.md describes it.
  @Test func theRealisticPresetHasTheDocumentedConditions() {
    let o = SimulationOptions(preset: .realistic)
    #expect(o.frames == 600 && o.markerCount == 40 && o.markerSide == 0.016 && o.markerMargin == 0.002 && o.stickerWrap == .decal)
    #expect(abs(o.sensor.depthSigma(at: 0.2) - 0.0004) < 1e-15)
    #expect(abs(o.sensor.depthSigma(at: 0.3) - 0.0009) < 1e-12)  // "~0.9 mm at 30 cm"
    #expect(abs(acos(o.sensor.grazingFade) * 180 / .pi - 72) < 1e-9 && abs(acos(o.sensor.grazingCutoff) * 180 / .pi - 80) < 1e-9)
    #expect(o.sensor.silhouetteLoss == 0.5 && o.sensor.holesPerFrame == 3 && o.sensor.holeDiameter == 2...6)
    #expect(o.motionBlurRate == 0.05 && o.motionBlurLength == 3...14)
    #expect(o.path.surfaceDistance == 0.24...0.39 && o.path.fineTremor > 0 && o.path.earPass != nil)
    #expect(o.focalLength == 587.5...592.5 && o.focalError == 0)
  }

  /// The camera's distance from the surface, measured along its line to the head centre,
  /// stays in the asked range (± the tremor) and covers it.
  @Test func theCameraSwingsThroughItsSurfaceDistanceRange() {
    let head = HeadShape(solving: .init())
    let o = SimulationOptions(preset: .realistic)
    let centre = head.vaultCentre
    let radius = { (d: SIMD3<Double>) in head.crossing(from: centre, direction: d, in: 0...0.3).map { ($0 - centre).length } ?? 0 }
    var phases = SeededGenerator(seed: 5)
    let p = (0..<12).map { _ in phases.uniform() * 2 * .pi }
    var distances: [Double] = []
    for i in 0..<600 {
      let pose = o.path.headFromCamera(at: Double(i) / 599, duration: 20, centre: centre, phases: p, surfaceRadius: radius)
      let offset = pose.translation - centre
      distances.append(offset.length - radius(offset.normalized))
    }
    let low = distances.min() ?? 0, high = distances.max() ?? 0
    let range = String(format: "camera to surface: %.1f–%.1f cm (asked 24–39)", low * 100, high * 100)
    #expect(low > 0.24 - 0.008 && low < 0.245, "\(range)")
    #expect(high < 0.39 + 0.008 && high > 0.385, "\(range)")
  }

  /// The realistic preset's ear-level pass: the side of the head from the tragion down to
  /// 20 mm below it is seen at an incidence below the preset's dropout start (72°) in at
  /// least as many frames as with the orbit alone, and from 10 mm below (where it faces
  /// 40–50° downwards) in half as many again and 30 more over those heights (the orbit alone
  /// sees some heights there in no frame at all). The pass starts where the orbit ends (no
  /// jump between frames) and keeps above the blanket.
  @Test func theRealisticPathPassesAtEarLevel() throws {
    let head = HeadShape(solving: .init(cranialIndex: 84, cvai: 7.5, flattenedSide: .left))
    let o = SimulationOptions(preset: .realistic)
    let pass = try #require(o.path.earPass)
    var orbitOnly = o.path
    orbitOnly.earPass = nil
    let centre = head.vaultCentre
    let radius = { (d: SIMD3<Double>) in head.crossing(from: centre, direction: d, in: 0...0.3).map { ($0 - centre).length } ?? 0 }
    var phases = SeededGenerator(seed: 9)
    let p = (0..<12).map { _ in phases.uniform() * 2 * .pi }
    func eyes(_ path: CameraPath) -> [SIMD3<Double>] {
      (0..<o.frames).map { i in
        path.headFromCamera(at: Double(i) / Double(o.frames - 1), duration: 20, centre: centre, phases: p, surfaceRadius: radius).translation
      }
    }
    let withPass = eyes(o.path), without = eyes(orbitOnly)
    for (name, tragion) in [("left", head.landmarks.leftEar), ("right", head.landmarks.rightEar)] {
      var lowWithPass = 0, lowWithout = 0
      for below in stride(from: 0.0, through: 0.02, by: 0.005) {
        let axisPoint = SIMD3(tragion.x, 0, tragion.z - below)
        let point = try #require(head.crossing(from: axisPoint, direction: SIMD3(0, tragion.y > 0 ? 1 : -1, 0), in: 0...0.2))
        let normal = head.normal(at: point)
        let seen = { (eyes: [SIMD3<Double>]) in eyes.filter { normal.dot(($0 - point).normalized) > o.sensor.grazingFade }.count }
        let a = seen(withPass), b = seen(without)
        #expect(
          a >= b,
          "\(String(format: "%@ side %2.0f mm below the tragion (faces %2.0f° down): seen below 72° incidence in %3d frames, orbit alone %3d", name, below * 1000, asin(-normal.z) * 180 / .pi, a, b))")
        if below >= 0.01 { (lowWithPass, lowWithout) = (lowWithPass + a, lowWithout + b) }
      }
      #expect(Double(lowWithPass) >= 1.5 * Double(lowWithout) + 30, "\(name): \(lowWithPass) against \(lowWithout) frames")
    }
    var steps: [Double] = []
    for (a, b) in zip(withPass, withPass.dropFirst()) { steps.append((b - a).length) }
    let split = Int((1 - pass.share) * Double(o.frames - 1))
    let typical = steps.sorted()[steps.count / 2]
    #expect(steps[(split - 2)...(split + 2)].allSatisfy { $0 < 3 * typical })
    #expect(withPass.map(\.z).min() ?? 0 > HeadShape.bottom + 0.03)
  }

  /// Decals keep the printed half-diagonal along the surface (the tangent projection
  /// stretches it); their corners leave one plane by the cap's twist over the sticker and
  /// their edges bow by the surface's sag along them (B·a² and C·h²/2 for a quadratic
  /// surface w = −(Ax² + 2Bxy + Cy²)/2; measured here on the exact surface).
  @Test func decalCornersFollowTheSurfaceByTheExpectedAmount() throws {
    let head = HeadShape(solving: .init(cranialIndex: 82, cvai: 7, flattenedSide: .left))
    let decal = try CapLayout(head: head, count: 40, margin: 0.125, wrap: .decal, seed: 21)
    let tangent = try CapLayout(head: head, count: 40, margin: 0.125, wrap: .tangentProjection, seed: 21)
    let h = decal.sideLength / 2
    var decalErrors: [Double] = [], tangentExcess: [Double] = [], worstOffPlane = 0.0, worstBow = 0.0
    for (m, t) in zip(decal.markers, tangent.markers) {
      let height = { (u: Double, v: Double) -> Double in
        let foot = m.surfaceCentre + u * m.axisX + v * m.axisY
        return (head.crossing(from: foot, direction: m.normal, in: -0.01...0.01).map { ($0 - m.surfaceCentre).dot(m.normal) }) ?? .nan
      }
      // Arc length from the centre to each corner along the surface (the normal section).
      func arc(to corner: SIMD3<Double>) -> Double {
        let d = corner - m.surfaceCentre
        let foot = SIMD2(d.dot(m.axisX), d.dot(m.axisY))
        var length = 0.0, previous = m.surfaceCentre
        for k in 1...400 {
          let f = foot * (Double(k) / 400)
          let p = head.crossing(from: m.surfaceCentre + f.x * m.axisX + f.y * m.axisY, direction: m.normal, in: -0.01...0.01) ?? previous
          length += (p - previous).length
          previous = p
        }
        return length
      }
      for k in 0..<4 {
        decalErrors.append(abs(arc(to: m.corners[k]) - h * 2.0.squareRoot()))
        tangentExcess.append(arc(to: t.corners[k]) - h * 2.0.squareRoot())
        // The print coordinates of the decal's corners are the printed corners exactly.
        let printed = decal.stickerCoordinates(m.corners[k], marker: m)
        #expect(abs(abs(printed.x) - h) < 1e-9 && abs(abs(printed.y) - h) < 1e-9)
      }
      // Off one plane: the 4 corners' residuals from their plane are ±δ, the cap's twist
      // over the sticker: a quarter of the alternating sum of the surface heights over the
      // corners' feet (the quadratic model's B·a² where the surface is quadratic).
      let c = m.corners, mean = (c[0] + c[1] + c[2] + c[3]) / 4
      let n = (c[2] - c[0]).cross(c[3] - c[1]).normalized
      let offPlane = c.map { abs(($0 - mean).dot(n)) }.max() ?? 0
      let feet = c.map { SIMD2(($0 - m.surfaceCentre).dot(m.axisX), ($0 - m.surfaceCentre).dot(m.axisY)) }
      let w = feet.map { height($0.x, $0.y) }
      let twist = abs(w[0] - w[1] + w[2] - w[3]) / 4
      #expect(abs(offPlane - twist) < 0.1 * twist + 0.00001, "marker \(m.id): \(offPlane * 1000) mm off plane, twist \(twist * 1000)")
      worstOffPlane = max(worstOffPlane, offPlane)
      // Edge 1 → 2 (print x = +h): its middle bows off the chord between the corners by
      // the surface's sag along the edge (C·h²/2 where the surface is quadratic).
      let middle = try #require(
        CapLayout.surfacePoint(printed: SIMD2(h, 0), centre: m.surfaceCentre, x: m.axisX, y: m.axisY, normal: m.normal, wrap: .decal, on: head))
      let chord = (c[2] - c[1]).normalized, along = middle - c[1]
      let bow = (along - along.dot(chord) * chord).length
      let sag = abs((middle - m.surfaceCentre).dot(m.normal) - (w[1] + w[2]) / 2)
      #expect(abs(bow - sag) < 0.1 * sag + 0.00001, "marker \(m.id): edge bows \(bow * 1000) mm, sag \(sag * 1000)")
      worstBow = max(worstBow, bow)
    }
    let meanExcess = tangentExcess.reduce(0, +) / Double(tangentExcess.count)
    let meanError = decalErrors.reduce(0, +) / Double(decalErrors.count)
    let decals = String(
      format: "decal: corner arc error mean %.4f max %.4f mm; tangent projection's excess mean %.4f mm; corners up to %.3f mm off one plane; edges bow up to %.3f mm",
      meanError * 1000, (decalErrors.max() ?? 0) * 1000, meanExcess * 1000, worstOffPlane * 1000, worstBow * 1000)
    // The circle through the centre approximates the normal section: arcs within 0.025 mm.
    #expect((decalErrors.max() ?? 1) < 0.000025, "\(decals)")
    #expect(meanError < meanExcess / 3, "\(decals)")
    #expect(worstOffPlane > 0.0002, "\(decals)")
    #expect(worstBow > 0.0004, "\(decals)")
  }

  @Test func decalTruthIsTheRenderedLayoutsCorners() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = Self.options(frames: 1, width: 64)
      o.stickerWrap = .decal
      o.markerMargin = 0.002
      let (_, result) = try Self.scan(o, in: folder, "d.rgbdscan")
      let head = HeadShape(solving: o.head)
      let layout = try CapLayout(head: head, count: o.markerCount, margin: 0.125, wrap: .decal, seed: o.seed)
      let clinicalFromModel = head.clinicalFrame.headFromWorld
      for (m, t) in zip(layout.markers, result.truth.markers) {
        for k in 0..<4 { #expect((clinicalFromModel.apply(m.corners[k]) - t.corners[k]).length < 1e-12) }
      }
      #expect(result.truth.conditions?.stickerWrap == .decal && result.truth.conditions?.markerMargin == 0.002)
    }
  }

  @Test func motionBlurComesAtItsRate() throws {
    // The plan over many frames: the rate, lengths and directions as asked.
    var o = Self.options(frames: 20_000, width: 640)
    o.motionBlurRate = 0.05
    o.shakenFrames = [7: 9]
    let plan = motionBlurPlan(o)
    let expected = 0.05 * 20_000, sd = (20_000 * 0.05 * 0.95).squareRoot()
    #expect(abs(Double(plan.count) - expected) < 3 * sd, "\(plan.count) blurred of 20000")
    #expect(plan.values.allSatisfy { $0.length >= 3 && $0.length <= 14 || $0.angle == 0 })
    #expect(plan[7] == .init(length: 9, angle: 0))
    // On rendered frames: exactly the planned frames differ from an unblurred render, and
    // only in colour.
    try TestFiles.withTemporaryFolder { folder in
      var blurred = Self.options(frames: 24, width: 320)
      blurred.motionBlurRate = 0.25
      let sharp = Self.options(frames: 24, width: 320)
      let (a, result) = try Self.scan(blurred, in: folder, "b.rgbdscan")
      let (b, _) = try Self.scan(sharp, in: folder, "s.rgbdscan")
      var differing: Set<Int> = []
      for i in 0..<24 {
        let fa = try a.frame(at: i), fb = try b.frame(at: i)
        #expect(fa.depth.metres.elementsEqual(fb.depth.metres) { $0 == $1 || ($0.isNaN && $1.isNaN) })
        if fa.color.bgra != fb.color.bgra { differing.insert(i) }
      }
      let marked = Set(result.truth.cameras.filter { $0.motionBlur != nil }.map(\.frame))
      #expect(differing == marked, "motion blur: \(differing.sorted()) of 24 frames blurred at rate 0.25; truth marks \(marked.sorted())")
      #expect(!marked.isEmpty)
    }
  }

  @Test func theFocalErrorScalesTheStatedIntrinsicsOnly() throws {
    try TestFiles.withTemporaryFolder { folder in
      var wrong = Self.options(frames: 1, width: 64)
      wrong.focalError = 0.06
      let (a, result) = try Self.scan(wrong, in: folder, "f.rgbdscan")
      let (b, _) = try Self.scan(Self.options(frames: 1, width: 64), in: folder, "t.rgbdscan")
      #expect(a.header.intrinsics.fx == 593 * 1.06 && a.header.intrinsics.fy == 593 * 1.06)
      #expect(a.header.intrinsics.cx == b.header.intrinsics.cx && b.header.intrinsics.fx == 593)
      #expect(abs(a.header.colorIntrinsics.fx / b.header.colorIntrinsics.fx - 1.06) < 1e-12)
      let conditions = try #require(result.truth.conditions)
      #expect(abs(conditions.renderedIntrinsics.fx - 59.3) < 1e-12)
      #expect(abs(conditions.statedIntrinsics.fx / conditions.renderedIntrinsics.fx - 1.06) < 1e-12)
      // The frames are rendered with the true focal length: the same pixels.
      let fa = try a.frame(at: 0), fb = try b.frame(at: 0)
      #expect(fa.color.bgra == fb.color.bgra)
    }
    // A focal length drawn per scan from the preset's range, stated as drawn.
    var drawn: [Double] = []
    for seed in UInt64(1)...3 {
      try TestFiles.withTemporaryFolder { folder in
        var o = Self.options(frames: 1, width: 64)
        o.focalLength = 587.5...592.5
        o.seed = seed
        let (scan, result) = try Self.scan(o, in: folder, "r.rgbdscan")
        drawn.append(scan.header.intrinsics.fx)
        #expect(abs((result.truth.conditions?.renderedIntrinsics.fx ?? 0) * 10 - scan.header.intrinsics.fx) < 1e-9)
      }
    }
    #expect(drawn.allSatisfy { (587.5...592.5).contains($0) } && Set(drawn).count == 3)
  }
}
