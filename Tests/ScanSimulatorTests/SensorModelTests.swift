import Foundation
import PointCloud
import ScanIO
import Testing
import _HeadScanSupport
import _TestSupport

@testable import ScanSimulator

/// Each sensor effect measured on rendered frames against its parameter.
struct SensorModelTests {
  static let head = HeadShape(solving: .init(cranialIndex: 82, cvai: 7, flattenedSide: .left))

  /// A sensor with every random effect off: exact depth wherever the surface is in range.
  static var exact: SensorModel {
    var s = SensorModel()
    s.depthNoise = 0
    s.randomDropout = 0
    s.grazingCutoff = 0
    s.grazingFade = 0
    return s
  }

  static func renderer(_ sensor: SensorModel, width: Int = 320, wrap: CapLayout.Wrap = .tangentProjection) throws -> FrameRenderer {
    let layout = try CapLayout(head: head, count: 30, wrap: wrap, seed: 3)
    let intrinsics = SimulationOptions.baseIntrinsics.scaled(toWidth: width, height: width * 3 / 4)
    return try FrameRenderer(head: head, layout: layout, intrinsics: intrinsics, sensor: sensor, lostFrom: [:])
  }

  /// Camera poses around the head, `surface` metres from it, at `count` points of a turn.
  static func poses(_ count: Int, surface: ClosedRange<Double> = 0.22...0.40) -> [RigidTransform] {
    var path = CameraPath()
    path.surfaceDistance = surface
    let phases = (0..<12).map { Double($0) * 0.7 }
    let centre = head.vaultCentre
    return (0..<count).map { i in
      path.headFromCamera(
        at: Double(i) / Double(max(1, count - 1)), duration: 8, centre: centre, phases: phases,
        surfaceRadius: { head.crossing(from: centre, direction: $0, in: 0...0.3).map { ($0 - centre).length } ?? 0 })
    }
  }

  static func seed(_ i: Int) -> UInt64 { UInt64(i + 1) &* 0x9E37_79B9_7F4A_7C15 }

  @Test func depthNoiseGrowsWithTheSquareOfTheDistance() throws {
    var noisy = Self.exact
    noisy.depthNoise = 0.0004
    noisy.noiseReferenceDepth = 0.2
    let a = try Self.renderer(noisy), b = try Self.renderer(Self.exact)
    // Normalised residuals (z − z₀) / σ(z₀) binned by z₀: SD 1 in every bin.
    var bins: [Int: (n: Double, sum: Double, squares: Double)] = [:]
    for (i, pose) in Self.poses(8).enumerated() {
      let n = a.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      let c = b.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      for (x, y) in zip(n, c) where x.isFinite && y.isFinite {
        let z = Double(y), t = (Double(x) - z) / noisy.depthSigma(at: z)
        let bin = Int(z * 10)  // 10 cm bins
        bins[bin, default: (0, 0, 0)].n += 1
        bins[bin, default: (0, 0, 0)].sum += t
        bins[bin, default: (0, 0, 0)].squares += t * t
      }
    }
    let used = bins.filter { $0.value.n > 5000 }
    #expect(used.count >= 3, "depth bins with data: \(bins.keys.sorted())")
    for (bin, s) in used.sorted(by: { $0.key < $1.key }) {
      let mean = s.sum / s.n, sd = (s.squares / s.n - mean * mean).squareRoot()
      let residuals = String(
        format: "depth %.1f–%.1f m: %.0f pixels, normalised residual mean %.3f SD %.3f", Double(bin) / 10, Double(bin + 1) / 10, s.n, mean, sd)
      #expect(abs(mean) < 0.03, "\(residuals)")
      #expect(abs(sd - 1) < 0.03, "\(residuals)")
    }
  }

  @Test func theSmoothFieldHasUnitSpreadAndItsCorrelationLength() {
    var random = SeededGenerator(seed: 11)
    let width = 320, height = 240, length = 20.0
    let field = FrameRenderer.smoothField(width: width, height: height, correlationLength: length, random: &random)
    let mean = field.reduce(0, +) / Double(field.count)
    let variance = field.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(field.count)
    #expect(abs(mean) < 1e-9 && abs(variance - 1) < 1e-9)
    func correlation(lag: Int) -> Double {
      var sum = 0.0, count = 0.0
      for y in 0..<height {
        for x in 0..<(width - lag) {
          sum += field[y * width + x] * field[y * width + x + lag]
          count += 1
        }
      }
      return sum / count
    }
    let atLength = correlation(lag: Int(length)), atHalf = correlation(lag: Int(length / 2))
    let correlations = String(
      format: "smooth field: correlation %.3f at %.0f px (1/e = 0.368), %.3f at half of it (e^-1/4 = 0.779)", atLength, length, atHalf)
    #expect(abs(atLength - exp(-1)) < 0.06, "\(correlations)")
    #expect(abs(atHalf - exp(-0.25)) < 0.06, "\(correlations)")
  }

