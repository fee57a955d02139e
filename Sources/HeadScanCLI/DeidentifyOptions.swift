import ArgumentParser
import Foundation
import ScanIO

/// `--deidentify`, `--key-file` and `--birth-date` of `convert`, `reconstruct` and `measure`
/// (docs/formats.md, "De-identified copies").
struct DeidentifyOptions: ParsableArguments {
  /// The environment variable that names the key file when `--key-file` is not given.
  static let keyFileVariable = "HEADSCAN_KEY_FILE"

  @Flag(help: "Write de-identified outputs for sharing: the patient ID replaced by a keyed pseudonym, the recording time reduced to a date (or the age at the scan with --birth-date), the face below the nasion plane removed (located from the landmarks; refused without them). docs/formats.md, \"De-identified copies\", says what is and is not removed.")
  var deidentify = false

  @Option(help: ArgumentHelp(
    "The pseudonym key for --deidentify: a file of at least 16 bytes shared by the sites that pool scans (e.g. made with openssl rand -hex 32). Default: the file named by $HEADSCAN_KEY_FILE. The key is never given on the command line.",
    valueName: "file"))
  var keyFile: String?

  @Option(help: ArgumentHelp(
    "With --deidentify: the child's birth date, YYYY-MM-DD; the outputs then give the age at the scan in days instead of the date.",
    valueName: "date"))
  var birthDate: String?

  func validate() throws {
    if !deidentify && (keyFile != nil || birthDate != nil) { throw ValidationError("--key-file and --birth-date go with --deidentify") }
    if let birthDate, CalendarDate(birthDate) == nil {
      throw ValidationError("--birth-date must be a date YYYY-MM-DD, not '\(birthDate)'")
    }
  }

  /// The key file `--deidentify` reads (`--key-file`'s, or the one `$HEADSCAN_KEY_FILE` names):
  /// an input no output may replace. Empty without `--deidentify`.
  var inputFiles: [String] { deidentify ? [keyFilePath].compactMap { $0 } : [] }

  /// `--key-file`, or else the file `$HEADSCAN_KEY_FILE` names; `nil` when neither is given.
  private var keyFilePath: String? {
    keyFile ?? ProcessInfo.processInfo.environment[Self.keyFileVariable].flatMap({ $0.isEmpty ? nil : $0 })
  }

  /// The header de-identification asked for, `nil` without `--deidentify`; reads the key file.
  /// - Throws: a one-line error naming the key file, or saying that no key file was given.
  func header() throws -> HeaderDeidentification? {
    guard deidentify else { return nil }
    guard let path = keyFilePath else {
      throw CommandError("--deidentify needs a pseudonym key: --key-file FILE, or the file named by $\(Self.keyFileVariable)")
    }
    return HeaderDeidentification(key: try PseudonymKey(fileAt: path), birthDate: birthDate.flatMap { CalendarDate($0) })
  }
}
