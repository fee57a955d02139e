import Foundation
import Testing
import _TestSupport

/// `headscan annotate` refuses bad options and inputs with one line naming the problem, before
/// any reconstruction or listening.
struct AnnotateCommandTests {
  @Test func refusesNonLoopbackHostsBadPortsAndMissingScans() throws {
    // A non-loopback host is a usage error, before anything is read.
    for host in ["0.0.0.0", "192.168.1.10"] {
      let run = try Headscan.run(["annotate", "fixtures/scans/orbit-small", "--host", host])
      #expect(run.status == 64 && run.stderr.hasPrefix("headscan: error: --host \(host): refusing to listen on a non-loopback address"), "\(host): \(run.stderr)")
      #expect(run.stdout.isEmpty, "\(host) printed an address: \(run.stdout)")
    }
    let cases: [([String], String)] = [(["annotate", "fixtures/scans/no-such-scan.rgbdscan"], "no-such-scan.rgbdscan")]
    for (arguments, message) in cases {
      let run = try Headscan.run(arguments)
      #expect(run.status == 1, "\(arguments): \(run.stderr)")
      #expect(run.stderr.hasPrefix("headscan: error: ") && run.stderr.contains(message) && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
      #expect(run.stdout.isEmpty, "\(arguments) printed an address: \(run.stdout)")
    }
    // A port outside 1024…65535 (0 picks one) is a usage error, before anything is read.
    let port = try Headscan.run(["annotate", "fixtures/scans/orbit-small", "--port", "70000"])
    #expect(port.status == 64 && port.stderr.contains("--port must be 0 (a free one) or within 1024…65535, got 70000") && port.stdout.isEmpty, "\(port.stderr)")
    let help = try Headscan.run(["annotate", "--help"])
    #expect(help.status == 0 && help.stdout.contains("Examples:") && help.stdout.contains("--landmarks") && help.stdout.contains("--port"))
  }
}
