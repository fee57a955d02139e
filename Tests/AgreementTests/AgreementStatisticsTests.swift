import Agreement
import Foundation
import Testing

/// Statistics against values computed independently (textbook formulas, closed forms, the
/// published Bland & Altman 1986 example).
struct AgreementStatisticsTests {
  /// Bland & Altman (1986, Lancet i:307): peak expiratory flow (l/min) of 17 adults by the
  /// Wright meter and the mini Wright meter, first readings.
  static let wright: [Double] = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478, 178, 423, 427]
  static let miniWright: [Double] = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477, 259, 350, 451]

  @Test func blandAltmanPeakFlowExample() throws {
    let a = try #require(PairedAgreement(first: Self.wright, second: Self.miniWright))
    // The paper: mean difference −2.1, SD 38.8, limits −78.1 to 73.9 l/min. To 1e-6, from the
    // formulas evaluated separately (mean, n − 1 SD, ±1.96 SD, Bland & Altman 1999 SE √(3/n)).
    #expect(a.n == 17)
    #expect(abs(a.bias - -2.1176470588235294) < 1e-9)
    #expect(abs(a.sd - 38.76512987360738) < 1e-9)
    #expect(abs(a.lowerLoA - -78.097301611094) < 1e-9)
    #expect(abs(a.upperLoA - 73.86200749344692) < 1e-9)
    #expect(abs(a.meanAbsoluteDifference - 28.941176470588236) < 1e-9)
    #expect(abs(a.pearsonR! - 0.9432794468909462) < 1e-9)
    #expect(abs(a.icc! - 0.94592840557731) < 1e-9)
    // t(0.975, 16) = 2.119905 (tables): the bias CI and the lower limit's CI.
    #expect(abs(a.biasCI.low - -22.048837696642874) < 1e-5)
    #expect(abs(a.biasCI.high - 17.813543578995816) < 1e-5)
    #expect(abs(a.lowerLoACI.low - -112.61913645113825) < 1e-5)
    #expect(abs(a.lowerLoACI.high - -43.575466771049754) < 1e-5)
  }

  @Test func studentQuantilesMatchClosedFormsAndTables() {
    // ν = 1: tan(π(p − ½)); ν = 2: (2p − 1)/√(2p(1 − p)).
    #expect(abs(studentTQuantile(0.975, degreesOfFreedom: 1) - tan(0.475 * Double.pi)) < 1e-9)
    #expect(abs(studentTQuantile(0.975, degreesOfFreedom: 2) - 0.95 / (2 * 0.975 * 0.025).squareRoot()) < 1e-9)
    #expect(abs(studentTQuantile(0.975, degreesOfFreedom: 16) - 2.119905) < 1e-6)
    #expect(abs(studentTQuantile(0.975, degreesOfFreedom: 30) - 2.042272) < 1e-6)
    #expect(abs(studentTQuantile(0.025, degreesOfFreedom: 30) + 2.042272) < 1e-6)
    #expect(abs(studentTCDF(0, degreesOfFreedom: 7) - 0.5) < 1e-12)
  }

  @Test func iccIsOneForIdenticalRatersAndDropsWithAnOffset() throws {
    let x: [Double] = [130, 135, 128, 142, 139, 131]
    #expect(abs(try #require(PairedAgreement(first: x, second: x)).icc! - 1) < 1e-12)
    // A constant offset keeps r at 1 but absolute agreement (ICC(2,1)) falls below 1.
    let shifted = try #require(PairedAgreement(first: x, second: x.map { $0 + 3 }))
    #expect(abs(shifted.pearsonR! - 1) < 1e-12)
    #expect(shifted.icc! < 0.9)
    #expect(abs(shifted.bias + 3) < 1e-12 && shifted.sd < 1e-12)
  }

  @Test func cohensKappaByHand() {
    // 50 subjects, levels 1–3: rows first rater, columns second.
    let table = [[20, 5, 0], [3, 15, 2], [0, 1, 4]]
    var first: [Int] = [], second: [Int] = []
    for (i, row) in table.enumerated() {
      for (j, count) in row.enumerated() {
        first += Array(repeating: i + 1, count: count)
        second += Array(repeating: j + 1, count: count)
      }
    }
    let k = RatingAgreement(first: first, second: second, levels: [1, 2, 3])
    #expect(k.table == table)
    // p_o = 39/50, p_e = (25·23 + 20·21 + 5·6)/50² = 0.41, κ = (0.78 − 0.41)/0.59.
    #expect(abs(k.observedAgreement - 0.78) < 1e-12)
    #expect(abs(k.kappa! - (0.78 - 0.41) / 0.59) < 1e-12)
    // Everyone in one level on both sides: κ is undefined, not a division by zero.
    #expect(RatingAgreement(first: [1, 1, 1], second: [1, 1, 1]).kappa == nil)
  }
}
