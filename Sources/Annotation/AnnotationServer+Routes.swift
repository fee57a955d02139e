import Foundation
import HeadScan
import Hummingbird

extension AnnotationServer {
  /// Answers one request: 403 unless its path starts with the token, 404 for anything not on
  /// the fixed list of routes (so `..`, encoded or not, goes nowhere).
  func respond(to request: Request) async -> Response {
    let components = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    guard let first = components.first, Self.sameSecret(String(first), token) else {
      return Self.text(.forbidden, "forbidden: this page needs the address printed by headscan annotate\n")
    }
    let route = components.dropFirst().joined(separator: "/")
    do {
      // `api/frames/N/ITEM`: the one route with a parameter.
      let parts = route.split(separator: "/", omittingEmptySubsequences: false)
      if request.method == .get, parts.count == 4, parts[0] == "api", parts[1] == "frames" {
        let session = try readySession()
        guard parts[2].allSatisfy(\.isASCII), let index = Int(parts[2]), session.frames.indices.contains(index) else { return Self.notFound }
        switch parts[3] {
        case "color.png": return try colourImage(index)
        case "depth.png": return try depthMask(index)
        case "info": return try Self.json(frameInfo(index, session: session))
        default: return Self.notFound
        }
      }
      switch (request.method, route) {
      case (.get, "") where components.count == 1:
        // `/TOKEN` → `/TOKEN/`, so the page's relative addresses keep the token.
        var headers = HTTPFields()
        headers[.location] = "/\(token)/"
        return Response(status: .seeOther, headers: headers)
      case (.get, ""), (.get, "index.html"):
        return try asset("index.html")
      case (.get, "app.js"), (.get, "style.css"):
        return try asset(route)
      case (.get, "api/status"):
        return try Self.json(status())
      case (.get, "api/scan"):
        return try Self.json(scanSummary(try readySession()))
      case (.get, "api/cloud"):
        return try Self.json(cloud(try readySession()))
      case (.post, "api/evaluate"):
        let body: AnnotationAPI.Landmarks = try await Self.decode(request)
        return try Self.json(evaluate(try body.positions(), session: try readySession()))
      case (.post, "api/accept"):
        let body: AnnotationAPI.AcceptRequest = try await Self.decode(request)
        return try Self.json(try accept(body.name, session: try readySession()))
      case (.post, "api/save"):
        let body: AnnotationAPI.Landmarks = try await Self.decode(request)
        let backup = try store.save(try body.file(), scan: scan)
        return try Self.json(AnnotationAPI.Saved(saved: store.path, backup: backup))
      default:
        return Self.notFound
      }
    } catch let error as AnnotationError {
      return (try? Self.json(AnnotationAPI.Problem(error: error.description), status: .badRequest)) ?? Self.text(.badRequest, error.description)
    } catch let busy as NotReady {
      return (try? Self.json(AnnotationAPI.Problem(error: busy.description), status: .serviceUnavailable)) ?? Self.text(.serviceUnavailable, busy.description)
    } catch {
      let line = String(describing: error)
      return (try? Self.json(AnnotationAPI.Problem(error: line), status: .unprocessableContent)) ?? Self.text(.unprocessableContent, line)
    }
  }

  /// The reconstruction is not finished (or failed): 503.
  struct NotReady: Error, CustomStringConvertible {
    var description: String
  }

  func readySession() throws -> AnnotationSession {
    switch state.phase {
    case .ready(let session): return session
    case .failed(let message): throw NotReady(description: message)
    case .reconstructing: throw NotReady(description: "the scan is still being reconstructed")
    }
  }

  func status() -> AnnotationAPI.Status {
    switch state.phase {
    case .reconstructing(let stage, let done, let total):
      return .init(state: "reconstructing", stage: stage.rawValue, done: done, total: total)
    case .ready: return .init(state: "ready")
    case .failed(let message): return .init(state: "failed", error: message)
    }
  }

  func scanSummary(_ session: AnnotationSession) -> AnnotationAPI.Scan {
    // The file as it is now (saved from this page, perhaps), else as it was at start.
    let current = (try? store.load()) ?? initialLandmarks
    let initial = current.map { file in
      LandmarkFile.names.compactMap { name in file.positions[name].map { AnnotationAPI.Entry(name: name, position: $0) } }
    }
    return AnnotationAPI.Scan(
      scan: URL(fileURLWithPath: companionBase(of: configuration.scanPath)).lastPathComponent, landmarksPath: store.path,
      width: scan.header.colorWidth, height: scan.header.colorHeight, frames: session.frames, landmarks: initial ?? [],
      proposals: LandmarkFile.names.compactMap { name in
        session.proposals[name].map { .init(name: name, point: [$0.point.x, $0.point.y, $0.point.z], confidence: $0.confidence) }
      },
      proposalProblem: session.proposalProblem, markersDetected: session.reconstruction.markersDetected.count,
      framesRegistered: session.reconstruction.framesRegistered)
  }

  func frameInfo(_ index: Int, session: AnnotationSession) throws -> AnnotationAPI.Frame {
    let status = session.frames[index]
    let linked = Set(status.linked)
    let markers = try session.markers(inFrame: index).map { marker in
      AnnotationAPI.Marker(id: marker.id, corners: marker.corners.map { [$0.x, $0.y] }, state: linked.contains(marker.id) ? "green" : "red")
    }
    var proposals: [AnnotationAPI.ProjectedProposal] = []
    if !session.proposals.isEmpty, status.registered {
      let depth = try scan.frame(at: index).depth
      for name in LandmarkFile.names {
        guard let proposal = session.proposals[name], let seen = session.projection(of: proposal.point, inFrame: index, depth: depth)
        else { continue }
        proposals.append(.init(name: name, u: seen.u, v: seen.v, visible: seen.visible, confidence: proposal.confidence))
      }
    }
    return AnnotationAPI.Frame(frame: index, registered: status.registered, rejection: status.rejection, markers: markers, proposals: proposals)
  }

