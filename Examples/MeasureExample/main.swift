// Measures a scan through the library API: read, register and fuse, lift the landmarks, measure.
// Run from the repository root: swift run -c release MeasureExample [SCAN]
import CVAI
import Foundation
import PointCloud
import Registration
import ScanIO

let scanPath = CommandLine.arguments.dropFirst().first ?? "fixtures/scans/orbit-small"
let landmarksPath = companionBase(of: scanPath) + ".landmarks.json"
do {
  let scan = try openScan(at: scanPath)
  let head = try reconstructHead(scan)  // registered, fused cloud; world = lowest kept marker (metres)
  let landmarks = try liftLandmarks(LandmarkFile(path: landmarksPath), path: landmarksPath, scan: scan, reconstruction: head)
  let frame = try HeadFrame(landmarks: landmarks)
  let points = head.cloud.positions.map { frame.headFromWorld.apply(SIMD3<Double>($0)) }
  let measurement = try measureHead(points: points)
  let m = measurement.measures
  print(String(format: "CVAI %.1f %%  CVA %.1f mm  CI %.1f  circumference %.1f mm  severity %d  (%d of %d frames registered)",
               m.cvai, m.cva, m.ci, m.circumference, m.severity, head.framesRegistered, head.frames.count))
} catch {
  FileHandle.standardError.write(Data("MeasureExample: \(error)\n".utf8))
  exit(1)
}
