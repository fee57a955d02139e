import Foundation
import HeadScan

extension AnnotationSession {
  /// One landmark lifted to the world, with what the page should warn about.
  public struct Lift: Sendable, Hashable, Codable {
    /// The lifted point, world frame, metres; `nil` when it cannot be placed.
    public var point: SIMD3<Double>?
    /// Whether the frame's depth map has a value at the pixel itself (otherwise the lift used
    /// the depth around it, or the fused surface along the ray).
    public var depthAtPixel: Bool
    /// Whether the frame has a pose.
    public var registered: Bool
    /// Why it cannot be placed, or what to beware of; one line.
    public var warning: String?
  }

  /// Lifts one landmark position with the project's lifting (`liftLandmarks(_:path:scan:reconstruction:)`):
  /// the median depth within ±2 pixels, else the fused point along the pixel's ray.
  /// - Parameters:
  ///   - name: the landmark (for messages).
  ///   - path: the landmarks file the position belongs to (for messages).
  public func lift(_ name: String, at position: LandmarkFile.Position, path: String) -> Lift {
    guard case .pixel(let index, let u, let v) = position else {
      if case .world(let p) = position { return Lift(point: p, depthAtPixel: true, registered: true, warning: nil) }
      return Lift(point: nil, depthAtPixel: false, registered: false, warning: nil)
    }
    guard frames.indices.contains(index) else {
      return Lift(point: nil, depthAtPixel: false, registered: false, warning: "frame \(index) is not in the scan (\(frames.count) frames)")
    }
    let registered = frames[index].registered
    var depthAtPixel = false
    if let frame = try? scan.frame(at: index) {
      let depth = frame.depth
      let x = Int(((u + 0.5) * Double(depth.width) / Double(frame.color.width)).rounded(.down))
      let y = Int(((v + 0.5) * Double(depth.height) / Double(frame.color.height)).rounded(.down))
      depthAtPixel = x >= 0 && y >= 0 && x < depth.width && y < depth.height && depth[x, y].isFinite
    }
    // The library lifts whole files: every name at this one position, then take one.
    let file = LandmarkFile(positions: Dictionary(uniqueKeysWithValues: LandmarkFile.names.map { ($0, position) }))
    do {
      let lifted = try liftLandmarks(file, path: path, scan: scan, reconstruction: reconstruction).nasion
      let warning = depthAtPixel ? nil : "no depth at this pixel: placed from the depth around it or the fused surface along its ray"
      return Lift(point: lifted, depthAtPixel: depthAtPixel, registered: registered, warning: warning)
    } catch {
      let message = String(describing: error).replacingOccurrences(of: "landmark 'nasion'", with: "landmark '\(name)'")
      return Lift(point: nil, depthAtPixel: depthAtPixel, registered: registered, warning: message)
    }
  }

  /// The measures a complete set of landmarks gives on this reconstruction: the head frame of
  /// the landmarks and `measure`'s own slicing (`MeasureOptions.default`: longer-diagonal CVAI,
  /// fitted contours), without the bootstrap intervals.
  /// - Throws: `LandmarkError` naming `path`, or `FileProblem` when the head gives no closed layer.
  public func preview(_ file: LandmarkFile, path: String) throws -> (measures: HeadShapeMeasures, level: Double, headFromWorld: RigidTransform) {
    var frame = try HeadFrameEstimate.fromLandmarks(file, path: path, scan: scan, reconstruction: reconstruction)
    frame.slicing.contour = MeasureOptions.default.contour
    do {
      let measurement = try measureHead(points: frame.headPoints(of: reconstruction.cloud), options: frame.slicing)
      return (measurement.measures, measurement.level.height, frame.headFromWorld)
    } catch {
      throw FileProblem(path: scan.path, problem: error.description)
    }
  }
}
