import Annotation
import Foundation
import HeadScan
import Testing
import _TestSupport

/// The server over HTTP, as a browser (or anything else on the machine) reaches it.
@Suite(.serialized)
struct AnnotationServerTests {
  @Test func refusesNonLoopbackAddresses() throws {
    for host in ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.org", "127.0.0.1.example.org", "localhost.example.org", "127.0.0.256", ""] {
      #expect(!AnnotationServer.isLoopback(host), "\(host)")
      // Refused before anything is opened (the scan path does not even exist).
      var configuration = AnnotationServer.Configuration(scanPath: "/nonexistent/scan.rgbdscan")
      configuration.host = host
      #expect(throws: AnnotationError.notLoopback(host: host)) { try AnnotationServer(configuration: configuration) }
    }
    for host in ["127.0.0.1", "127.1.2.3", "::1", "localhost"] { #expect(AnnotationServer.isLoopback(host), "\(host)") }
    var badPort = AnnotationServer.Configuration(scanPath: "/nonexistent/scan.rgbdscan")
    badPort.port = 70_000
    #expect(throws: AnnotationError.invalidPort(70_000)) { try AnnotationServer(configuration: badPort) }
  }

  @Test func everyRequestNeedsTheToken() async throws {
    let f = try await AnnotationFixture.shared.value
    #expect(f.server.token.count == 32 && f.server.token.allSatisfy(\.isHexDigit))
    let other = String(f.server.token.reversed())
    for path in ["/", "/index.html", "/app.js", "/api/status", "/api/scan", "/\(other)/", "/\(other)/api/status", "/\(f.server.token.dropLast())/",
      "/\(f.server.token)x/api/status", "/favicon.ico"]
    {
      let reply = try HTTPProbe.get(port: f.port, path)
      #expect(reply.status == 403, "\(path): \(reply.status)")
      #expect(!reply.text.contains("frames"))
    }
    #expect(try HTTPProbe.post(port: f.port, "/\(other)/api/save", json: Data("{}".utf8)).status == 403)
    // With the token: the page, its files, the API.
    let page = try HTTPProbe.get(port: f.port, f.base)
    #expect(page.status == 200 && page.text.contains("<title>headscan annotate</title>"))
    #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
    #expect(try HTTPProbe.get(port: f.port, f.base + "app.js").status == 200)
    #expect(try HTTPProbe.get(port: f.port, f.base + "style.css").headers["content-type"]?.hasPrefix("text/css") == true)
    let redirect = try HTTPProbe.get(port: f.port, "/\(f.server.token)")
    #expect(redirect.status == 303 && redirect.headers["location"] == f.base)
  }

  @Test func pathsOutsideTheRoutesAreNotFound() async throws {
    let f = try await AnnotationFixture.shared.value
    let escapes = [
      "../../../../etc/passwd", "%2e%2e/%2e%2e/%2e%2e/etc/passwd", "..%2f..%2f..%2fetc%2fpasswd", "api/frames/0/../../../../etc/passwd",
      "Page/app.js", "./app.js", "app.js/", "api/frames/0/color.png/../../../Package.swift", "api/frames/-1/color.png",
      "api/frames/36/color.png", "api/frames/99999999999999999999/info", "api/frames/x/info", "api/frames/0/scan.rgbdscan",
      "scan.rgbdscan", "..", "%2e%2e", "api/../app.js", "api//status",
    ]
    for path in escapes {
      let reply = try HTTPProbe.get(port: f.port, f.base + path)
      #expect(reply.status == 404, "\(path): \(reply.status)")
      #expect(!reply.text.contains("root:") && !reply.text.contains("PackageDescription"))
    }
    #expect(try HTTPProbe.post(port: f.port, f.base + "../../tmp/x", json: Data("{}".utf8)).status == 404)
  }

