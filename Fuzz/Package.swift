// swift-tools-version: 6.0
//
// libFuzzer targets for headscan's parsers. Kept out of the main package so that
// nobody building the library needs the fuzzer runtime. Build and run with
// `scripts/fuzz.sh` (see docs/reliability.md); a plain `swift build` here fails
// on purpose: the targets have no `main` without `-sanitize=fuzzer`.

import PackageDescription

let package = Package(
  name: "headscan-fuzz",
  dependencies: [
    .package(name: "headscan", path: ".."),
  ],
  targets: [
    .target(name: "FuzzSupport", path: "Sources/FuzzSupport"),
    .executableTarget(
      name: "FuzzScanStream", dependencies: ["FuzzSupport", .product(name: "ScanIO", package: "headscan")]),
    .executableTarget(
      name: "FuzzTUMIndex", dependencies: ["FuzzSupport", .product(name: "ScanIO", package: "headscan")]),
    .executableTarget(
      name: "FuzzImageFile", dependencies: ["FuzzSupport", .product(name: "ScanIO", package: "headscan")]),
    .executableTarget(
      name: "FuzzLandmarks", dependencies: ["FuzzSupport", .product(name: "ScanIO", package: "headscan")]),
    .executableTarget(
      name: "FuzzCalliperCSV", dependencies: ["FuzzSupport", .product(name: "Agreement", package: "headscan")]),
    .executableTarget(name: "FuzzLZFSE", dependencies: [.product(name: "LZFSE", package: "headscan")]),
    .executableTarget(
      name: "FuzzRecord3D", dependencies: ["FuzzSupport", .product(name: "ScanIO", package: "headscan")]),
    .executableTarget(name: "FuzzRecord3DMetadata", dependencies: [.product(name: "ScanIO", package: "headscan")]),
    .executableTarget(name: "FuzzCap", dependencies: [.product(name: "ScanIO", package: "headscan")]),
    .executableTarget(name: "FuzzReportJSON", dependencies: [.product(name: "Reports", package: "headscan")]),
  ]
)