  @Test func correlatedNoiseAndFrameOffsetsHaveTheirSpread() throws {
    var withField = Self.exact
    withField.correlatedNoise = 0.001
    withField.correlationLength = 12
    var withOffset = Self.exact
    withOffset.frameDepthOffset = 0.002
    let field = try Self.renderer(withField, width: 160), offset = try Self.renderer(withOffset, width: 160)
    let exact = try Self.renderer(Self.exact, width: 160)
    var offsets: [Double] = []
    var fieldSquares = 0.0, fieldCount = 0.0
    for (i, pose) in Self.poses(60).enumerated() {
      let c = exact.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      let o = offset.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      let differences = zip(o, c).filter { $0.0.isFinite && $0.1.isFinite }.map { Double($0.0) - Double($0.1) }
      guard let first = differences.first else { continue }
      // One offset the frame: every pixel moves by it (to float precision).
      #expect(differences.allSatisfy { abs($0 - first) < 1e-6 })
      offsets.append(first)
      if i % 6 == 0 {
        let f = field.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
        for (x, y) in zip(f, c) where x.isFinite && y.isFinite {
          fieldSquares += (Double(x) - Double(y)) * (Double(x) - Double(y))
          fieldCount += 1
        }
      }
    }
    let sd = (offsets.map { $0 * $0 }.reduce(0, +) / Double(offsets.count)).squareRoot()
    let fieldSD = (fieldSquares / fieldCount).squareRoot()
    let spreads = String(
      format: "frame offsets: SD %.3f mm over %d frames (asked 2); correlated field on the head: SD %.3f mm (asked 1)", sd * 1000,
      offsets.count, fieldSD * 1000)
    #expect(offsets.count >= 50, "\(spreads)")
    #expect(abs(sd / 0.002 - 1) < 0.3, "\(spreads)")
    #expect(abs(fieldSD / 0.001 - 1) < 0.3, "\(spreads)")
  }

  @Test func grazingDropoutsRampInBetweenTheTwoIncidenceAngles() throws {
    var grazing = Self.exact
    grazing.setGrazingIncidence(from: 72, to: 80)
    let a = try Self.renderer(grazing), b = try Self.renderer(Self.exact)
    let intrinsics = b.intrinsics
    // Per band of the cosine between ray and true surface normal: pixels lost / pixels seen.
    let edges = [0.10, 0.15, cos(80 * Double.pi / 180), 0.20, 0.25, cos(72 * Double.pi / 180), 0.35, 0.5]
    var seen = [Double](repeating: 0, count: edges.count - 1), lost = seen
    for (i, pose) in Self.poses(6).enumerated() {
      let g = a.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      let c = b.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      for k in c.indices where c[k].isFinite {
        let ray = SIMD3((Double(k % intrinsics.width) - intrinsics.cx) / intrinsics.fx, (Double(k / intrinsics.width) - intrinsics.cy) / intrinsics.fy, 1)
        let point = pose.apply(ray * Double(c[k]))
        guard abs(Self.head.surfaceDistance(point)) < 0.0005 else { continue }  // the head, not the blanket
        let facing = -Self.head.normal(at: point).dot(pose.rotation * ray.normalized)
        guard let band = (0..<(edges.count - 1)).first(where: { edges[$0] <= facing && facing < edges[$0 + 1] }) else { continue }
        seen[band] += 1
        if !g[k].isFinite { lost[band] += 1 }
      }
    }
    for band in 0..<seen.count {
      let middle = (edges[band] + edges[band + 1]) / 2
      let expected = grazing.grazingDropout(facing: middle), measured = lost[band] / seen[band]
      let dropouts = String(
        format: "incidence %.1f–%.1f°: %.0f pixels, %.3f lost (model %.3f)", acos(edges[band + 1]) * 180 / .pi, acos(edges[band]) * 180 / .pi,
        seen[band], measured, expected)
      #expect(seen[band] > 300, "\(dropouts)")
      // The renderer's normals are its mesh facets' (≤ 1° from the true normal).
      #expect(abs(measured - expected) < 0.06, "\(dropouts)")
    }
  }

