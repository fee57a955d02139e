/// How ``extractMesh(from:options:)`` turns an oriented point cloud into a closed mesh.
public struct MeshOptions: Sendable, Hashable {
  /// Spacing of the grid the surface is extracted on, metres (default 2 mm). The mesh has
  /// about 9 triangles per square of this side of head surface (a head: ~150 000 at 2 mm);
  /// the surface between grid vertices is linear, so a smooth head is represented far more
  /// finely than the spacing. Finer grids follow noise more closely and, at 1 mm, can leave
  /// handles (docs/head-mesh.md, "Grid and support"); at 2 mm every simulated scan tried had a sphere's topology.
  public var gridSpacing = 0.002
  /// Radius of the neighbourhood of points that defines the surface at a grid vertex, in grid
  /// spacings (default 2.5): wider averages more noise and rounds sharper detail.
  public var supportRadius = 2.5
  /// Rounds of umbrella smoothing of the filled (unmeasured) vertices, the measured ones held
  /// fixed (default 10).
  public var fillSmoothing = 10
  /// Keep the mesh at or under this many triangles by extracting it again on a coarser grid
  /// (`nil`, the default: no limit). The result stays closed and manifold. The grid is coarsened
  /// to at most ``fewestCellsAcross`` spacings across the cloud (10 mm on a 160 mm head, where
  /// a head's mesh has about 6000 triangles): a smaller target is refused.
  public var targetTriangleCount: Int?
  /// The fewest grid spacings across the cloud's largest extent that ``targetTriangleCount`` may
  /// coarsen to: 16.
  public static let fewestCellsAcross = 16
  /// The largest grid, vertices (default 64 M, about 1 GB while meshing): a cloud whose
  /// bounding box needs more at ``gridSpacing`` is refused.
  public var maximumGridVertices = 64_000_000

  public init() {}

  /// 2 mm grid, 2.5-spacing support, 10 smoothing rounds of filled vertices, no size limit.
  public static let `default` = MeshOptions()
}
