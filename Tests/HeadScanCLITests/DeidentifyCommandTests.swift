import Foundation
import ScanIO
import Testing
import _TestSupport

/// `--deidentify` on `convert`, `measure` and `reconstruct`: the copy and the reports carry a
/// pseudonym and a date or an age, the copy measures the same, and bad keys and dates are one line.
struct DeidentifyCommandTests {
  static let scan = TestFiles.fixture("scans/orbit-small").path

  static func writeKey(in folder: URL, _ text: String = "3f1c0a9b27d84e65b0c1d2e3f4a5b6c7\n") throws -> String {
    let path = folder.appendingPathComponent("site.key").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func theCopyAndTheReportsAreDeidentifiedAndMeasureTheSame() throws {
    try TestFiles.withTemporaryFolder { folder in
      let key = try Self.writeKey(in: folder)
      let copy = folder.appendingPathComponent("shared.rgbdscan").path
      let convert = try Headscan.run(["convert", Self.scan, copy, "--deidentify", "--key-file", key, "--quiet"])
      #expect(convert.status == 0, "\(convert.stderr)")
      let pseudonym = HeaderDeidentification(key: try PseudonymKey(fileAt: key)).pseudonym(of: "simulated-11")
      #expect(convert.stdout.hasPrefix("wrote \(copy) (36 frames, de-identified: patient \(pseudonym), recorded 2026-11-21, "), "\(convert.stdout)")
      let header = try openScan(at: copy).header
      #expect(header.patientID == pseudonym && header.recordedAt == "2026-11-21")

      let originalJSON = folder.appendingPathComponent("original.json").path, copyJSON = folder.appendingPathComponent("copy.json").path
      let page = folder.appendingPathComponent("copy.html").path
      let before = try Headscan.run(["measure", Self.scan, "--json", originalJSON, "--quiet"])
      let after = try Headscan.run([
        "measure", copy, "--json", copyJSON, "--html", page, "--deidentify", "--key-file", key, "--birth-date", "2026-05-01", "--quiet",
      ])
      #expect(before.status == 0 && after.status == 0, "\(before.stderr) \(after.stderr)")
      func report(_ path: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
      }
      let original = try report(originalJSON), shared = try report(copyJSON)
      let cvaiBefore = try #require(original["cvai"] as? Double), cvaiAfter = try #require(shared["cvai"] as? Double)
      // Removing the face's depth and colour drops a few face-side sticker views (5 of 196 on
      // this fixture), which moves the measures by the registration's noise: over eight
      // simulated scans the copy's CVAI differs from the original's by −0.04 to +0.17 points,
      // six of them within 0.04 (docs/formats.md, "De-identified copies"); this one's by 0.075.
      #expect(abs(cvaiAfter - cvaiBefore) <= 0.12, "CVAI \(cvaiBefore) → \(cvaiAfter)")
      // The copy's pseudonym stays as it is; the date becomes the age.
      #expect(shared["patientID"] as? String == pseudonym && shared["recordedAt"] == nil)
      #expect(shared["ageAtScanDays"] as? Int == 204)
      let html = try String(contentsOfFile: page, encoding: .utf8)
      #expect(!html.contains("simulated-11") && !html.contains("2026-11-21") && html.contains("age 204 days"))
    }
  }

  /// `reconstruct --deidentify --mesh`: the mesh line describes the mesh as written, open
  /// where the face's triangles were removed (one boundary loop on a sphere: Euler
  /// characteristic 1), not the closed mesh before the removal.
  @Test func aDeidentifiedMeshIsDescribedAsWritten() throws {
    try TestFiles.withTemporaryFolder { folder in
      let key = try Self.writeKey(in: folder)
      let cloud = folder.appendingPathComponent("head.ply").path, mesh = folder.appendingPathComponent("head-mesh.ply").path
      let run = try Headscan.run(["reconstruct", Self.scan, "-o", cloud, "--mesh", mesh, "--deidentify", "--key-file", key])
      #expect(run.status == 0, "\(run.stderr)")
      let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("mesh ") }.map(String.init), "\(run.stdout)")
      #expect(line.contains(", NOT closed, Euler characteristic 1,") && line.hasSuffix("(de-identified: the face's triangles removed, open there)"), "\(line)")
      // The counts are the written file's.
      let header = try String(contentsOfFile: mesh, encoding: .isoLatin1).prefix(2000)
      func count(_ element: String) -> String? {
        header.split(separator: "\n").first { $0.hasPrefix("element \(element) ") }.map { String($0.split(separator: " ")[2]) }
      }
      let vertices = try #require(count("vertex")), faces = try #require(count("face"))
      #expect(line.hasPrefix("mesh        \(vertices) vertices, \(faces) triangles"), "\(line) against the file's \(vertices) and \(faces)")
    }
  }

  @Test func badKeysAndDatesAreOneLine() throws {
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.appendingPathComponent("copy.rgbdscan").path
      let missing = folder.appendingPathComponent("missing.key").path
      var run = try Headscan.run(["convert", Self.scan, out, "--deidentify", "--key-file", missing])
      #expect(run.status == 1 && run.stderr == "headscan: error: \(missing): the key file is not a regular file (or does not exist)\n", "\(run.stderr)")
      let short = try Self.writeKey(in: folder, "secret\n")
      run = try Headscan.run(["convert", Self.scan, out, "--deidentify", "--key-file", short])
      #expect(
        run.status == 1
          && run.stderr == "headscan: error: \(short): the key has 6 bytes; a pseudonym key needs at least 16 (e.g. openssl rand -hex 32 > \(short))\n",
        "\(run.stderr)")
      run = try Headscan.run(program: Headscan.executable, ["convert", Self.scan, out, "--deidentify"], environment: ["HEADSCAN_KEY_FILE": ""])
      #expect(run.status == 1 && run.stderr == "headscan: error: --deidentify needs a pseudonym key: --key-file FILE, or the file named by $HEADSCAN_KEY_FILE\n")
      let key = try Self.writeKey(in: folder)
      run = try Headscan.run(["convert", Self.scan, out, "--deidentify", "--key-file", key, "--birth-date", "2026-02-30"])
      #expect(run.status != 0 && run.stderr.contains("--birth-date must be a date YYYY-MM-DD, not '2026-02-30'"), "\(run.stderr)")
      run = try Headscan.run(["convert", Self.scan, out, "--deidentify", "--key-file", key, "--birth-date", "2027-01-01"])
      #expect(run.status == 1 && run.stderr == "headscan: error: \(Self.scan): recorded on 2026-11-21, before the birth date 2027-01-01 given\n", "\(run.stderr)")
      run = try Headscan.run(["convert", Self.scan, out, "--key-file", key])
      #expect(run.status != 0 && run.stderr.contains("--key-file and --birth-date go with --deidentify"), "\(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: out))
    }
  }
}
