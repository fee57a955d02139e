import _HeadScanSupport
import ArucoBridge
import CVAI
import Foundation
import PointCloud
import ScanIO

/// The head surface as a triangle mesh in the head frame, metres.
///
/// Rows run up the head at 1.5 mm below the widest layer and at 1.5° of
/// elevation above it (so the vertex is well shaped); columns every 2° of
/// azimuth. The chordal error against the exact surface is about 0.01 mm.
struct HeadMesh: Sendable {
  var vertices: [SIMD3<Double>]
  /// Three vertex indices a triangle, wound counter-clockwise seen from outside.
  var triangles: [Int32]
  /// The sticker each triangle may touch (index into the layout), or −1.
  var triangleMarker: [Int16]

  init(head: HeadShape, layout: CapLayout) {
    let columns = 180
    let p = head.parameters
    var heights: [Double] = []
    var z = HeadShape.bottom
    while z < p.measurementHeight {
      heights.append(z)
      z += 0.0015
    }
    var psi = 0.0
    while psi < 89.0 {
      heights.append(p.measurementHeight + p.vaultHeight * sin(psi * .pi / 180))
      psi += 1.5
    }
    vertices = []
    for h in heights {
      for k in 0..<columns {
        vertices.append(head.surfacePoint(z: h, phi: Double(k) / Double(columns) * 2 * .pi))
      }
    }
    let apex = Int32(vertices.count)
    vertices.append(SIMD3(p.vaultOffset, 0, head.vertexHeight))
    triangles = []
    for row in 0..<(heights.count - 1) {
      for k in 0..<columns {
        let a = Int32(row * columns + k), b = Int32(row * columns + (k + 1) % columns)
        let c = b + Int32(columns), d = a + Int32(columns)
        triangles += [a, b, c, a, c, d]
      }
    }
    let top = (heights.count - 1) * columns
    for k in 0..<columns {
      triangles += [Int32(top + k), Int32(top + (k + 1) % columns), apex]
    }
    // Each triangle near a sticker remembers the sticker it lies on: the one whose
    // tangent-plane square (L∞ distance from its centre) is nearest, so a triangle
    // between two stickers never takes the wrong one.
    let reach = layout.sideLength * (0.5 + layout.margin) * 2.0.squareRoot() + 0.004
    var marker = [Int16](repeating: -1, count: triangles.count / 3)
    for t in 0..<marker.count {
      let centroid = (vertices[Int(triangles[3 * t])] + vertices[Int(triangles[3 * t + 1])] + vertices[Int(triangles[3 * t + 2])]) / 3
      var nearest = Double.infinity
      for (i, m) in layout.markers.enumerated() where (centroid - m.surfaceCentre).length < reach {
        let st = layout.stickerCoordinates(centroid, marker: m)
        let distance = max(abs(st.x), abs(st.y))
        if distance < nearest {
          nearest = distance
          marker[t] = Int16(i)
        }
      }
    }
    triangleMarker = marker
  }
}

/// One rendered frame before encoding.
struct RenderedFrame {
  var depth: [Float]
  var bgra: [UInt8]
  /// Landmarks seen well in this frame: name, pixel, how squarely seen (cosine).
  var landmarks: [(name: String, u: Double, v: Double, score: Double)]
  /// Ids of stickers whose four corners are all in view and unoccluded.
  var visibleMarkers: [Int]
}

/// Renders depth and colour of the head and its cap seen from a camera pose.
struct FrameRenderer: Sendable {
  let head: HeadShape
  let layout: CapLayout
  let mesh: HeadMesh
  let intrinsics: CameraIntrinsics
  let sensor: SensorModel
  /// Marker bitmaps by layout index, `bitmapSide²` bytes each.
  let bitmaps: [[UInt8]]
  let bitmapSide: Int
  /// Stickers removed from this frame on (layout index → first frame without it).
  let lostFrom: [Int: Int]
  let landmarks: HeadLandmarks
  let landmarkNormals: [SIMD3<Double>]
  /// Colour motion blur by frame index: length (pixels) and angle (radians from x).
  let motionBlurs: [Int: (length: Double, angle: Double)]

