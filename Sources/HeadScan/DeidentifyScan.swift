import CVAI
import Foundation
import Landmarks
import PointCloud
import Reconstruction
import Reports
import ScanIO

/// How ``deidentifyScan(at:landmarks:to:options:progress:writing:)`` makes a copy for sharing.
public struct ScanDeidentificationOptions: Sendable {
  /// The pseudonym key and, optionally, the birth date (header and landmarks).
  public var header: HeaderDeidentification
  /// The grey that blanked colour pixels get (B = G = R, opaque): 128.
  public var fill: UInt8 = 128
  /// How far the blanked colour area is grown beyond the face's own pixels, pixels of a 640-wide
  /// image (scaled with the width): 6, to cover mixed pixels at the face's outline and depth noise.
  public var marginPixels = 6
  /// Depth is removed from this far below the nasion plane down, metres: 0.015. The fused
  /// surface ends a few millimetres short of where depth stops, and the measurement's layers
  /// start at the nasion plane: without this strip the lowest layers lose their front and the
  /// copy no longer measures. Colour is blanked from the plane itself.
  public var depthMarginBelowPlane = 0.015
  /// How the scan is read and registered to locate the face (bootstrap is not used).
  public var measure: MeasureOptions = .default

  public init(header: HeaderDeidentification) { self.header = header }
}

/// What ``deidentifyScan(at:landmarks:to:options:progress:writing:)`` wrote and removed.
public struct ScanDeidentification: Sendable {
  /// Frames written (all the scan's).
  public var frames: Int
  /// Frames blanked whole (colour grey, no depth): frames the registration could not place, so
  /// where the face lies in them is not known.
  public var framesBlankedWhole: Int
  /// Colour pixels blanked, over all frames.
  public var colourPixelsBlanked: Int
  /// Depth samples removed (set to no depth), over all frames.
  public var depthSamplesRemoved: Int
  /// The copy's header.
  public var header: ScanHeader
  /// The copy's landmarks: the original's lifted into the scan's world (no pixels, which may be blanked).
  public var landmarks: LandmarkFile
  /// The original scan's measurement (bootstrap off), whose registration located the face.
  public var original: ScanMeasurement
}

