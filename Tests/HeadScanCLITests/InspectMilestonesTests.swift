import Testing
import _TestSupport

/// `inspect --overlap --milestones`: the recorder app's progress announcements, on the fixture
/// (36 frames; 93 % of its 30-marker cap is ever seen, so 100 % is never announced).
@Test(arguments: [("quarter", [25, 50, 75]), ("half", [50]), ("completion", [])])
func milestonesAnnounceTheChosenShares(choice: String, expected: [Int]) throws {
  let run = try Headscan.run(["inspect", "fixtures/scans/orbit-small", "--overlap", "--milestones", choice, "--quiet"])
  #expect(run.status == 0, "\(run.stderr)")
  let announced = run.stdout.split(separator: "\n").compactMap { line -> Int? in
    guard line.hasSuffix("% of the cap seen") else { return nil }
    return line.split(separator: " ").compactMap { Int($0) }.last
  }
  #expect(announced == expected)
}