  @Test func servesTheScansFramesAndStatus() async throws {
    let f = try await AnnotationFixture.shared.value
    let session = try f.session()
    let scan = try openScan(at: f.scanPath)
    // The strip: one entry per frame, poses and marker ids as the reconstruction has them.
    let summary = try JSONSerialization.jsonObject(with: HTTPProbe.get(port: f.port, f.base + "api/scan").body) as? [String: Any]
    let frames = try #require(summary?["frames"] as? [[String: Any]])
    #expect(frames.count == scan.frameCount)
    for (entry, diagnostics) in zip(frames, session.reconstruction.frames) {
      #expect(entry["registered"] as? Bool == (diagnostics.worldFromCamera != nil))
      #expect(entry["markers"] as? [Int] == diagnostics.detectedIDs.sorted())
      let coverage = try #require(entry["depthCoverage"] as? Double)
      let depth = try scan.frame(at: diagnostics.index).depth
      #expect(abs(coverage - Double(depth.validCount) / Double(depth.metres.count)) < 1e-12)
    }
    // Live coverage: each frame carries the replayed state after it (band share once the head is
    // found, what was still missing), the last one what the replay's timeline ends with.
    let live = try replayCoverage(in: scan)
    for (entry, state) in zip(frames, live) {
      #expect((entry["bandCoveragePercent"] as? Double) == (state.headFound ? state.bandCoveragePercent : nil))
      #expect(entry["missing"] as? [String] == state.missingNames)
    }
    #expect(live.last?.headFound == true && (frames.last?["bandCoveragePercent"] as? Double ?? 0) > 90)
    #expect(frames.last?["missing"] as? [String] == CoverageTimeline(states: live).final?.missingNames)
    // Overlap colours: a marker is red in the first frame that shows it, green afterwards.
    var seen = Set<Int>()
    for entry in frames {
      let ids = entry["markers"] as? [Int] ?? [], firstSeen = Set(entry["firstSeen"] as? [Int] ?? [])
      #expect(firstSeen == Set(ids).subtracting(seen))
      seen.formUnion(ids)
    }
    // The colour image: a PNG whose pixels are the frame's (decoded by libpng through ScanIO).
    let index = try #require(session.frames.first { $0.registered }?.frame)
    let png = try HTTPProbe.get(port: f.port, f.base + "api/frames/\(index)/color.png")
    #expect(png.status == 200 && png.headers["content-type"] == "image/png")
    let decoded: ImageFiles.BGRA = try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("frame.png").path
      try png.body.write(to: URL(fileURLWithPath: path))
      return try ImageFiles.readColor(at: path)
    }
    let colour = try scan.frame(at: index).color
    #expect(decoded.width == colour.width && decoded.height == colour.height && decoded.bytes == colour.bgra)
    // Markers drawn on the page: the detector's, coloured by overlap.
    let info = try JSONSerialization.jsonObject(with: HTTPProbe.get(port: f.port, f.base + "api/frames/\(index)/info").body) as? [String: Any]
    let markers = try #require(info?["markers"] as? [[String: Any]])
    #expect(Set(markers.compactMap { $0["id"] as? Int }) == Set(try session.markers(inFrame: index).map(\.id)))
    #expect(markers.allSatisfy { ($0["corners"] as? [[Double]])?.count == 4 })
    #expect(try HTTPProbe.get(port: f.port, f.base + "api/frames/\(index)/depth.png").status == 200)
  }

  @Test func liftsAndPreviewsLikeMeasure() async throws {
    let f = try await AnnotationFixture.shared.value
    let session = try f.session()
    let entries = LandmarkFile.names.compactMap { name -> [String: Any]? in
      guard case .pixel(let frame, let u, let v)? = f.truePixels.positions[name] else { return nil }
      return ["name": name, "frame": frame, "u": u, "v": v]
    }
    #expect(entries.count == 4, "the simulator should see every landmark in some frame")
    let body = try JSONSerialization.data(withJSONObject: ["landmarks": entries])
    let reply = try HTTPProbe.post(port: f.port, f.base + "api/evaluate", json: body)
    #expect(reply.status == 200)
    let evaluation = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
    let lifts = try #require(evaluation["lifts"] as? [[String: Any]])
    // The lifts are the library's lifting of the same file, and lie within 1 mm of the truth.
    let lifted = try liftLandmarks(f.truePixels, path: "true-pixels.json", scan: session.scan, reconstruction: session.reconstruction)
    for (lift, (name, expected)) in zip(lifts, lifted.named) {
      #expect(lift["name"] as? String == name)
      let point = try #require(lift["point"] as? [Double])
      #expect(abs(point[0] - expected.x) < 1e-12 && abs(point[1] - expected.y) < 1e-12 && abs(point[2] - expected.z) < 1e-12)
      let error = (expected - (try f.trueWorldPoint(name, reconstruction: session.reconstruction))).length
      // Within 1 mm where the true pixel is clicked (docs/landmarks.md; measured 0.08–0.43 mm,
      // the nose tip the farthest: a frame's own depth window behind a barely fused nose once
      // lifted it 2.2 mm off).
      #expect(error < 0.001, "\(String(format: "%@ lifted %.2f mm from the truth", name, error * 1000))")
    }
    // The preview is `measure`'s CVAI on the same landmarks (bootstrap aside).
    let preview = try #require(evaluation["preview"] as? [String: Any])
    var options = MeasureOptions.default
    options.bootstrap = false
    let measured = try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("l.json").path
      try f.truePixels.jsonData().write(to: URL(fileURLWithPath: path))
      return try measureReconstruction(session.reconstruction, of: session.scan, landmarks: .file(path), options: options)
    }
    // (Equal up to the last bits a decimal JSON round trip keeps.)
    #expect(abs((preview["cvai"] as? Double ?? .nan) - measured.report.cvai) < 1e-9)
    #expect(abs((preview["circumference"] as? Double ?? .nan) - measured.report.circumference) < 1e-9)
    #expect(preview["severity"] as? Int == measured.report.severity)
    // A partial set lifts what it has and previews nothing; a frame outside the scan is a warning, not a failure.
    let partial = try JSONSerialization.data(withJSONObject: ["landmarks": [["name": "nasion", "frame": 4000, "u": 10.0, "v": 10.0]]])
    let partialReply = try JSONSerialization.jsonObject(with: HTTPProbe.post(port: f.port, f.base + "api/evaluate", json: partial).body) as? [String: Any]
    let partialLifts = try #require(partialReply?["lifts"] as? [[String: Any]])
    #expect(partialLifts.count == 1 && partialLifts[0]["point"] == nil && (partialLifts[0]["warning"] as? String)?.contains("4000") == true)
    #expect(partialReply?["preview"] == nil)
  }

  @Test func saveWritesTheLandmarksFileAndKeepsTheOldOneAsBak() async throws {
    let f = try await AnnotationFixture.shared.value
    let before = try f.folderContents().subtracting([".landmarks.json", ".landmarks.json.bak"].map { "scan" + $0 })
    func save(_ positions: [String: LandmarkFile.Position]) throws -> HTTPProbe.Reply {
      let entries = positions.sorted { $0.key < $1.key }.map { name, position -> [String: Any] in
        switch position {
        case .pixel(let frame, let u, let v): return ["name": name, "frame": frame, "u": u, "v": v]
        case .world(let p): return ["name": name, "x": p.x, "y": p.y, "z": p.z]
        }
      }
      return try HTTPProbe.post(port: f.port, f.base + "api/save", json: JSONSerialization.data(withJSONObject: ["landmarks": entries]))
    }
    let first = f.truePixels.positions
    var second = first
    second["noseTip"] = .pixel(frame: 3, u: 100.25, v: 200.5)
    second["leftEar"] = .world(SIMD3(0.01, -0.02, 0.03))
    #expect(try save(first).status == 200)
    #expect(try LandmarkFile(path: f.landmarksPath) == f.truePixels)
    #expect(try Data(contentsOf: URL(fileURLWithPath: f.landmarksPath)) == f.truePixels.jsonData())
    let reply = try save(second)
    #expect(reply.status == 200 && reply.text.contains(".bak"))
    // The new file reads back as saved (docs/formats.md, landmarks); the previous one is the .bak, byte for byte.
    #expect(try LandmarkFile(path: f.landmarksPath) == LandmarkFile(positions: second))
    #expect(try Data(contentsOf: URL(fileURLWithPath: f.landmarksPath + ".bak")) == f.truePixels.jsonData())
    // Refused saves change nothing: a landmark missing, unknown, outside the scan, or bad JSON.
    var missing = second
    missing["rightEar"] = nil
    var outside = second
    outside["nasion"] = .pixel(frame: 36, u: 1, v: 1)
    var offImage = second
    offImage["nasion"] = .pixel(frame: 2, u: 480, v: 1)
    for (reply, expected) in [
      (try save(missing), 400), (try save(outside), 422), (try save(offImage), 422),
      (try HTTPProbe.post(port: f.port, f.base + "api/save", json: Data("{\"landmarks\": [{\"name\": \"chin\", \"frame\": 1, \"u\": 1, \"v\": 1}]}".utf8)), 400),
      (try HTTPProbe.post(port: f.port, f.base + "api/save", json: Data("not json".utf8)), 400),
    ] {
      #expect(reply.status == expected, "\(reply.text)")
      #expect(reply.text.contains("error"))
    }
    #expect(try LandmarkFile(path: f.landmarksPath) == LandmarkFile(positions: second))
    // Nothing else was written beside the scan.
    #expect(try f.folderContents() == before.union(["scan.landmarks.json", "scan.landmarks.json.bak"]))
  }
}
