import Foundation
@testable import Fusion
import PointCloud
import ScanIO
import Testing
import _HeadScanSupport

@testable import Registration

/// Signed-distance fusion against exact truth: a sphere seen from many poses with TrueDepth-like
/// noise, fused, and compared with its radius.
struct SignedDistanceVolumeTests {
  static let radius = 0.08

  /// One frame of a sphere of ``radius`` at the origin, depth noise σ·(z/0.2 m)² per pixel, no
  /// depth beyond 75° incidence (as the sensor); colour grey.
  static func sphereFrame(
    worldFromCamera: RigidTransform, sigmaAt20cm: Double, rng: inout SeededGenerator, width: Int = 160, height: Int = 120
  ) -> ScanFrame {
    let focal = 148.0 * Double(width) / 160
    let k = CameraIntrinsics(fx: focal, fy: focal, cx: Double(width - 1) / 2, cy: Double(height - 1) / 2, width: width, height: height)
    var metres = [Float](repeating: .nan, count: width * height)
    let (c0, c1, c2) = worldFromCamera.rotation.columns
    let o = worldFromCamera.translation
    for y in 0..<height {
      for x in 0..<width {
        let ray = (Double(x) - k.cx) / focal * c0 + (Double(y) - k.cy) / focal * c1 + c2
        let a = ray.dot(ray), b = 2 * o.dot(ray), c = o.dot(o) - radius * radius
        let discriminant = b * b - 4 * a * c
        guard discriminant > 0 else { continue }
        let s = (-b - discriminant.squareRoot()) / (2 * a)
        guard -((o + s * ray).normalized.dot(ray.normalized)) > cos(75 * Double.pi / 180) else { continue }
        metres[y * width + x] = Float(s + sigmaAt20cm * (s / 0.2) * (s / 0.2) * rng.gaussian())
      }
    }
    return ScanFrame(
      index: 0, timestamp: 0, depth: DepthMap(width: width, height: height, metres: metres, intrinsics: k),
      color: ColorImage(width: width, height: height, bgra: [UInt8](repeating: 128, count: 4 * width * height), intrinsics: k))
  }

  /// Radial RMS error (metres) of the surface fused from `frames` views 0.3 m from the centre, the
  /// points, and the mean angle between normals and the true ones (degrees).
  static func fusedSphere(
    frames: Int, sigma: Double, seed: UInt64, width: Int = 160, voxelSize: Double = 0.001, pixelStep: Int? = nil,
    offset: SIMD3<Double> = .zero
  ) throws -> (rms: Double, points: Int, normalError: Double) {
    let lattice = try #require(VoxelLattice(centre: .zero, radius: 0.12, voxelSize: voxelSize, offset: offset))
    var volume = try #require(SignedDistanceVolume(lattice: lattice, truncation: max(3 * voxelSize, 4 * sigma)))
    var rng = SeededGenerator(seed: seed)
    for _ in 0..<frames {
      let theta = rng.uniform() * 2 * .pi, phi = acos(0.2 + 0.75 * rng.uniform())
      let eye = 0.3 * SIMD3(sin(phi) * cos(theta), sin(phi) * sin(theta), cos(phi))
      let pose = RigidTransform.lookAt(eye: eye, target: .zero, up: [0, 0, 1])
      let frame = sphereFrame(worldFromCamera: pose, sigmaAt20cm: sigma, rng: &rng, width: width, height: width * 3 / 4)
      volume.integrate(volume.band.frameUpdate(frame, worldFromCamera: pose, region: nil, pixelStep: pixelStep))
    }
    let surface = volume.surface(minimumWeight: Float(max(1, frames / 8)))
    var squares = 0.0, angles = 0.0
    for (p, n) in zip(surface.positions, surface.normals) {
      let q = SIMD3<Double>(p)
      squares += (q.length - radius) * (q.length - radius)
      angles += acos(min(1, q.normalized.dot(SIMD3<Double>(n))))
    }
    let count = Double(max(1, surface.count))
    return ((squares / count).squareRoot(), surface.count, angles / count * 180 / .pi)
  }