/// Writes a de-identified copy of a scan (docs/formats.md, "De-identified copies"): the header's
/// patient ID pseudonymised and recording time reduced (``HeaderDeidentification``), and the face
/// (``FaceRegion``, below the nasion plane and in front of the ears) removed from every frame:
///
/// - the scan is registered and its landmarks lifted, as `measure` does; the landmarks give the
///   head frame, each frame's pose places it in the frame;
/// - depth: every sample whose point lies in the face region, more than
///   ``ScanDeidentificationOptions/depthMarginBelowPlane`` below the nasion plane, is removed;
/// - colour: a pixel with depth is blanked when its own point is face; one without depth when
///   its ray runs into the face's own box (``FaceRegion/faceReach``) and it is not a hole in a
///   nearer surface outside the region; the blanked area is grown by
///   ``ScanDeidentificationOptions/marginPixels``, but not into the head well above the nasion
///   plane (the cap's stickers);
/// - frames the registration could not place are blanked whole.
///
/// The copy is registered again and the landmarks carried into its world, as world points
/// (``ScanDeidentification/landmarks``), so the copy
/// measures without the face's pixels: write them beside the copy (`NAME.landmarks.json`).
/// - Throws: ``DeidentificationError`` naming the scan when its landmarks are missing or cannot
///   be placed (the face cannot be located) or its recording time cannot be reduced;
///   `ScanIOError` when writing fails.
/// - Parameter writing: called after each frame written with (frames written, frames in all).
public func deidentifyScan(
  at path: String, landmarks: LandmarkSource = .besideScan, to destination: ScanDestination, options: ScanDeidentificationOptions,
  progress: ((MeasureProgress) -> Void)? = nil, writing: ((Int, Int) -> Void)? = nil
) throws -> ScanDeidentification {
  guard let landmarksPath = landmarks.path(forScan: path) else {
    throw DeidentificationError(path, "cannot locate the face without a landmarks file: de-identification needs the nasion, nose tip and ears")
  }
  guard FileManager.default.fileExists(atPath: landmarksPath) else {
    throw DeidentificationError(path, "cannot locate the face: no landmarks file \(landmarksPath)")
  }
  let scan = try openScan(at: path, options: options.measure.scan)
  let header = try scan.header.deidentified(by: options.header, path: path)
  var measureOptions = options.measure
  measureOptions.bootstrap = false
  let measured: ScanMeasurement
  do {
    measured = try measureScan(at: path, landmarks: .file(landmarksPath), options: measureOptions, progress: progress)
  } catch {
    throw DeidentificationError(path, "cannot locate the face: \(error)")
  }
  guard let world = measured.headFrame.landmarks else {
    throw DeidentificationError(path, "cannot locate the face: the head frame did not come from landmarks")
  }
  let reconstruction = measured.reconstruction
  // The raw depth is lifted in the world the poses give before the marker scale: positions
  // over the depth factor (the face region's lengths then differ by that factor, well inside
  // its margins).
  let unscale = 1 / reconstruction.depthFactor
  var headFromRawWorld = measured.headFrame.headFromWorld
  headFromRawWorld.translation *= unscale
  let region = FaceRegion(headFromWorld: headFromRawWorld)
  // Poses belong to the focal length the registration used.
  let refocus = reconstruction.focalLengthUsed.map { $0 / scan.header.colorIntrinsics.fx } ?? 1
  var blankedWhole = 0, colourBlanked = 0, depthRemoved = 0
  let conversion = try convertScan(scan, to: destination, header: header, progress: writing) { frame throws(ScanIOError) in
    var frame = frame
    guard reconstruction.frames.indices.contains(frame.index), var pose = reconstruction.frames[frame.index].worldFromCamera else {
      blankedWhole += 1
      colourBlanked += frame.color.width * frame.color.height
      depthRemoved += frame.depth.validCount
      blankWhole(&frame, fill: options.fill)
      return frame
    }
    pose.translation *= unscale
    let counts = removeFace(
      from: &frame, pose: pose, region: region, refocus: refocus, fill: options.fill, margin: options.marginPixels,
      depthMargin: options.depthMarginBelowPlane)
    colourBlanked += counts.colour
    depthRemoved += counts.depth
    return frame
  }
  // The copy registers without the face's pixels: a sticker beside the face may be lost, and with
  // it the world (the lowest kept sticker's frame). The landmarks are carried into the copy's own
  // world through the frames both registrations place.
  var carried: ((SIMD3<Double>) -> SIMD3<Double>)?
  var failure = "no frame is placed in both"
  do {
    let copied = try reconstructHead(try openScan(at: destination.path, options: options.measure.scan), options: measureOptions.reconstruction) {
      stage, done, total in progress?(.reconstructing(stage, done: done, total: total))
    }
    carried = carriedIntoCopy(from: reconstruction, to: copied)
  } catch {
    failure = "\(error)"
  }
  guard let copyWorldFromWorld = carried else {
    try? FileManager.default.removeItem(atPath: destination.path)
    throw DeidentificationError(path, "the de-identified copy does not register, so the landmarks cannot be carried into it: \(failure)")
  }
  let landmarkFile = LandmarkFile(
    positions: Dictionary(uniqueKeysWithValues: world.named.map { ($0.0, LandmarkFile.Position.world(copyWorldFromWorld($0.1))) }))
  return ScanDeidentification(
    frames: conversion.frames, framesBlankedWhole: blankedWhole, colourPixelsBlanked: colourBlanked, depthSamplesRemoved: depthRemoved,
    header: header, landmarks: landmarkFile, original: measured)
}

/// World points of `original` carried into the world of `copy` (the same frames registered again):
/// through each frame both place, into its camera and out into the copy's world, averaged.
/// - Returns: `nil` when no frame is placed by both.
func carriedIntoCopy(from original: HeadReconstruction, to copy: HeadReconstruction) -> ((SIMD3<Double>) -> SIMD3<Double>)? {
  let pairs = original.frames.indices.compactMap { i -> (cameraFromWorld: RigidTransform, copyWorldFromCamera: RigidTransform)? in
    guard copy.frames.indices.contains(i), let a = original.frames[i].worldFromCamera, let b = copy.frames[i].worldFromCamera else { return nil }
    return (a.inverse, b)
  }
  guard !pairs.isEmpty else { return nil }
  return { point in pairs.map { $0.copyWorldFromCamera.apply($0.cameraFromWorld.apply(point)) }.reduce(.zero, +) / Double(pairs.count) }
}

/// A frame with no depth and grey colour.
func blankWhole(_ frame: inout ScanFrame, fill: UInt8) {
  frame.depth.metres = [Float](repeating: .nan, count: frame.depth.metres.count)
  for i in 0..<(frame.color.width * frame.color.height) {
    (frame.color.bgra[4 * i], frame.color.bgra[4 * i + 1], frame.color.bgra[4 * i + 2], frame.color.bgra[4 * i + 3]) = (fill, fill, fill, 255)
  }
}

