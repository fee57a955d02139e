import Foundation
import Testing
import _HeadScanSupport
import _TestSupport

/// The annotation page's API under malformed and extreme requests, drawn from a seeded
/// generator: every request gets an answer below 500 (a 503 only while not ready), none crashes
/// or hangs the server, and it still serves a good request afterwards.
///
/// The server is `headscan annotate` in a process of its own, on a copy of the shared scan: as
/// a user runs it, and out of reach of this test process's other tests, whose long synchronous
/// work would otherwise hold the threads the server answers on.
struct AnnotationAPIFuzzTests {
  /// `headscan annotate SCAN` running as a child process, stopped when released.
  final class AnnotateProcess {
    let process = Process()
    let port: Int
    let base: String

    init(scan: String) throws {
      process.executableURL = Headscan.executable
      process.arguments = ["annotate", scan, "--quiet"]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      // The first line: "headscan annotate: open http://127.0.0.1:PORT/TOKEN/ in a browser …".
      var line = Data()
      while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([10]) { line += byte }
      let text = String(decoding: line, as: UTF8.self)
      guard let start = text.range(of: "http://"), let url = URLComponents(string: String(text[start.lowerBound...].prefix { $0 != " " })),
        let port = url.port
      else {
        process.terminate()
        throw HTTPProbe.Failure(description: "headscan annotate printed no address: '\(text)'")
      }
      self.port = port
      base = url.path
    }

    deinit {
      process.terminate()
      process.waitUntilExit()
    }
  }

  /// A landmarks body with `value` where a number belongs, or the structure broken in one way.
  static func body(_ random: inout SeededGenerator) -> Data {
    let numbers = ["1e308", "-1e308", "1e-320", "0", "-1", "9223372036854775807", "18446744073709551616", "-9223372036854775808",
      "NaN", "Infinity", "\"12\"", "null", "true", "[]", "{}", "4096.5", "-2", "1e400"]
    func number() -> String { numbers[random.below(numbers.count)] }
    let names = ["nasion", "noseTip", "leftEar", "rightEar", "", "nasion\u{0}", String(repeating: "a", count: 10_000), "../../x"]
    func entry() -> String {
      let name = names[random.below(names.count)]
      switch random.below(4) {
      case 0: return "{\"name\": \"\(name)\", \"frame\": \(number()), \"u\": \(number()), \"v\": \(number())}"
      case 1: return "{\"name\": \"\(name)\", \"x\": \(number()), \"y\": \(number()), \"z\": \(number())}"
      case 2: return "{\"name\": \(number()), \"frame\": 0}"
      default: return "{\"name\": \"\(name)\", \"frame\": \(number()), \"u\": 1, \"v\": 1, \"x\": 1}"
      }
    }
    switch random.below(8) {
    case 0: return Data((0..<random.below(200)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    case 1: return Data(String(repeating: "[", count: 100_000).utf8)
    case 2: return Data(("{\"landmarks\": [" + String(repeating: entry() + ",", count: 200) + entry() + "]}").utf8)
    case 3: return Data(repeating: UInt8(ascii: " "), count: 1 << 21)  // over the 1 MiB body limit
    case 4: return Data("{\"name\": \(number())}".utf8)
    default: return Data(("{\"landmarks\": [" + (0..<random.below(6)).map { _ in entry() }.joined(separator: ",") + "]}").utf8)
    }
  }

  static func path(_ random: inout SeededGenerator, base: String) -> String {
    let frames = ["0", "-1", "35", "36", "999999999999999999999", "1e3", "0x10", "%30", "1/../2", ""]
    let items = ["color.png", "depth.png", "info", "", "..", "color.png%00", "info?x=1"]
    switch random.below(5) {
    case 0: return base + "api/frames/" + frames[random.below(frames.count)] + "/" + items[random.below(items.count)]
    case 1: return base + "api/" + ["status", "scan", "cloud", "evaluate", "accept", "save", "../app.js", "%2e%2e/"][random.below(8)]
    case 2: return base + String(repeating: "a/", count: random.below(2000))
    case 3: return base + "api/frames/" + String(repeating: "9", count: 1 + random.below(400)) + "/info"
    default: return base + "%" + String(format: "%02X", random.below(256)) + "api/status"
    }
  }

  @Test func malformedAndExtremeRequestsGetAnAnswerAndLeaveTheServerWell() async throws {
    let shared = try await AnnotationFixture.shared.value
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("headscan-api-fuzz-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.copyItem(atPath: shared.scanPath, toPath: folder + "/scan.rgbdscan")
    let f = try AnnotateProcess(scan: folder + "/scan.rgbdscan")
    try await AnnotationFixture.waitUntilReady(port: f.port, base: f.base)
    var random = SeededGenerator(seed: 20_261_126)
    var answered = 0
    for _ in 0..<400 {
      let reply: HTTPProbe.Reply
      switch random.below(3) {
      case 0:
        reply = try HTTPProbe.get(port: f.port, Self.path(&random, base: f.base))
      case 1:
        let route = ["api/evaluate", "api/accept", "api/evaluate"][random.below(3)]
        let body = Self.body(&random)
        do {
          reply = try HTTPProbe.post(port: f.port, f.base + route, json: body)
        } catch is HTTPProbe.ClosedWithoutReply {
          // Only a body over the server's 1 MiB limit may be cut off like that.
          #expect(body.count > 1 << 20, "closed without a reply on a \(body.count)-byte body")
          answered += 1
          continue
        }
      default:
        let method = ["PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "GET"][random.below(6)]
        reply = try HTTPProbe.request(port: f.port, method: method, path: Self.path(&random, base: f.base))
      }
      #expect(reply.status >= 200 && reply.status < 500, "status \(reply.status): \(reply.text.prefix(200))")
      answered += 1
    }
    #expect(answered == 400)
    // Saving refuses every extreme body (none of them is four complete, plausible landmarks).
    for _ in 0..<50 {
      let body = Self.body(&random)
      guard body.count <= 1 << 20 else { continue }
      let reply = try HTTPProbe.post(port: f.port, f.base + "api/save", json: body)
      #expect(reply.status == 400 || reply.status == 413 || reply.status == 422, "save answered \(reply.status): \(reply.text.prefix(200))")
    }
    let status = try HTTPProbe.get(port: f.port, f.base + "api/status")
    #expect(status.status == 200 && status.text.contains("\"ready\""))
    #expect(try HTTPProbe.get(port: f.port, f.base + "api/frames/0/info").status == 200)
    #expect(f.process.isRunning)
    #expect(!FileManager.default.fileExists(atPath: folder + "/scan.landmarks.json"), "a fuzzed save was accepted")
  }
}