  /// Updates added by several threads, each its own blocks, give the volume one thread gives,
  /// bit for bit: the same surface points, normals and colours.
  @Test(arguments: [2, 3, 4, 7])
  func stripedIntegrationIsTheSameVolume(stripes: Int) throws {
    let lattice = try #require(VoxelLattice(centre: .zero, radius: 0.12, voxelSize: 0.001))
    var serial = try #require(SignedDistanceVolume(lattice: lattice, truncation: 0.003))
    var striped = serial
    var rng = SeededGenerator(seed: 11)
    for _ in 0..<12 {
      let theta = rng.uniform() * 2 * .pi, phi = acos(0.2 + 0.75 * rng.uniform())
      let pose = RigidTransform.lookAt(eye: 0.3 * SIMD3(sin(phi) * cos(theta), sin(phi) * sin(theta), cos(phi)), target: .zero, up: [0, 0, 1])
      let frame = Self.sphereFrame(worldFromCamera: pose, sigmaAt20cm: 0.0005, rng: &rng)
      let update = serial.band.frameUpdate(frame, worldFromCamera: pose, region: nil)
      serial.integrate(update)
      striped.integrate(update, stripes: stripes)
    }
    let a = serial.surface(minimumWeight: 2), b = striped.surface(minimumWeight: 2)
    #expect(a.count > 10_000)
    #expect(a.positions == b.positions)
    #expect(a.normals == b.normals)
    #expect(a.colors == b.colors)
    #expect(serial.observedCount == striped.observedCount)
  }

  @Test func aNoiselessSphereIsRecoveredToAFractionOfAVoxel() throws {
    let result = try Self.fusedSphere(frames: 24, sigma: 0, seed: 1)
    #expect(result.points > 20_000)
    // Measured: 0.10 mm RMS at 1 mm voxels; normals 5.8° off on average (the gradient of an
    // along-ray distance clamped at the band's edges).
    #expect(result.rms < 0.00015)
    #expect(result.normalError < 8)
  }

  /// A grid shifted by a fraction of a voxel holds the same sphere: each voxel's centre falls in
  /// that voxel, and the surface is as close to the sphere as with the unshifted grid.
  @Test func aShiftedGridRecoversTheSameSphere() throws {
    let voxel = 0.001, offset = SIMD3<Double>(0.3, 0.7, 0.2) * voxel
    let lattice = try #require(VoxelLattice(centre: SIMD3(0.01, -0.02, 0.03), radius: 0.05, voxelSize: voxel, offset: offset))
    for voxelIndex in [SIMD3(0, 0, 0), SIMD3(7, 8, 9), SIMD3(lattice.side - 1, 3, lattice.side - 1)] {
      let centre = lattice.centre(ofVoxel: voxelIndex)
      #expect(lattice.voxel(ofCell: lattice.cell(of: centre)) == voxelIndex)
      // The centre is offset from the unshifted grid's centre of the same world key.
      let key: SIMD3<Double> = ((centre + offset) / voxel).rounded(.down)
      let back: SIMD3<Double> = (key + 0.5) * voxel - offset
      #expect(((back - centre) * (back - centre)).sum() < 1e-24)
    }
    let plain = try Self.fusedSphere(frames: 24, sigma: 0, seed: 1)
    let shifted = try Self.fusedSphere(frames: 24, sigma: 0, seed: 1, offset: offset)
    #expect(shifted.points > 20_000 && shifted.points != plain.points)
    #expect(abs(shifted.rms - plain.rms) < 0.05 * voxel, "\(shifted.rms) against \(plain.rms)")
  }

  @Test func noiseFallsWithTheSquareRootOfTheObservations() throws {
    // 0.5 mm at 20 cm: 0.6 mm at the sphere's front, the noisy end of TrueDepth.
    let few = try Self.fusedSphere(frames: 4, sigma: 0.0005, seed: 7)
    let many = try Self.fusedSphere(frames: 64, sigma: 0.0005, seed: 7)
    // Sixteen times the views: 1/√N would be 4 times less error; measured 3.5.
    #expect(many.rms < few.rms / 2.5)
    #expect(many.rms < 0.0003)
  }

  @Test func aVoxelMeanShellStaysAsRoughAsOneFrame() throws {
    // The same 64 noisy views averaged per voxel (the default fusion) for comparison.
    let lattice = try #require(VoxelLattice(centre: .zero, radius: 0.12, voxelSize: 0.001))
    var grid = VoxelGrid(lattice: lattice)
    var rng = SeededGenerator(seed: 7)
    for _ in 0..<64 {
      let theta = rng.uniform() * 2 * .pi, phi = acos(0.2 + 0.75 * rng.uniform())
      let eye = 0.3 * SIMD3(sin(phi) * cos(theta), sin(phi) * sin(theta), cos(phi))
      let pose = RigidTransform.lookAt(eye: eye, target: .zero, up: [0, 0, 1])
      let frame = Self.sphereFrame(worldFromCamera: pose, sigmaAt20cm: 0.0005, rng: &rng)
      let (positions, colours) = headPoints(frame, worldFromCamera: pose, centre: .zero, inner: 0, outer: 0.2)
      grid.add(positions, colours: colours, cells: positions.map(lattice.cell(of:)))
    }
    let means = grid.means().positions
    let rms = (means.reduce(0) { $0 + pow(SIMD3<Double>($1).length - Self.radius, 2) } / Double(means.count)).squareRoot()
    let fused = try Self.fusedSphere(frames: 64, sigma: 0.0005, seed: 7)
    #expect(fused.rms < rms / 2, "signed distance \(fused.rms * 1000) mm against voxel means \(rms * 1000) mm")
  }

