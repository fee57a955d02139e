// `import HeadScan` brings the whole public library: one import for a research tool.
@_exported import Agreement
@_exported import ArucoBridge
@_exported import CVAI
@_exported import Fusion
@_exported import Landmarks
@_exported import OperatorGuidance
@_exported import PointCloud
@_exported import Reconstruction
@_exported import Registration
@_exported import Reports
@_exported import ScanIO
