import Foundation
@testable import Fusion
import PointCloud
import Testing

/// Known answers for voxel-mean fusion and the ICP refinement that works on it.
struct VoxelMeanTests {
  /// Points on the upper half of an ellipsoid with semi-axes 75, 60, 55 mm, `step` radians apart.
  static func dome(step: Double, offset: Double = 0) -> [SIMD3<Double>] {
    var points: [SIMD3<Double>] = []
    var polar = offset + step
    while polar < .pi / 2 {
      var azimuth = offset
      let ring = max(1, Int((2 * .pi * sin(polar)) / step))
      for _ in 0..<ring {
        points.append(SIMD3(0.075 * sin(polar) * cos(azimuth), 0.060 * sin(polar) * sin(azimuth), 0.055 * cos(polar)))
        azimuth += 2 * .pi / Double(ring)
      }
      polar += step
    }
    return points
  }

  static func model(_ points: [SIMD3<Double>], voxel: Double) throws -> VoxelGrid {
    let lattice = try #require(VoxelLattice(centre: .zero, radius: 0.1, voxelSize: voxel))
    var grid = VoxelGrid(lattice: lattice)
    grid.add(points, colours: points.map { _ in .zero }, cells: points.map(lattice.cell(of:)))
    return grid
  }

  @Test func voxelGridAveragesPerWorldVoxelInKeyOrder() throws {
    // 1 cm voxels around (−0.02, 0.3, 0): points on both sides of block and sign boundaries.
    let lattice = try #require(VoxelLattice(centre: SIMD3(-0.02, 0.3, 0), radius: 0.1, voxelSize: 0.01))
    var grid = VoxelGrid(lattice: lattice)
    let points: [(SIMD3<Double>, SIMD3<UInt8>)] = [
      (SIMD3(-0.001, 0.301, 0.005), SIMD3(10, 20, 30)),   // voxel (−1, 30, 0)
      (SIMD3(-0.009, 0.309, 0.001), SIMD3(11, 21, 31)),   // voxel (−1, 30, 0)
      (SIMD3(0.001, 0.301, -0.001), SIMD3(200, 0, 0)),    // voxel (0, 30, −1)
      (SIMD3(-0.075, 0.38, 0.079), SIMD3(1, 2, 3)),       // voxel (−8, 38, 7)
      (SIMD3(0.5, 0.3, 0), SIMD3(9, 9, 9)),               // outside the cube: ignored
    ]
    #expect(lattice.cell(of: points[4].0) == -1)
    grid.add(points.map(\.0), colours: points.map(\.1), cells: points.map { lattice.cell(of: $0.0) })
    #expect(grid.count == 3)
    let (positions, colours) = grid.means()
    let expected: [SIMD3<Float>] = [SIMD3(-0.075, 0.38, 0.079), SIMD3(-0.005, 0.305, 0.003), SIMD3(0.001, 0.301, -0.001)]
    #expect(positions.count == 3)
    for (got, want) in zip(positions, expected) { #expect(((got - want) * (got - want)).sum() < 1e-12, "\(got) vs \(want)") }
    // (10 + 11) / 2 = 10.5 rounds to even 10; 20.5 → 20; 30.5 → 30.
    #expect(colours == [SIMD3(1, 2, 3), SIMD3(10, 20, 30), SIMD3(200, 0, 0)])
    #expect(grid.means(inside: SIMD3(-0.01, 0.3, -0.01), SIMD3(0.01, 0.31, 0.01)).count == 2)
  }

  @Test func icpUndoesASmallMisregistrationAndLeavesAGoodOneAlone() throws {
    let model = try Self.model(Self.dome(step: 0.008), voxel: 0.001)
    let frame = Self.dome(step: 0.004, offset: 0.002)
    let truth = RigidTransform(
      rotation: Rotation3(axis: SIMD3(0.3, 1, 0.2).normalized, angle: 0.4 * .pi / 180), translation: SIMD3(0.0008, -0.0005, 0.0003))
    let misplaced = frame.map(truth.apply)
    let correction = try #require(icpCorrection(misplaced, model: model, voxelSize: 0.001))
    let residual = (correction * truth).difference(to: .identity)
    #expect(residual.distance < 0.0002, "left \(residual.distance * 1000) mm")
    #expect(residual.angle < 0.1 * .pi / 180, "left \(residual.angle * 180 / .pi)°")
    // Already in place: nothing to lower, no move.
    #expect(icpCorrection(frame, model: model, voxelSize: 0.001) == nil)
  }
}