  /// At most 6000 points of the fused head, evenly strided, for the page's three views.
  func cloud(_ session: AnnotationSession) -> AnnotationAPI.Cloud {
    let cloud = session.reconstruction.cloud
    let stride = max(1, (cloud.count + 5999) / 6000)
    var points: [Float] = [], colors: [UInt8] = []
    for i in Swift.stride(from: 0, to: cloud.count, by: stride) {
      let p = cloud.positions[i]
      points += [p.x, p.y, p.z]
      let c = i < cloud.colors.count ? cloud.colors[i] : SIMD3<UInt8>(160, 160, 160)
      colors += [c.x, c.y, c.z]
    }
    return AnnotationAPI.Cloud(points: points, colors: colors, overviewFromWorld: .init(session.overviewFromWorld))
  }

  /// Every placed landmark lifted; with all four, the head frame and the measures.
  func evaluate(_ positions: [String: LandmarkFile.Position], session: AnnotationSession) -> AnnotationAPI.Evaluation {
    var lifts: [AnnotationAPI.Lift] = []
    for name in LandmarkFile.names {
      guard let position = positions[name] else { continue }
      let lift = session.lift(name, at: position, path: store.path)
      lifts.append(.init(name: name, point: lift.point.map { [$0.x, $0.y, $0.z] }, depthAtPixel: lift.depthAtPixel, registered: lift.registered, warning: lift.warning))
    }
    var evaluation = AnnotationAPI.Evaluation(lifts: lifts)
    guard lifts.count == 4, lifts.allSatisfy({ $0.point != nil }) else { return evaluation }
    do {
      let (m, level, headFromWorld) = try session.preview(LandmarkFile(positions: positions), path: store.path)
      evaluation.preview = Dictionary(uniqueKeysWithValues: HeadMeasure.allCases.map { ($0.rawValue, m[$0]) })
        .merging(["measurementLevel": level, "severity": Double(m.severity)]) { $1 }
      evaluation.headFromWorld = .init(headFromWorld)
    } catch {
      evaluation.previewProblem = String(describing: error)
    }
    return evaluation
  }

  /// Where accepting `name`'s proposal puts the landmark: the best view of the proposed point.
  func accept(_ name: String, session: AnnotationSession) throws -> AnnotationAPI.Entry {
    guard let proposal = session.proposals[name] else { throw AnnotationError.badRequest("no proposal for '\(name)'") }
    guard let view = try session.bestView(of: proposal.point) else {
      return AnnotationAPI.Entry(name: name, position: .world(proposal.point))
    }
    return AnnotationAPI.Entry(name: name, position: .pixel(frame: view.frame, u: view.u, v: view.v))
  }

  func colourImage(_ index: Int) throws -> Response {
    let color = try scan.frame(at: index).color
    var rgb = [UInt8](repeating: 0, count: color.width * color.height * 3)
    for i in 0..<(color.width * color.height) {
      rgb[3 * i] = color.bgra[4 * i + 2]
      rgb[3 * i + 1] = color.bgra[4 * i + 1]
      rgb[3 * i + 2] = color.bgra[4 * i]
    }
    return Self.bytes(PNGEncoding.encode(rgb, width: color.width, height: color.height, colourType: .rgb), type: "image/png")
  }

  /// The frame's depth coverage as an overlay at the depth map's size: clear where there is
  /// depth, translucent magenta where there is none.
  func depthMask(_ index: Int) throws -> Response {
    let depth = try scan.frame(at: index).depth
    var rgba = [UInt8](repeating: 0, count: depth.width * depth.height * 4)
    for (i, z) in depth.metres.enumerated() where !z.isFinite {
      rgba[4 * i] = 255
      rgba[4 * i + 2] = 255
      rgba[4 * i + 3] = 110
    }
    return Self.bytes(PNGEncoding.encode(rgba, width: depth.width, height: depth.height, colourType: .rgba), type: "image/png")
  }

  func asset(_ name: String) throws -> Response {
    guard let asset = assets[name] else { throw AnnotationError.missingAsset(name) }
    return Self.bytes(asset.bytes, type: asset.contentType)
  }

  // MARK: Responses

  static let notFound = text(.notFound, "not found\n")

  static func sameSecret(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }

  static func decode<T: Decodable>(_ request: Request) async throws -> T {
    var request = request
    let buffer = try await request.collectBody(upTo: 1 << 20)
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    } catch {
      throw AnnotationError.badRequest("the request's JSON is not what the page sends")
    }
  }

  static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
    bytes(try JSONEncoder().encode(value), type: "application/json", status: status)
  }

  static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
    bytes(Data(message.utf8), type: "text/plain; charset=utf-8", status: status)
  }

  static func bytes(_ data: Data, type: String, status: HTTPResponse.Status = .ok) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = type
    headers[.cacheControl] = "no-store"
    headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' blob:; base-uri 'none'; frame-ancestors 'none'"
    for (name, value) in [("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff")] {
      if let field = HTTPFields.Element.Name(name) { headers[field] = value }
    }
    // A refused request may have left part of its body unread: close the connection after the
    // answer instead of waiting for the rest.
    if status.code >= 400 { headers[.connection] = "close" }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }
}
