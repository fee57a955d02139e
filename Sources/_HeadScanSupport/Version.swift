/// The version `headscan --version` prints; equal to `HeadScanVersion.current` (Reports), which reports carry.
package let headscanVersion = "0.6.0"
