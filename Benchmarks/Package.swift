// swift-tools-version: 6.1
//
// Per-stage benchmarks of headscan (ordo-one `benchmark`), in their own package so
// that users of the library never build the benchmark tooling. Run from here:
//   swift package benchmark
// The end-to-end numbers (1800 frames, frames/s, peak RSS) come from
// ../scripts/benchmark-end-to-end.sh; see ../docs/performance.md. Tables/ holds measurement
// tables that are not timings (run with `swift run -c release NAME`; not benchmarks, so
// `swift package benchmark` leaves them alone): MeshTable (../scripts/mesh-table.sh).

import PackageDescription

let package = Package(
  name: "headscan-benchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "headscan", path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    .executableTarget(
      name: "PipelineStages",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "ScanIO", package: "headscan"),
        .product(name: "ArucoBridge", package: "headscan"),
        .product(name: "PointCloud", package: "headscan"),
        .product(name: "Registration", package: "headscan"),
        .product(name: "Fusion", package: "headscan"),
        .product(name: "Reconstruction", package: "headscan"),
        .product(name: "CVAI", package: "headscan"),
        .product(name: "Landmarks", package: "headscan"),
        .product(name: "OperatorGuidance", package: "headscan"),
        .product(name: "ScanSimulator", package: "headscan"),
      ],
      path: "Benchmarks/PipelineStages",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "MeshTable",
      dependencies: [
        .product(name: "HeadMesh", package: "headscan"),
        .product(name: "HeadScan", package: "headscan"),
        .product(name: "ScanSimulator", package: "headscan"),
      ],
      path: "Tables/MeshTable"
    ),
    .executableTarget(
      name: "LZFSEDecoding",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "LZFSE", package: "headscan"),
      ],
      path: "Benchmarks/LZFSEDecoding",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ]
)