  @Test func silhouetteLossTakesItsFractionOfEdgePixelsOnly() throws {
    var lossy = Self.exact
    lossy.silhouetteLoss = 0.5
    let a = try Self.renderer(lossy), b = try Self.renderer(Self.exact)
    let width = b.intrinsics.width, height = b.intrinsics.height
    var edgeSeen = 0.0, edgeLost = 0.0, otherChanged = 0
    for (i, pose) in Self.poses(4).enumerated() {
      let l = a.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      let c = b.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      // Exact depth in range stands in for the true surface depth (nothing is lost in `c`).
      let surface = c.map { $0.isFinite ? Double($0) : .infinity }
      let edges = Set(FrameRenderer.edgePixels(surface, width: width, height: height, jump: lossy.edgeJump))
      for k in c.indices where c[k].isFinite {
        if edges.contains(k) {
          edgeSeen += 1
          if !l[k].isFinite { edgeLost += 1 }
        } else if !(l[k] == c[k]) {
          otherChanged += 1
        }
      }
    }
    let silhouette = String(format: "silhouette: %.0f edge pixels, %.3f lost (asked 0.5)", edgeSeen, edgeLost / edgeSeen)
    #expect(edgeSeen > 2000, "\(silhouette)")
    #expect(abs(edgeLost / edgeSeen - 0.5) < 0.03, "\(silhouette)")
    #expect(otherChanged == 0)
  }

  @Test func holesComeAtTheirRateAndSize() throws {
    var holey = Self.exact
    holey.holesPerFrame = 3
    holey.holeDiameter = 2...6
    let a = try Self.renderer(holey, width: 320), b = try Self.renderer(Self.exact, width: 320)
    let width = b.intrinsics.width
    var holes = 0, frames = 0, spans: [Int] = [], lostPixels = 0
    for (i, pose) in Self.poses(40, surface: 0.24...0.30).enumerated() {
      let h = a.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      let c = b.render(headFromCamera: pose, frameIndex: i, seed: Self.seed(i)).depth
      var lost = Set(c.indices.filter { c[$0].isFinite && !h[$0].isFinite })
      lostPixels += lost.count
      frames += 1
      // Connected lost regions (8-neighbours), each a hole unless two overlap.
      while let start = lost.first {
        var stack = [start], xs: [Int] = []
        lost.remove(start)
        while let p = stack.popLast() {
          xs.append(p % width)
          for dy in -1...1 {
            for dx in -1...1 where lost.contains(p + dy * width + dx) {
              lost.remove(p + dy * width + dx)
              stack.append(p + dy * width + dx)
            }
          }
        }
        holes += 1
        spans.append((xs.max() ?? 0) - (xs.min() ?? 0) + 1)
      }
    }
    let rate = Double(holes) / Double(frames), area = Double(lostPixels) / Double(holes)
    // A disc of diameter d covers π d²/4 pixel centres on average; d uniform in 2…6: E[d²] = 52/3.
    let expectedArea = Double.pi * 52 / 3 / 4
    let counted = String(
      format: "holes: %d in %d frames (%.2f a frame, asked 3), widths %d…%d px, %.1f pixels a hole (disc model %.1f)", holes, frames, rate,
      spans.min() ?? 0, spans.max() ?? 0, area, expectedArea)
    #expect(abs(rate - 3) < 0.6, "\(counted)")  // Poisson: SD of the mean over 40 frames is 0.27
    // A hole of diameter d spans d or d + 1 pixels; wider ones are two holes that met.
    #expect(spans.allSatisfy { $0 >= 1 } && spans.filter { $0 > 7 }.count <= max(1, holes / 50), "\(counted)")
    #expect(abs(area / expectedArea - 1) < 0.12, "\(counted)")
  }

  @Test func directionalBlurSpreadsAPointAlongItsLineByItsLength() {
    let width = 61, height = 61, length = 12.0, angle = 30 * Double.pi / 180
    var image = [Float](repeating: 0, count: width * height * 3)
    for ch in 0..<3 { image[3 * (30 * width + 30) + ch] = 1000 }
    let blurred = FrameRenderer.directionalBlur(image, width: width, height: height, length: length, angle: angle)
    // Second moments of the spread point along and across the blur direction.
    var total = 0.0, along = 0.0, across = 0.0
    for y in 0..<height {
      for x in 0..<width {
        let w = Double(blurred[3 * (y * width + x)])
        let d = SIMD2(Double(x - 30), Double(y - 30))
        let a = d.x * cos(angle) + d.y * sin(angle), c = -d.x * sin(angle) + d.y * cos(angle)
        total += w
        along += w * a * a
        across += w * c * c
      }
    }
    // A box of length L has variance L²/12; bilinear sampling adds a little.
    let alongSD = (along / total).squareRoot(), acrossSD = (across / total).squareRoot()
    let spread = String(format: "blur of %.0f px: SD %.2f px along (box %.2f), %.2f across", length, alongSD, length / 12.0.squareRoot(), acrossSD)
    #expect(abs(total - 1000) < 1)
    #expect(abs(alongSD - length / 12.0.squareRoot()) < 0.35, "\(spread)")
    #expect(acrossSD < 0.5, "\(spread)")
  }
}