  init(
    head: HeadShape, layout: CapLayout, intrinsics: CameraIntrinsics, sensor: SensorModel, lostFrom: [Int: Int],
    motionBlurs: [Int: (length: Double, angle: Double)] = [:]
  ) throws {
    self.motionBlurs = motionBlurs
    self.head = head
    self.layout = layout
    self.mesh = HeadMesh(head: head, layout: layout)
    self.intrinsics = intrinsics
    self.sensor = sensor
    self.lostFrom = lostFrom
    // 144 px is a whole number of cells for 4×4 to 7×7 markers with their border (6, 8 or 9 cells) … except 7 bits; close enough there.
    var side = 0
    var maps: [[UInt8]] = []
    for m in layout.markers {
      let bitmap = try MarkerBitmap(dictionary: layout.dictionary, id: m.id, sidePixels: 144)
      side = bitmap.side
      maps.append(bitmap.pixels)
    }
    self.bitmaps = maps
    self.bitmapSide = side
    self.landmarks = head.landmarks
    self.landmarkNormals = head.landmarks.named.map { head.normal(at: $0.1) }
  }

  /// Renders the frame seen from `headFromCamera`; `seed` fixes its noise.
  ///
  /// `motionBlur` is the colour's motion-blur length in pixels, along `motionBlurAngle`
  /// (radians from the image x axis); when 0, the frame's entry in ``motionBlurs`` applies. The effects added after the original model
  /// (correlated noise, frame offset, silhouette loss, holes) draw from their own
  /// generator, so turning them on leaves every other random choice as it was.
  func render(
    headFromCamera: RigidTransform, frameIndex: Int, seed: UInt64, motionBlur: Double = 0, motionBlurAngle: Double = 0
  ) -> RenderedFrame {
    let width = intrinsics.width, height = intrinsics.height
    let cameraFromHead = headFromCamera.inverse
    let fx = intrinsics.fx, fy = intrinsics.fy, cx = intrinsics.cx, cy = intrinsics.cy
    let camera = mesh.vertices.map { cameraFromHead.apply($0) }
    var inverseDepth = [Double](repeating: 0, count: width * height)
    var triangleAt = [Int32](repeating: -1, count: width * height)

    // Rasterise with a z-buffer on 1/z (linear in screen space).
    camera.withUnsafeBufferPointer { v in
      mesh.triangles.withUnsafeBufferPointer { tri in
        inverseDepth.withUnsafeMutableBufferPointer { zbuf in
          triangleAt.withUnsafeMutableBufferPointer { ids in
            for t in 0..<(tri.count / 3) {
              let p0 = v[Int(tri[3 * t])], p1 = v[Int(tri[3 * t + 1])], p2 = v[Int(tri[3 * t + 2])]
              if p0.z < 0.05 || p1.z < 0.05 || p2.z < 0.05 { continue }
              if (p1 - p0).cross(p2 - p0).dot(p0) >= 0 { continue }  // back face
              let u0 = fx * p0.x / p0.z + cx, w0 = fy * p0.y / p0.z + cy
              let u1 = fx * p1.x / p1.z + cx, w1 = fy * p1.y / p1.z + cy
              let u2 = fx * p2.x / p2.z + cx, w2 = fy * p2.y / p2.z + cy
              let uLow = min(u0, u1, u2), uHigh = max(u0, u1, u2), wLow = min(w0, w1, w2), wHigh = max(w0, w1, w2)
              // Off the image, or not a number (a degenerate pose): nothing to draw, and nothing
              // converted to Int out of its range.
              guard uLow < Double(width), uHigh >= 0, wLow < Double(height), wHigh >= 0,
                u0.isFinite, u1.isFinite, u2.isFinite, w0.isFinite, w1.isFinite, w2.isFinite
              else { continue }
              let minX = Int(max(0, uLow).rounded(.up)), maxX = Int(min(Double(width - 1), uHigh).rounded(.down))
              let minY = Int(max(0, wLow).rounded(.up)), maxY = Int(min(Double(height - 1), wHigh).rounded(.down))
              if minX > maxX || minY > maxY { continue }
              let area = (u1 - u0) * (w2 - w0) - (u2 - u0) * (w1 - w0)
              if abs(area) < 1e-12 { continue }
              let iz0 = 1 / p0.z, iz1 = 1 / p1.z, iz2 = 1 / p2.z
              for y in minY...maxY {
                let py = Double(y)
                for x in minX...maxX {
                  let px = Double(x)
                  let b0 = ((u1 - px) * (w2 - py) - (u2 - px) * (w1 - py)) / area
                  let b1 = ((u2 - px) * (w0 - py) - (u0 - px) * (w2 - py)) / area
                  let b2 = 1 - b0 - b1
                  if b0 < 0 || b1 < 0 || b2 < 0 { continue }
                  let iz = b0 * iz0 + b1 * iz1 + b2 * iz2
                  let i = y * width + x
                  if iz > zbuf[i] {
                    zbuf[i] = iz
                    ids[i] = Int32(t)
                  }
                }
              }
            }
          }
        }
      }
    }

    var random = SeededGenerator(seed: seed)
    var depth = [Float](repeating: .nan, count: width * height)
    var shade = [Float](repeating: 0, count: width * height * 3)
    // The surface's true depth a pixel (infinity where it sees the far room), for edges.
    let findsEdges = sensor.silhouetteLoss > 0
    var surfaceDepth = [Double](repeating: .infinity, count: findsEdges ? width * height : 0)
    let white = 235.0, black = 28.0
    let fabric = SIMD3<Double>(205, 190, 172), skin = SIMD3<Double>(150, 176, 226)
    let half = layout.sideLength / 2, paper = layout.sideLength * (0.5 + layout.margin)
    for y in 0..<height {
      for x in 0..<width {
        let i = y * width + x
        let t = Int(triangleAt[i])
        if t < 0 {
          // The blanket the infant lies on: a plane at the neck's cut, 0.4 m across; beyond it, far room.
          let ray = SIMD3((Double(x) - cx) / fx, (Double(y) - cy) / fy, 1)
          let direction = headFromCamera.rotation * ray
          let s = (HeadShape.bottom - headFromCamera.translation.z) / direction.z
          let hit = headFromCamera.translation + s * direction
          if direction.z < 0, s > 0, (hit.x * hit.x + hit.y * hit.y).squareRoot() < 0.4 {
            let weave = 0.9 + 0.1 * sin(hit.x * 900) * sin(hit.y * 900)
            let light = 0.45 + 0.4 * min(1, -direction.z / direction.length)
            shade[3 * i] = Float(120 * weave * light)
            shade[3 * i + 1] = Float(150 * weave * light)
            shade[3 * i + 2] = Float(110 * weave * light)
            let z = s  // the camera ray has unit z, so s is the depth along the optical axis
            if findsEdges { surfaceDepth[i] = z }
            if z >= sensor.minimumDepth && z <= sensor.maximumDepth && random.uniform() >= sensor.randomDropout {
              depth[i] = Float(z + sensor.depthSigma(at: z) * random.gaussian())
            }
          } else {
            let g = 48 + 18 * Double(y) / Double(height)
            shade[3 * i] = Float(g + 6)
            shade[3 * i + 1] = Float(g + 2)
            shade[3 * i + 2] = Float(g)
          }
          continue
        }
        let z = 1 / inverseDepth[i]
        if findsEdges { surfaceDepth[i] = z }
        let ray = SIMD3((Double(x) - cx) / fx, (Double(y) - cy) / fy, 1)
        let point = ray * z
        let a = camera[Int(mesh.triangles[3 * t])], b = camera[Int(mesh.triangles[3 * t + 1])], c = camera[Int(mesh.triangles[3 * t + 2])]
        let normal = (b - a).cross(c - a).normalized
        let facing = max(0, -normal.dot(ray.normalized))
        let pointHead = headFromCamera.apply(point)

        // Colour: sticker (4×4 samples on the local tangent plane), fabric or skin.
        var base: SIMD3<Double>
        let m = Int(mesh.triangleMarker[t])
        if m >= 0, lostFrom[m].map({ frameIndex < $0 }) ?? true {
          let marker = layout.markers[m]
          var sum = 0.0
          var onSticker = 0
          for sy in 0..<4 {
            for sx in 0..<4 {
              let sub = SIMD3((Double(x) - 0.375 + 0.25 * Double(sx) - cx) / fx, (Double(y) - 0.375 + 0.25 * Double(sy) - cy) / fy, 1)
              let q = sub * (point.dot(normal) / sub.dot(normal))
              let st = layout.stickerCoordinates(headFromCamera.apply(q), marker: marker)
              if abs(st.x) < paper && abs(st.y) < paper {
                onSticker += 1
                if abs(st.x) < half && abs(st.y) < half {
                  let col = min(bitmapSide - 1, Int((st.x / layout.sideLength + 0.5) * Double(bitmapSide)))
                  let row = min(bitmapSide - 1, Int((0.5 - st.y / layout.sideLength) * Double(bitmapSide)))
                  sum += bitmaps[m][row * bitmapSide + col] == 0 ? black : white
                } else {
                  sum += white
                }
              }
            }
          }
          let cap = pointHead.z > 0.005 ? fabric : skin
          base = (SIMD3(repeating: sum) + cap * Double(16 - onSticker)) / 16
        } else {
          base = pointHead.z > 0.005 ? fabric : skin
        }
        let light = 0.35 + 0.65 * facing
        shade[3 * i] = Float(base.x * light)
        shade[3 * i + 1] = Float(base.y * light)
        shade[3 * i + 2] = Float(base.z * light)

        // Depth: range limits, grazing dropouts, random holes, noise growing with z².
        if z < sensor.minimumDepth || z > sensor.maximumDepth || facing < sensor.grazingCutoff { continue }
        if facing < sensor.grazingFade,
          random.uniform() < (sensor.grazingFade - facing) / (sensor.grazingFade - sensor.grazingCutoff)
        {
          continue
        }
        if random.uniform() < sensor.randomDropout { continue }
        let sigma = sensor.depthSigma(at: z)
        depth[i] = Float(z + sigma * random.gaussian())
      }
    }

    var effects = SeededGenerator(seed: seed ^ 0xDE97_4E55_0F5E_7A11)
    applyDepthEffects(to: &depth, surfaceDepth: surfaceDepth, random: &effects)
    let blur = motionBlur > 0 ? (length: motionBlur, angle: motionBlurAngle) : (motionBlurs[frameIndex] ?? (length: 0, angle: 0))
    let bgra = Self.finishColour(
      shade, width: width, height: height, sensor: sensor, motionBlur: blur.length, motionBlurAngle: blur.angle, random: &random)
    return RenderedFrame(
      depth: depth, bgra: bgra,
      landmarks: observeLandmarks(cameraFromHead: cameraFromHead, inverseDepth: inverseDepth),
      visibleMarkers: visibleMarkers(cameraFromHead: cameraFromHead, inverseDepth: inverseDepth, frameIndex: frameIndex))
  }