/// Removes the face region from one placed frame (see ``deidentifyScan(at:landmarks:to:options:progress:writing:)``);
/// returns the colour pixels blanked and the depth samples removed.
func removeFace(
  from frame: inout ScanFrame, pose: RigidTransform, region: FaceRegion, refocus: Double, fill: UInt8, margin: Int, depthMargin: Double,
  holeWindow: Int = 8, holeDepth: Double = 0.02
) -> (colour: Int, depth: Int) {
  func refocused(_ k: CameraIntrinsics) -> CameraIntrinsics {
    CameraIntrinsics(fx: k.fx * refocus, fy: k.fy * refocus, cx: k.cx, cy: k.cy, width: k.width, height: k.height)
  }
  let depthK = refocused(frame.depth.intrinsics), colourK = refocused(frame.color.intrinsics)
  let dw = frame.depth.width, dh = frame.depth.height, cw = frame.color.width, ch = frame.color.height
  let original = frame.depth.metres
  // Each depth sample's point: face when it lies in the region or within 5 mm of it (the head
  // frame's own error); the depth
  // of the samples clearly outside it (+∞ elsewhere), for the holes test below.
  var faceSample = [Bool](repeating: false, count: dw * dh)
  var outsideDepth = [Double](repeating: .infinity, count: dw * dh)
  // The head well above the nasion plane (the cap and its stickers, which the copy registers by):
  // the blanked area is never grown into it.
  var capSample = [Bool](repeating: false, count: dw * dh)
  let capAbovePlane = 0.008
  for y in 0..<dh {
    for x in 0..<dw {
      let z = Double(original[y * dw + x])
      guard z.isFinite, z > 0 else { continue }
      let q = region.headFromWorld.apply(pose.apply(depthK.unproject(u: Double(x), v: Double(y), depth: z)))
      if FaceRegion.containsHeadPoint(q + SIMD3(0.005, 0, -0.005)) { faceSample[y * dw + x] = true } else { outsideDepth[y * dw + x] = z }
      if q.z > capAbovePlane, (q * q).sum() < FaceRegion.faceReach * FaceRegion.faceReach { capSample[y * dw + x] = true }
    }
  }
  let holeRadius = max(1, Int((Double(holeWindow) * Double(dw) / 640).rounded(.up)))
  let nearestOutside = minimumFiltered(outsideDepth, width: dw, height: dh, radius: holeRadius)
  let nearFace = dilated(faceSample, width: dw, height: dh, radius: 2 * holeRadius)
  // Colour: a pixel with depth shows its own point, so it is face when that sample is. A pixel
  // without depth is face when its ray runs into the face's own box, unless it is a hole in a
  // surface outside the region: one nearer than the box around it, and no face sample within
  // twice that window. A hole in the back of the head, whose ray runs on through the head
  // into the box, is kept; one in an eye below the brow, which lies nearer, is blanked.
  var mask = [Bool](repeating: false, count: cw * ch)
  let origin = pose.translation
  for v in 0..<ch {
    let dy = min(dh - 1, max(0, Int(((Double(v) + 0.5) * Double(dh) / Double(ch) - 0.5).rounded())))
    for u in 0..<cw {
      let dx = min(dw - 1, max(0, Int(((Double(u) + 0.5) * Double(dw) / Double(cw) - 0.5).rounded())))
      let z = original[dy * dw + dx]
      if z.isFinite, z > 0 {
        mask[v * cw + u] = faceSample[dy * dw + dx]
        continue
      }
      let direction = pose.rotation * colourK.unproject(u: Double(u), v: Double(v), depth: 1)
      guard let crossing = region.crossing(origin: origin, direction: direction, reach: FaceRegion.faceReach) else { continue }
      if !nearFace[dy * dw + dx], nearestOutside[dy * dw + dx] < crossing.entry - holeDepth { continue }
      mask[v * cw + u] = true
    }
  }
  let radius = max(0, Int((Double(margin) * Double(cw) / 640).rounded(.up)))
  mask = dilated(mask, width: cw, height: ch, radius: radius)
  for v in 0..<ch {
    let dy = min(dh - 1, max(0, Int(((Double(v) + 0.5) * Double(dh) / Double(ch) - 0.5).rounded())))
    for u in 0..<cw where mask[v * cw + u] {
      let dx = min(dw - 1, max(0, Int(((Double(u) + 0.5) * Double(dw) / Double(cw) - 0.5).rounded())))
      if capSample[dy * dw + dx] { mask[v * cw + u] = false }
    }
  }
  var colour = 0
  for i in 0..<(cw * ch) where mask[i] {
    (frame.color.bgra[4 * i], frame.color.bgra[4 * i + 1], frame.color.bgra[4 * i + 2], frame.color.bgra[4 * i + 3]) = (fill, fill, fill, 255)
    colour += 1
  }
  // Depth: every sample whose point lies in the region (or within 5 mm in front of the ears'
  // plane, as for colour) more than `depthMargin` below the nasion plane.
  var depth = 0
  for y in 0..<dh {
    for x in 0..<dw {
      let z = original[y * dw + x]
      guard z.isFinite, z > 0 else { continue }
      let q = region.headFromWorld.apply(pose.apply(depthK.unproject(u: Double(x), v: Double(y), depth: Double(z))))
      if FaceRegion.containsHeadPoint(q + SIMD3(0.005, 0, 0)), q.z < -depthMargin {
        frame.depth.metres[y * dw + x] = .nan
        depth += 1
      }
    }
  }
  return (colour, depth)
}

