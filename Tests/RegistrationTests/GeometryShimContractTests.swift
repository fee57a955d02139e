import Testing
import _GeometryShim

/// Bad arguments to the Eigen/PCL shim come back as a status and a message, never a crash.
struct GeometryShimContractTests {
  func message(_ body: (UnsafeMutablePointer<CChar>, Int) -> gs_status) -> (gs_status, String) {
    var text = [CChar](repeating: 0, count: 160)
    let status = text.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    return (status, String(cString: text))
  }

  @Test func nullPointersAreInvalidArguments() {
    var rotation = [Double](repeating: 0, count: 9), translation = [Double](repeating: 0, count: 3), rms = 0.0
    let fit = message { gs_rigid_fit(nil, nil, 4, &rotation, &translation, &rms, $0, $1) }
    #expect(fit.0 == GS_INVALID_ARGUMENT && !fit.1.isEmpty)
    var distances = [Float](repeating: 0, count: 4), valid = [UInt8](repeating: 0, count: 4)
    let neighbourDistances = message { gs_tree_mean_neighbour_distances(nil, 0, 4, 8, &distances, &valid, $0, $1) }
    #expect(neighbourDistances.0 == GS_INVALID_ARGUMENT && !neighbourDistances.1.isEmpty)
    var x = [Double](repeating: 0, count: 2)
    let solve = message { gs_solve_symmetric(2, nil, nil, &x, $0, $1) }
    #expect(solve.0 == GS_INVALID_ARGUMENT)
    var transform = [Double](repeating: 0, count: 16)
    let icp = message { gs_icp(nil, 10, nil, 10, 0.01, 10, &transform, nil, nil, nil, $0, $1) }
    #expect(icp.0 == GS_INVALID_ARGUMENT)
  }

  @Test func tooFewPointsAreInvalidArguments() {
    let points: [Double] = [0, 0, 0, 1, 0, 0]
    var rotation = [Double](repeating: 0, count: 9), translation = [Double](repeating: 0, count: 3), rms = 0.0
    let fit = message { gs_rigid_fit(points, points, 2, &rotation, &translation, &rms, $0, $1) }
    #expect(fit.0 == GS_INVALID_ARGUMENT)
    var text = [CChar](repeating: 0, count: 160)
    let tree = gs_tree_create([0, 0, 0], 0, &text, text.count)
    #expect(tree == nil && !String(cString: text).isEmpty)
  }

  @Test func aSingularSystemIsANumericalErrorNotGarbage() {
    // [[1, 1], [1, 1]] x = [1, 2] has no solution.
    var x = [Double](repeating: .nan, count: 2)
    let solve = message { gs_solve_symmetric(2, [1, 1, 1, 1], [1, 2], &x, $0, $1) }
    #expect(solve.0 == GS_NUMERICAL_ERROR, "\(solve.1)")
  }

  @Test func nonFinitePointsDoNotReachEigen() {
    let source: [Double] = [0, 0, 0, 1, 0, 0, 0, 1, 0, .nan, 0, 1]
    var rotation = [Double](repeating: 0, count: 9), translation = [Double](repeating: 0, count: 3), rms = 0.0
    let fit = message { gs_rigid_fit(source, source, 4, &rotation, &translation, &rms, $0, $1) }
    #expect(fit.0 != GS_OK, "a NaN point must not give a pose")
  }
}
