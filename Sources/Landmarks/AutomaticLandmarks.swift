import CVAI
import Foundation
import PointCloud

/// The four landmarks (nasion, nose tip, both tragions) found on a reconstruction, each with its confidence
/// (``detectLandmarks(cloud:markers:)``).
public struct AutomaticLandmarks: Sendable, Hashable {
  public var nasion: LandmarkProposal
  public var noseTip: LandmarkProposal
  /// The infant's own left tragion.
  public var leftEar: LandmarkProposal
  /// The infant's own right tragion.
  public var rightEar: LandmarkProposal

  /// Below this confidence a landmark is refused rather than used for a head frame.
  public static let minimumConfidence = 0.5

  public init(nasion: LandmarkProposal, noseTip: LandmarkProposal, leftEar: LandmarkProposal, rightEar: LandmarkProposal) {
    (self.nasion, self.noseTip, self.leftEar, self.rightEar) = (nasion, noseTip, leftEar, rightEar)
  }

  /// The four proposals in file order (nasion, nose tip, left ear, right ear).
  public var all: [LandmarkProposal] { [nasion, noseTip, leftEar, rightEar] }

  /// The points as landmarks, whatever their confidence (world, metres).
  public var points: HeadLandmarks {
    HeadLandmarks(nasion: nasion.position, noseTip: noseTip.position, leftEar: leftEar.position, rightEar: rightEar.position)
  }

  /// The points as landmarks once every one reaches `minimumConfidence`.
  /// - Throws: ``AutomaticLandmarkError/lowConfidence(_:)`` naming each landmark below it.
  public func accepted(minimumConfidence: Double = AutomaticLandmarks.minimumConfidence) throws(AutomaticLandmarkError) -> HeadLandmarks {
    let weak = all.filter { !($0.confidence >= minimumConfidence) }
    guard weak.isEmpty else { throw .lowConfidence(weak, minimum: minimumConfidence) }
    return points
  }
}

/// Why automatic landmarks could not be found or used.
public enum AutomaticLandmarkError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Too few registered stickers to tell where the cap is and which way is up.
  case noCap(markers: Int)
  /// Too few scanned points below the cap.
  case tooFewPoints(Int)
  /// Landmarks found with too little confidence (each with what was found).
  case lowConfidence([LandmarkProposal], minimum: Double)

  public var description: String {
    switch self {
    case .noCap(let n):
      return "automatic landmarks need the cap's stickers to tell up from down, but only \(n) were registered (at least 4)"
    case .tooFewPoints(let n):
      return "automatic landmarks need the scanned head below the cap, but only \(n) points lie there"
    case .lowConfidence(let weak, let minimum):
      let list = weak.map { String(format: "'%@' (confidence %.2f: %@)", $0.name, $0.confidence, $0.detail) }.joined(separator: ", ")
      return String(format: "automatic landmarks refused below confidence %.2f: ", minimum) + list
        + "; place them by hand (headscan annotate) or pass a landmarks file"
    }
  }
}
