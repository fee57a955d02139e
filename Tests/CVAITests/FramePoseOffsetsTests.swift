@testable import CVAI
import Foundation
import PointCloud
import Testing
import _HeadScanSupport

/// The surface term drawn from frames' pose offsets (``FramePoseOffsets``): its draws have the
/// spread and the shape across the contour its rows give.
struct FramePoseOffsetsTests {
  /// Each bin's drawn offsets spread as ``FramePoseOffsets/binSD`` says, and bins that share a
  /// row move together.
  @Test func drawsHaveTheRowsCovariance() throws {
    // Two rows over 4 bins: bins 0 and 1 share the first, bin 2 has both, bin 3 none.
    let offsets = try #require(FramePoseOffsets(bins: 4, offsets: [0.3, 0.3, 0.4, 0, 0, 0, 0.3, 0]))
    #expect(offsets.rows == 2)
    let sd = offsets.binSD
    #expect(abs(sd[0] - 0.3) < 1e-12 && abs(sd[2] - 0.5) < 1e-12 && sd[3] == 0)
    var random = SeededGenerator(seed: 4)
    var squares = [Double](repeating: 0, count: 4), cross = 0.0
    let n = 20_000
    for _ in 0..<n {
      let draw = offsets.drawn(&random)
      let values = (0..<4).map { draw((Double($0) + 0.5) * 2 * .pi / 4) }
      for b in 0..<4 { squares[b] += values[b] * values[b] }
      cross += values[0] * values[1]
    }
    for b in 0..<4 { #expect(abs((squares[b] / Double(n)).squareRoot() - sd[b]) <= 0.03 * max(sd[b], 0.01)) }
    // Bins 0 and 1 hold the same draw: correlation 1.
    #expect(abs(cross / (squares[0] * squares[1]).squareRoot() - 1) < 1e-9)
    #expect(FramePoseOffsets(bins: 4, offsets: [0.1, 0.2, 0.3]) == nil)
    #expect(FramePoseOffsets(bins: 0, offsets: []) == nil)
  }

  /// A row that moves both sides of the head out together (as a frame's tilt does what it
  /// sees) widens the width's interval by 1.96 × twice its offset and leaves the length's as the
  /// sampling has it; the interval lists the surface among what it includes.
  @Test func offsetsKeepTheirShapeAcrossTheContour() throws {
    let points = BootstrapTests.noisyEllipsoid(noise: 0.15, seed: 7)
    let measured = try measureHead(points: points)
    let bins = 72, s = 0.2
    // Bins within 10° of ±90° (the width's ends) move by s together.
    let row = (0..<bins).map { b -> Double in
      let degrees = (Double(b) + 0.5) * 360 / Double(bins)
      return abs(degrees - 90) <= 10 || abs(degrees - 270) <= 10 ? s : 0
    }
    let uncertainty = MeasurementUncertainty(poseOffsets: FramePoseOffsets(bins: bins, offsets: row))
    let with = try #require(bootstrapIntervals(points: points, measurement: measured, replicates: 200, seed: 3, uncertainty: uncertainty))
    let without = try #require(bootstrapIntervals(points: points, measurement: measured, replicates: 200, seed: 3))
    #expect(with.includes?.contains("surface") == true && without.includes?.contains("surface") == false)
    let expected = 1.96 * 2 * s
    let added = (with.width.halfWidth * with.width.halfWidth - without.width.halfWidth * without.width.halfWidth).squareRoot()
    #expect(abs(added - expected) < 0.2 * expected, "width ±\(with.width.halfWidth) against ±\(without.width.halfWidth) without")
    #expect(abs(with.length.halfWidth - without.length.halfWidth) < 0.25 * without.length.halfWidth + 0.02, "length ±\(with.length.halfWidth)")
  }
}
