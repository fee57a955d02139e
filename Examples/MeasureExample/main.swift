// A research tool in one call. From the repository root: swift run -c release MeasureExample [SCAN] [LANDMARKS]
import Foundation
import HeadScan

let arguments = CommandLine.arguments.dropFirst()
let scan = arguments.first ?? "fixtures/scans/orbit-small"
let landmarks: LandmarkSource = arguments.dropFirst().first.map { .file($0) } ?? .besideScan
do {
  let head = try measureScan(at: scan, landmarks: landmarks)  // report, reconstruction, head frame, measures
  let r = head.report
  print(String(format: "CVAI %.1f %%  CVA %.1f mm  CI %.1f  circumference %.1f mm  severity %d  (%d of %d frames registered)",
               r.cvai, r.cva, r.ci, r.circumference, r.severity, r.registration.framesRegistered, r.registration.frames))
} catch {
  FileHandle.standardError.write(Data("MeasureExample: \(error)\n".utf8))
  exit(1)
}