/// The smallest value within `radius` pixels of each (a square: rows, then columns).
func minimumFiltered(_ values: [Double], width: Int, height: Int, radius: Int) -> [Double] {
  // One pass along `lines` lines of `length` values each; `index(line, k)` finds the k-th.
  func pass(_ input: [Double], lines: Int, length: Int, index: (Int, Int) -> Int) -> [Double] {
    var out = [Double](repeating: .infinity, count: input.count)
    for line in 0..<lines {
      for k in 0..<length {
        var m = Double.infinity
        for j in max(0, k - radius)...min(length - 1, k + radius) { m = min(m, input[index(line, j)]) }
        out[index(line, k)] = m
      }
    }
    return out
  }
  let rows = pass(values, lines: height, length: width) { $0 * width + $1 }
  return pass(rows, lines: width, length: height) { $1 * width + $0 }
}

/// `mask` grown by `radius` pixels in each direction (a square: rows, then columns).
func dilated(_ mask: [Bool], width: Int, height: Int, radius: Int) -> [Bool] {
  guard radius > 0 else { return mask }
  // One pass along `lines` lines of `length` values each; `index(line, k)` finds the k-th. A value
  // is set when a set one lies within `radius` before or after it along its line.
  func pass(_ input: [Bool], lines: Int, length: Int, index: (Int, Int) -> Int) -> [Bool] {
    var out = [Bool](repeating: false, count: input.count)
    var next = [Int](repeating: Int.max, count: length)  // the first set value at or after k
    for line in 0..<lines {
      var upcoming = Int.max
      for k in stride(from: length - 1, through: 0, by: -1) {
        if input[index(line, k)] { upcoming = k }
        next[k] = upcoming
      }
      var last = -radius - 1  // the last set value at or before k, or far away
      for k in 0..<length {
        if input[index(line, k)] { last = k }
        out[index(line, k)] = k - last <= radius || (next[k] != Int.max && next[k] - k <= radius)
      }
    }
    return out
  }
  let rows = pass(mask, lines: height, length: width) { $0 * width + $1 }
  return pass(rows, lines: width, length: height) { $1 * width + $0 }
}

extension PointSet {
  /// The points outside the face region (positions with their normals and colours).
  public func removingFace(_ region: FaceRegion) -> PointSet {
    var kept = self
    let keep = positions.indices.filter { !region.contains(SIMD3<Double>(positions[$0])) }
    kept.positions = keep.map { positions[$0] }
    if normals.count == positions.count { kept.normals = keep.map { normals[$0] } }
    if colors.count == positions.count { kept.colors = keep.map { colors[$0] } }
    return kept
  }
}

extension ScanMeasurement {
  /// This measurement as a de-identified report shows it: the report's patient ID pseudonymised
  /// and recording time reduced, the face region removed from the fused cloud (so from the
  /// page's views and a written cloud). The measures are unchanged.
  /// - Throws: ``DeidentificationError`` naming the scan when its head frame does not come from
  ///   landmarks or its recording time cannot be reduced.
  public func deidentified(by deidentification: HeaderDeidentification, scan path: String) throws -> ScanMeasurement {
    guard headFrame.landmarks != nil else {
      throw DeidentificationError(path, "cannot locate the face without landmarks: de-identified outputs need the landmarks' head frame")
    }
    var copy = self
    copy.report.patientID = report.patientID.map(deidentification.pseudonym(of:))
    let reduced = try deidentification.reduce(recordedAt: report.recordedAt, path: path)
    copy.report.recordedAt = reduced.date
    copy.report.ageAtScanDays = reduced.ageInDays ?? (report.recordedAt == nil ? report.ageAtScanDays : nil)
    copy.reconstruction.cloud = reconstruction.cloud.removingFace(FaceRegion(headFromWorld: headFrame.headFromWorld))
    return copy
  }
}
