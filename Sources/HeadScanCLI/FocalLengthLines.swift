import Foundation
import Registration

/// The summary's lines on the focal length: the check (docs/registration.md, "Focal-length check") and, when the stated and
/// estimated focal lengths disagree, a warning line.
func focalLengthLines(_ check: IntrinsicsCheck?, used: Double?, scale: MetricScale?) -> [String] {
  var lines: [String] = []
  if let check {
    lines.append(
      String(
        format: "focal       stated %.1f px, markers show %.1f ± %.1f px (%d views): %@", check.statedFocalLength,
        check.focalLengthEstimate, check.focalLengthUncertainty, check.markersUsed, (check.consistent ? "consistent" : "NOT consistent") + String(format: " (limit %.1f %%)", 100 * check.limit)))
    if let warning = check.warning { lines.append("WARNING     " + warning) }
  } else {
    lines.append("focal       too few markers lifted by depth to check the stated focal length")
  }
  if let used {
    let source = used == check?.focalLengthEstimate ? "the markers' estimate" : "--focal-length"
    lines.append(String(format: "focal       depth lifted with %.1f px (%@)", used, source))
  }
  if let scale {
    lines.append(
      String(
        format: "scale       markers show lengths ×%.4f ± %.4f: %@", scale.depthScaleFactor, scale.uncertainty,
        scale.applied ? "applied (depth divided by it)" : "not applied (depth scale kept)"))
  }
  return lines
}