  @Test func raysAboutOneVoxelApartAreEnough() throws {
    // 320×240 views 0.22–0.28 m deep (median ~0.235 m): 0.8 mm a pixel, so at 1.6 mm voxels the
    // automatic step is 2.
    var rng = SeededGenerator(seed: 3)
    let pose = RigidTransform.lookAt(eye: [0, 0, 0.3], target: .zero, up: [0, 1, 0])
    let frame = Self.sphereFrame(worldFromCamera: pose, sigmaAt20cm: 0, rng: &rng, width: 320, height: 240)
    let lattice = try #require(VoxelLattice(centre: .zero, radius: 0.12, voxelSize: 0.0016))
    let band = SignedDistanceBand(lattice: lattice, truncation: 0.0048)
    #expect(band.pixelStep(for: frame, worldFromCamera: pose, region: nil) == 2)
    // The per-frame sums hand each voxel over about once, and every second pixel in x and y
    // makes a quarter of the updates.
    let every = band.frameUpdate(frame, worldFromCamera: pose, region: nil, pixelStep: 1)
    let second = band.frameUpdate(frame, worldFromCamera: pose, region: nil, pixelStep: 2)
    // A worker's scratch tables and integrated updates' chunks, lent to the next frames, give
    // the same updates; every chunk but the last is full.
    let scratch = FrameUpdateScratch(limit: 4)
    let chunks = FrameUpdateChunks(limit: .max)
    let lent = band.frameUpdate(frame, worldFromCamera: pose, region: nil, pixelStep: 2, scratch: scratch, chunks: chunks)
    chunks.recycle(lent)
    let again = band.frameUpdate(frame, worldFromCamera: pose, region: nil, pixelStep: 1, scratch: scratch, chunks: chunks)
    #expect(again.cells == every.cells && again.sums == every.sums && again.weights == every.weights)
    #expect(every.chunks.count >= 2)
    let capacity = SignedDistanceVolume.FrameUpdate.chunkCapacity
    for update in [every, again] {
      #expect(update.chunks.dropLast().allSatisfy { $0.cells.count == capacity && $0.sums.count == capacity && $0.weights.count == capacity })
      #expect(update.count == update.cells.count && update.count > (update.chunks.count - 1) * capacity)
    }
    // A frame's strips marched by several threads (each strip in chunks of its own), with lent
    // tables and chunks or without: the same entries in the same order whatever thread took
    // which strip.
    chunks.recycle(again)
    for threads in [2, 3, 4, 40] {
      let shared = band.frameUpdate(frame, worldFromCamera: pose, region: nil, pixelStep: 1, stripThreads: threads)
      let lentToo = band.frameUpdate(frame, worldFromCamera: pose, region: nil, pixelStep: 1, scratch: scratch, chunks: chunks, stripThreads: threads)
      for update in [shared, lentToo] {
        #expect(update.cells == every.cells && update.sums == every.sums && update.weights == every.weights, "\(threads) threads")
        #expect(update.chunks.count > every.chunks.count && update.chunks.allSatisfy { !$0.cells.isEmpty })
      }
      chunks.recycle(lentToo)
    }
    // Every table lent is handed back empty, ready for the next strip.
    var lentTables: [FrameSumsTable] = []
    while let table = scratch.take() { lentTables.append(table) }
    #expect(!lentTables.isEmpty && lentTables.allSatisfy(\.isEmpty))
    #expect(every.count < Set(every.cells).count * 6 / 5)
    let ratio = every.weights.reduce(0, +) / second.weights.reduce(0, +)
    #expect(ratio > 3.6 && ratio < 4.4)
    // The same noisy views fused from every pixel and from every second one: a quarter of the
    // samples, so at most √4 = 2 times the noise left after averaging (measured 0.14 and 0.29 mm
    // from 12 views; a scan has hundreds of views a voxel, which leave both far below a voxel).
    let fine = try Self.fusedSphere(frames: 12, sigma: 0.0005, seed: 5, width: 320, voxelSize: 0.0016, pixelStep: 1)
    let coarse = try Self.fusedSphere(frames: 12, sigma: 0.0005, seed: 5, width: 320, voxelSize: 0.0016, pixelStep: 2)
    #expect(coarse.rms < 2.2 * fine.rms && coarse.rms < 0.0004, "every pixel \(fine.rms * 1000) mm, every second \(coarse.rms * 1000) mm")
    #expect(coarse.points > fine.points * 9 / 10)
  }
}
