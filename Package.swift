// swift-tools-version: 6.0
//
// headscan: infant head shape (CVAI) from TrueDepth scans with an ArUco cap.
//
// Read top-down: public products, the pipeline's modules in the order data flows through
// them, the modules around the pipeline, native shims, tests. docs/architecture.md draws the
// same graph (scripts/check-architecture.sh keeps the two in step). Native libraries come from
// Debian (docs/building.md): only the OpenCV and PCL libraries actually called are linked,
// which keeps process start-up fast.

import PackageDescription

let package = Package(
  name: "headscan",
  products: [
    .library(name: "ScanIO", targets: ["ScanIO"]),
    .library(name: "ArucoBridge", targets: ["ArucoBridge"]),
    .library(name: "PointCloud", targets: ["PointCloud"]),
    .library(name: "Registration", targets: ["Registration"]),
    .library(name: "Fusion", targets: ["Fusion"]),
    .library(name: "Reconstruction", targets: ["Reconstruction"]),
    .library(name: "HeadMesh", targets: ["HeadMesh"]),
    .library(name: "CVAI", targets: ["CVAI"]),
    .library(name: "Landmarks", targets: ["Landmarks"]),
    .library(name: "Reports", targets: ["Reports"]),
    .library(name: "Agreement", targets: ["Agreement"]),
    .library(name: "Figures", targets: ["Figures"]),
    .library(name: "OperatorGuidance", targets: ["OperatorGuidance"]),
    .library(name: "HeadScan", targets: ["HeadScan"]),
    .library(name: "Batch", targets: ["Batch"]),
    .library(name: "Annotation", targets: ["Annotation"]),
    .library(name: "ScanSimulator", targets: ["ScanSimulator"]),
    .library(name: "ScanEvaluation", targets: ["ScanEvaluation"]),
    .library(name: "LZFSE", targets: ["LZFSE"]),  // also for the Fuzz/ and Benchmarks/ packages
    .executable(name: "headscan", targets: ["HeadScanCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // The local annotation page's server (`headscan annotate`), bound to the loopback only.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
  ],
  targets: [
    // The pipeline, in the order data flows: read → detect → register → fuse → (mesh) → head frame → measure → report.
    .target(
      name: "ScanIO",
      dependencies: ["LZFSE", "_ImageCodec", "_HeadScanSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
    .target(name: "LZFSE"),
    .target(name: "ArucoBridge", dependencies: ["_ArucoShim"]),
    .target(name: "PointCloud"),
    .target(name: "Registration", dependencies: ["ScanIO", "ArucoBridge", "PointCloud", "_GeometryShim", "_HeadScanSupport"]),
    .target(name: "Fusion", dependencies: ["Registration", "ScanIO", "PointCloud", "_GeometryShim", "_HeadScanSupport"]),
    .target(name: "Reconstruction", dependencies: ["Registration", "Fusion", "ScanIO", "PointCloud", "_HeadScanSupport"]),
    .target(name: "HeadMesh", dependencies: ["PointCloud", "_HeadScanSupport"]),
    .target(name: "CVAI", dependencies: ["PointCloud", "_HeadScanSupport"]),
    .target(name: "Landmarks", dependencies: ["Reconstruction", "Registration", "CVAI", "ScanIO", "PointCloud", "_HeadScanSupport"]),
    .target(name: "Reports", dependencies: ["CVAI", "PointCloud", "_HeadScanSupport"]),
    .target(
      name: "HeadScan",
      dependencies: [
        "ScanIO", "ArucoBridge", "PointCloud", "Registration", "Fusion", "Reconstruction", "Landmarks", "CVAI", "Reports",
        "Agreement", "OperatorGuidance", "_HeadScanSupport",
      ]),

    // Around the pipeline: calliper agreement, every figure and page, live guidance, batches.
    .target(name: "Agreement", dependencies: ["Reports", "CVAI", "_HeadScanSupport"]),
    .target(
      name: "Figures",
      dependencies: ["Reports", "Agreement", "CVAI", "OperatorGuidance", "ScanIO", "ArucoBridge", "_HeadScanSupport"]),
    .target(name: "OperatorGuidance", dependencies: ["ScanIO", "ArucoBridge", "Registration", "PointCloud", "_HeadScanSupport"]),
    .target(name: "Batch", dependencies: ["Reports", "Figures", "ScanIO", "_HeadScanSupport"]),
    // The annotation page: a loopback-only web server over one scan and its reconstruction.
    .target(
      name: "Annotation",
      dependencies: [
        "HeadScan", "_HeadScanSupport", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ],
      resources: [.copy("Page")]),
    .target(name: "ScanSimulator", dependencies: ["ScanIO", "ArucoBridge", "CVAI", "PointCloud", "_HeadScanSupport"]),
    .target(
      name: "ScanEvaluation", dependencies: ["HeadScan", "Reconstruction", "Registration", "ScanSimulator", "ScanIO", "PointCloud", "_HeadScanSupport"]),

    // The command-line tool `headscan`: argument parsing and printing over the modules above.
    .executableTarget(
      name: "HeadScanCLI",
      dependencies: [
        "ScanIO", "ArucoBridge", "PointCloud", "Registration", "Fusion", "Reconstruction", "CVAI", "Reports", "Agreement",
        "OperatorGuidance", "ScanSimulator", "ScanEvaluation", "HeadScan", "HeadMesh", "Figures", "Batch", "Annotation",
        "_HeadScanSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),

    // The library in 15 lines: measure a scan (swift run -c release MeasureExample).
    .executableTarget(name: "MeasureExample", dependencies: ["HeadScan"], path: "Examples/MeasureExample"),

    // Support for the modules above, `package` access only: no API (see its README).
    .target(name: "_HeadScanSupport", exclude: ["README.md"]),

    // Native shims: plain C headers, no API (see each target's README).
    .target(
      name: "_ArucoShim",
      dependencies: ["_NativeSupport"],
      exclude: ["README.md", "system"],
      cxxSettings: [.headerSearchPath("system/opencv4")],
      linkerSettings: [
        .linkedLibrary("opencv_aruco"), .linkedLibrary("opencv_calib3d"),
        .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
        .linkedLibrary("m"),
      ]),
    .target(
      name: "_GeometryShim",
      dependencies: ["_NativeSupport"],
      exclude: ["README.md", "system"],
      cxxSettings: [.headerSearchPath("system/eigen3"), .headerSearchPath("system/pcl")],
      linkerSettings: [
        .linkedLibrary("pcl_registration"), .linkedLibrary("pcl_filters"), .linkedLibrary("pcl_kdtree"),
        .linkedLibrary("pcl_search"), .linkedLibrary("pcl_common"), .linkedLibrary("m"),
      ]),
    // The shims' shared C++ exception guard: one header, no library linked.
    .target(name: "_NativeSupport", exclude: ["README.md"]),
    .target(
      name: "_ImageCodec",
      exclude: ["README.md"],
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("m")]),

    // Tests: one target per module, named after it.
    .target(name: "_TestSupport", dependencies: ["ScanIO"], exclude: ["README.md"]),
    .testTarget(
      name: "ScanIOTests",
      dependencies: [
        "ScanIO", "ScanSimulator", "PointCloud", "_ImageCodec", "_HeadScanSupport", "_TestSupport",
        .product(name: "ZIPFoundation", package: "ZIPFoundation"),
      ]),
    .testTarget(name: "LZFSETests", dependencies: ["LZFSE", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(name: "ArucoBridgeTests", dependencies: ["ArucoBridge", "PointCloud", "ScanIO", "_ArucoShim", "_TestSupport"]),
    .testTarget(name: "PointCloudTests", dependencies: ["PointCloud"]),
    .testTarget(
      name: "RegistrationTests",
      dependencies: ["Registration", "Reconstruction", "ScanSimulator", "ScanIO", "ArucoBridge", "PointCloud", "_GeometryShim", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(
      name: "FusionTests",
      dependencies: ["Fusion", "Registration", "Reconstruction", "ScanEvaluation", "ScanSimulator", "ScanIO", "PointCloud", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(
      name: "ReconstructionTests",
      dependencies: ["Reconstruction", "Registration", "Fusion", "ScanEvaluation", "ScanSimulator", "ScanIO", "ArucoBridge", "PointCloud", "_TestSupport"]),
    .testTarget(name: "HeadMeshTests", dependencies: ["HeadMesh", "HeadScan", "ScanSimulator", "PointCloud", "_TestSupport"]),
    .testTarget(name: "CVAITests", dependencies: ["CVAI", "PointCloud", "_HeadScanSupport"]),
    .testTarget(name: "LandmarksTests", dependencies: ["Landmarks", "HeadScan", "Reconstruction", "ScanSimulator", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(name: "ReportsTests", dependencies: ["Reports", "CVAI", "PointCloud", "_TestSupport"]),
    .testTarget(name: "HeadScanTests", dependencies: ["HeadScan", "ScanIO", "ScanSimulator", "_TestSupport"]),
    .testTarget(name: "AgreementTests", dependencies: ["Agreement", "Reports", "CVAI", "PointCloud", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(name: "FiguresTests", dependencies: ["Figures", "Reports", "CVAI", "PointCloud", "ScanIO", "ArucoBridge", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(name: "OperatorGuidanceTests", dependencies: ["OperatorGuidance", "ScanSimulator", "ScanIO", "PointCloud", "_TestSupport"]),
    .testTarget(name: "BatchTests", dependencies: ["Batch", "Reports", "HeadScanCLI", "ScanSimulator", "_TestSupport"]),
    .testTarget(name: "AnnotationTests", dependencies: ["Annotation", "HeadScan", "Reconstruction", "ScanSimulator", "HeadScanCLI", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(
      name: "ScanSimulatorTests",
      dependencies: ["ScanSimulator", "ScanIO", "ArucoBridge", "CVAI", "PointCloud", "_HeadScanSupport", "_TestSupport"]),
    .testTarget(name: "ScanEvaluationTests", dependencies: ["ScanEvaluation", "HeadScan", "Reconstruction", "ScanSimulator", "_TestSupport"]),
    .testTarget(name: "HeadScanSupportTests", dependencies: ["_HeadScanSupport", "PointCloud", "_TestSupport"]),
    .testTarget(name: "HeadScanCLITests", dependencies: ["HeadScanCLI", "MeasureExample", "ScanIO", "ArucoBridge", "_TestSupport"]),
  ],
  cxxLanguageStandard: .cxx17
)
