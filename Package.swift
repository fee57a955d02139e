// swift-tools-version: 6.0
//
// headscan: infant head shape (CVAI) from TrueDepth scans with an ArUco cap.
//
// Read top-down: public products, implementation targets, native shims, tests.
// Native libraries come from Debian (see docs/building.md): only the OpenCV
// libraries actually called are linked, which keeps process start-up fast.

import PackageDescription

let package = Package(
  name: "headscan",
  products: [
    .library(name: "ScanIO", targets: ["ScanIO"]),
    .library(name: "ArucoBridge", targets: ["ArucoBridge"]),
    .library(name: "PointCloud", targets: ["PointCloud"]),
    .library(name: "Registration", targets: ["Registration"]),
    .library(name: "CVAI", targets: ["CVAI"]),
    .library(name: "ScanSimulator", targets: ["ScanSimulator"]),
    .library(name: "ScanEvaluation", targets: ["ScanEvaluation"]),
    .library(name: "Agreement", targets: ["Agreement"]),
    .library(name: "LZFSE", targets: ["LZFSE"]),  // for the Fuzz/ and Benchmarks/ packages
    .executable(name: "headscan", targets: ["headscan"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    // Library modules.
    .target(name: "ScanIO", dependencies: ["_ImageCodec"]),
    .target(name: "ArucoBridge", dependencies: ["_ArucoShim"]),
    .target(name: "PointCloud"),
    .target(name: "LZFSE"),
    .target(name: "CVAI", dependencies: ["PointCloud"]),
    .target(name: "Agreement", dependencies: ["CVAI", "PointCloud", "ScanIO"]),
    .target(
      name: "Registration",
      dependencies: ["ScanIO", "ArucoBridge", "PointCloud", "_GeometryShim"]),
    .target(
      name: "ScanSimulator",
      dependencies: ["ScanIO", "ArucoBridge", "CVAI"]),

    .target(
      name: "ScanEvaluation",
      dependencies: ["Registration", "ScanSimulator", "ScanIO", "PointCloud", "CVAI"]),

    // Command-line tool.
    .executableTarget(
      name: "headscan",
      dependencies: [
        "ScanIO", "ArucoBridge", "PointCloud", "Registration", "CVAI", "Agreement", "ScanSimulator", "ScanEvaluation",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),

    // The library in under 30 lines: measure a scan (swift run -c release MeasureExample).
    .executableTarget(
      name: "MeasureExample", dependencies: ["ScanIO", "PointCloud", "Registration", "CVAI"], path: "Examples/MeasureExample"),

    // Native shims: plain C headers, no API (see each target's README).
    .target(
      name: "_ArucoShim",
      exclude: ["README.md", "system"],
      cxxSettings: [.headerSearchPath("system/opencv4")],
      linkerSettings: [
        .linkedLibrary("opencv_aruco"), .linkedLibrary("opencv_calib3d"),
        .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
        .linkedLibrary("m"),
      ]),
    .target(
      name: "_GeometryShim",
      exclude: ["README.md", "system"],
      cxxSettings: [.headerSearchPath("system/eigen3"), .headerSearchPath("system/pcl")],
      linkerSettings: [
        .linkedLibrary("pcl_registration"), .linkedLibrary("pcl_filters"), .linkedLibrary("pcl_kdtree"),
        .linkedLibrary("pcl_search"), .linkedLibrary("pcl_common"), .linkedLibrary("m"),
      ]),
    .target(
      name: "_ImageCodec",
      exclude: ["README.md"],
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("m")]),

    // Tests.
    .target(name: "_TestSupport", exclude: ["README.md"]),
    .testTarget(name: "ScanIOTests", dependencies: ["ScanIO", "ScanSimulator", "PointCloud", "_ImageCodec", "_TestSupport"]),
    .testTarget(name: "ArucoBridgeTests", dependencies: ["ArucoBridge", "PointCloud", "ScanIO", "_ArucoShim", "_TestSupport"]),
    .testTarget(name: "LZFSETests", dependencies: ["LZFSE", "_TestSupport"]),
    .testTarget(name: "CVAITests", dependencies: ["CVAI", "PointCloud", "_TestSupport"]),
    .testTarget(name: "AgreementTests", dependencies: ["Agreement", "CVAI", "_TestSupport"]),
    .testTarget(
      name: "ScanSimulatorTests",
      dependencies: ["ScanSimulator", "ScanIO", "ArucoBridge", "CVAI", "PointCloud", "_TestSupport"]),
    .testTarget(
      name: "RegistrationTests",
      dependencies: [
        "Registration", "ScanEvaluation", "ScanSimulator", "ScanIO", "ArucoBridge", "PointCloud", "_GeometryShim", "_TestSupport",
      ]),
    .testTarget(name: "HeadscanCLITests", dependencies: ["headscan", "ScanIO", "ArucoBridge", "_TestSupport"]),
  ],
  cxxLanguageStandard: .cxx17
)