  /// Motion blur (a box `motionBlur` pixels long along `motionBlurAngle`, radians from
  /// the x axis), blur (camera point spread), noise, quantisation to BGRA.
  static func finishColour(
    _ shade: [Float], width: Int, height: Int, sensor: SensorModel, motionBlur: Double = 0, motionBlurAngle: Double = 0,
    random: inout SeededGenerator
  ) -> [UInt8] {
    var image = shade
    if motionBlur > 1 && motionBlurAngle != 0 {
      image = directionalBlur(shade, width: width, height: height, length: motionBlur, angle: motionBlurAngle)
    } else if motionBlur > 1 {
      // Box of length L centred on the pixel: full weight inside, the fractional rest at both ends.
      let half = motionBlur / 2, reach = Int(half.rounded(.up))
      let weights = (-reach...reach).map { Float(max(0, min(1, half + 0.5 - Double(abs($0))))) }
      let total = weights.reduce(0, +)
      let source = image
      for y in 0..<height {
        for x in 0..<width {
          for ch in 0..<3 {
            var sum: Float = 0
            for (k, w) in weights.enumerated() where w > 0 {
              let xx = min(width - 1, max(0, x + k - reach))
              sum += w * source[3 * (y * width + xx) + ch]
            }
            image[3 * (y * width + x) + ch] = sum / total
          }
        }
      }
    }
    if sensor.blur > 0 {
      let side = Float(exp(-1 / (2 * sensor.blur * sensor.blur)))
      let k0 = 1 / (1 + 2 * side), k1 = side / (1 + 2 * side)
      var pass = image
      for y in 0..<height {
        for x in 0..<width {
          let l = max(0, x - 1), r = min(width - 1, x + 1)
          for ch in 0..<3 {
            pass[3 * (y * width + x) + ch] =
              k0 * image[3 * (y * width + x) + ch] + k1 * (image[3 * (y * width + l) + ch] + image[3 * (y * width + r) + ch])
          }
        }
      }
      for y in 0..<height {
        let up = max(0, y - 1), down = min(height - 1, y + 1)
        for x in 0..<width {
          for ch in 0..<3 {
            image[3 * (y * width + x) + ch] =
              k0 * pass[3 * (y * width + x) + ch] + k1 * (pass[3 * (up * width + x) + ch] + pass[3 * (down * width + x) + ch])
          }
        }
      }
    }
    // Triangular noise from two 10-bit uniforms a channel; σ of (u1 + u2 − 1) is 1/√6.
    let scale = Float(sensor.colourNoise * 6.0.squareRoot())
    var bgra = [UInt8](repeating: 255, count: width * height * 4)
    for i in 0..<(width * height) {
      let bits = random.next()
      for ch in 0..<3 {
        let u1 = Float((bits >> (20 * UInt64(ch))) & 1023) / 1023, u2 = Float((bits >> (20 * UInt64(ch) + 10)) & 1023) / 1023
        let value = image[3 * i + ch] + scale * (u1 + u2 - 1)
        bgra[4 * i + ch] = UInt8(max(0, min(255, value.rounded())))
      }
    }
    return bgra
  }

  /// Landmarks in view, unoccluded and facing the camera, with their exact pixels.
  func observeLandmarks(cameraFromHead: RigidTransform, inverseDepth: [Double]) -> [(name: String, u: Double, v: Double, score: Double)] {
    var seen: [(String, Double, Double, Double)] = []
    for (k, (name, p)) in landmarks.named.enumerated() {
      let q = cameraFromHead.apply(p)
      guard let pixel = intrinsics.project(q), pixel.x >= 8, pixel.y >= 8,
        pixel.x <= Double(intrinsics.width - 9), pixel.y <= Double(intrinsics.height - 9)
      else { continue }
      let rendered = inverseDepth[Int(pixel.y.rounded()) * intrinsics.width + Int(pixel.x.rounded())]
      guard rendered > 0, abs(1 / rendered - q.z) < 0.003 else { continue }
      let facing = -(cameraFromHead.rotation * landmarkNormals[k]).dot(q.normalized)
      if facing > 0.1 { seen.append((name, pixel.x, pixel.y, facing)) }
    }
    return seen
  }

  /// Stickers whose four corners project into the image and are not hidden.
  func visibleMarkers(cameraFromHead: RigidTransform, inverseDepth: [Double], frameIndex: Int) -> [Int] {
    layout.markers.enumerated().compactMap { (index, marker) -> Int? in
      if let lost = lostFrom[index], frameIndex >= lost { return nil }
      for corner in marker.corners {
        let q = cameraFromHead.apply(corner)
        guard let pixel = intrinsics.project(q), pixel.x >= 1, pixel.y >= 1,
          pixel.x <= Double(intrinsics.width - 2), pixel.y <= Double(intrinsics.height - 2)
        else { return nil }
        let rendered = inverseDepth[Int(pixel.y.rounded()) * intrinsics.width + Int(pixel.x.rounded())]
        guard rendered > 0, abs(1 / rendered - q.z) < 0.002 else { return nil }
      }
      return marker.id
    }
  }
}
