// C shim over Eigen and PCL. Every entry point is noexcept and catches everything.

#include "gs_geometry.h"
#include "native_support.h"

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <pcl/kdtree/kdtree_flann.h>
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>
#include <pcl/registration/icp.h>
#include <pcl/search/kdtree.h>

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using ns::copy_message;

// Runs `body`, turning any exception into a status and message (native_support.h).
template <typename Body>
gs_status guarded(char *message, size_t capacity, Body body) noexcept {
  return ns::guarded<pcl::PCLException>(message, capacity, "PCL: ", GS_INTERNAL_ERROR, GS_INTERNAL_ERROR, body);
}

pcl::PointCloud<pcl::PointXYZ>::Ptr to_cloud(const float *xyz, int32_t n) {
  pcl::PointCloud<pcl::PointXYZ>::Ptr cloud(new pcl::PointCloud<pcl::PointXYZ>);
  cloud->resize(n);
  for (int32_t i = 0; i < n; ++i) {
    (*cloud)[i].x = xyz[3 * i];
    (*cloud)[i].y = xyz[3 * i + 1];
    (*cloud)[i].z = xyz[3 * i + 2];
  }
  return cloud;
}

// The PCA plane of the indexed points: their mean and the unit normal (least-variance axis).
std::pair<Eigen::Vector3d, Eigen::Vector3d> local_plane(const pcl::PointCloud<pcl::PointXYZ> &cloud,
                                                        const pcl::Indices &found) {
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (auto j : found) mean += cloud[j].getVector3fMap().cast<double>();
  mean /= (double)found.size();
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
  for (auto j : found) {
    Eigen::Vector3d d = cloud[j].getVector3fMap().cast<double>() - mean;
    covariance += d * d.transpose();
  }
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(covariance);
  return {mean, solver.eigenvectors().col(0)};
}

// The indexed points in the axes of the plane (`mean`, `normal`): (u, v, height) each, with the
// plane's in-plane axes e1, e2 and the patch's extent max(|u| + |v|), by which the quadratic
// fits scale u and v so their systems are well conditioned. Reuses the thread's buffer: this
// runs for every point of a cloud.
struct PlaneCoordinates {
  Eigen::Vector3d e1, e2;
  const std::vector<Eigen::Vector3d> &local;
  double scale;
};

PlaneCoordinates plane_coordinates(const pcl::PointCloud<pcl::PointXYZ> &cloud, const pcl::Indices &found,
                                   const Eigen::Vector3d &mean, const Eigen::Vector3d &normal) {
  thread_local std::vector<Eigen::Vector3d> local;
  Eigen::Vector3d e1 = normal.unitOrthogonal(), e2 = normal.cross(e1);
  local.resize(found.size());
  double scale = 0;
  for (size_t k = 0; k < found.size(); ++k) {
    Eigen::Vector3d d = cloud[found[k]].getVector3fMap().cast<double>() - mean;
    local[k] = {d.dot(e1), d.dot(e2), d.dot(normal)};
    scale = std::max(scale, std::abs(local[k][0]) + std::abs(local[k][1]));
  }
  return {e1, e2, local, scale};
}

// The point of the local surface over `p`: the neighbours' heights above their PCA plane
// (`mean`, `normal`) fitted by a quadratic h(u, v) = a + b u + c v + d u² + e uv + f v² (least
// squares), evaluated at p's (u, v). A plane's projection lies inside a convex surface by about
// E[s²]/(2R); the quadratic is exact to second order. Empty when the fit is ill-conditioned or p
// lies outside the patch (no extrapolation): the caller keeps the plane's projection.
std::optional<Eigen::Vector3d> local_quadric_projection(const pcl::PointCloud<pcl::PointXYZ> &cloud,
                                                        const pcl::Indices &found, const Eigen::Vector3d &mean,
                                                        const Eigen::Vector3d &normal, const Eigen::Vector3d &p) {
  if (found.size() < 10) return std::nullopt;
  const auto [e1, e2, local, scale] = plane_coordinates(cloud, found, mean, normal);
  if (!(scale > 0)) return std::nullopt;
  // Few points (settling's corners): the SVD's conditioning guards a degenerate patch.
  const auto n = (Eigen::Index)local.size();
  Eigen::MatrixXd a(n, 6);
  Eigen::VectorXd h(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    double u = local[(size_t)k][0] / scale, v = local[(size_t)k][1] / scale;
    a.row(k) << 1, u, v, u * u, u * v, v * v;
    h[k] = local[(size_t)k][2];
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeThinU | Eigen::ComputeThinV);
  auto singular = svd.singularValues();
  if (!(singular[5] > 1e-6 * singular[0])) return std::nullopt;
  Eigen::VectorXd c = svd.solve(h);
  Eigen::Vector3d d = p - mean;
  double pu = d.dot(e1) / scale, pv = d.dot(e2) / scale;
  if (std::abs(pu) > 1.5 || std::abs(pv) > 1.5) return std::nullopt;
  double height = c[0] + c[1] * pu + c[2] * pv + c[3] * pu * pu + c[4] * pu * pv + c[5] * pv * pv;
  if (!std::isfinite(height)) return std::nullopt;
  return mean + d.dot(e1) * e1 + d.dot(e2) * e2 + height * normal;
}

// How far the PCA plane of the first `plane_count` of `found` lies from the curved surface
// over p, along `normal`: the surface's second-order part Q (the quadratic terms of a
// least-squares quadratic height field over all of `found`, a wider patch whose curvature is
// far better determined than the few plane points' own) minus the least-squares plane those
// plane points' Q values fit, both at p. The plane absorbs the surface's constant and linear
// parts exactly, so this is the plane's curvature offset, about E[s²]/(2R) on a sphere of
// radius R. Empty when the quadratic fit is ill-conditioned: the caller keeps the plane.
std::optional<double> plane_curvature_offset(const pcl::PointCloud<pcl::PointXYZ> &cloud, const pcl::Indices &found,
                                             size_t plane_count, const Eigen::Vector3d &mean,
                                             const Eigen::Vector3d &normal, const Eigen::Vector3d &p) {
  if (found.size() < 10 || plane_count < 3 || plane_count > found.size()) return std::nullopt;
  const auto [e1, e2, local, scale] = plane_coordinates(cloud, found, mean, normal);
  if (!(scale > 0)) return std::nullopt;
  // The quadratic h = c0 + c1 u + c2 v + c3 u² + c4 uv + c5 v² over the wide patch, by normal
  // equations accumulated without allocation (every point of the cloud comes through here).
  Eigen::Matrix<double, 6, 6> normal_matrix = Eigen::Matrix<double, 6, 6>::Zero();
  Eigen::Matrix<double, 6, 1> rhs = Eigen::Matrix<double, 6, 1>::Zero();
  for (const auto &l : local) {
    double u = l[0] / scale, v = l[1] / scale;
    Eigen::Matrix<double, 6, 1> row;
    row << 1, u, v, u * u, u * v, v * v;
    normal_matrix.selfadjointView<Eigen::Lower>().rankUpdate(row);
    rhs += l[2] * row;
  }
  Eigen::LDLT<Eigen::Matrix<double, 6, 6>> ldlt(normal_matrix.selfadjointView<Eigen::Lower>());
  // A degenerate patch (points on a line or a conic) makes a pivot vanish against the largest.
  auto pivots = ldlt.vectorD().cwiseAbs();
  if (ldlt.info() != Eigen::Success || !(pivots.minCoeff() > 1e-10 * pivots.maxCoeff())) return std::nullopt;
  Eigen::Matrix<double, 6, 1> c = ldlt.solve(rhs);
  if (!c.allFinite()) return std::nullopt;
  const double s2 = scale * scale, quu = c[3] / s2, quv = c[4] / s2, qvv = c[5] / s2;
  auto second_order = [&](double x, double y) { return quu * x * x + quv * x * y + qvv * y * y; };
  // The least-squares plane of Q over the plane's points, at p.
  Eigen::Matrix3d plane_matrix = Eigen::Matrix3d::Zero();
  Eigen::Vector3d plane_rhs = Eigen::Vector3d::Zero();
  for (size_t k = 0; k < plane_count; ++k) {
    Eigen::Vector3d row(1, local[k][0] / scale, local[k][1] / scale);
    plane_matrix.selfadjointView<Eigen::Lower>().rankUpdate(row);
    plane_rhs += second_order(local[k][0], local[k][1]) * row;
  }
  Eigen::Vector3d plane = plane_matrix.selfadjointView<Eigen::Lower>().ldlt().solve(plane_rhs);
  if (!plane.allFinite()) return std::nullopt;
  Eigen::Vector3d d = p - mean;
  double pu = d.dot(e1), pv = d.dot(e2);
  if (std::abs(pu) > 1.5 * scale || std::abs(pv) > 1.5 * scale) return std::nullopt;
  double offset = second_order(pu, pv) - (plane[0] + plane[1] * pu / scale + plane[2] * pv / scale);
  return std::isfinite(offset) ? std::optional<double>(offset) : std::nullopt;
}

}  // namespace

extern "C" {

gs_status gs_rigid_fit(const double *src, const double *dst, int32_t n, double rotation[9],
                       double translation[3], double *rms, char *message, size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (src == nullptr || dst == nullptr || rotation == nullptr || translation == nullptr || n < 3) {
      copy_message(message, message_capacity, "rigid fit needs 3 or more points");
      return GS_INVALID_ARGUMENT;
    }
    Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> a(src, 3, n), b(dst, 3, n);
    Eigen::Matrix4d t = Eigen::umeyama(a, b, false);
    if (!t.allFinite()) {
      copy_message(message, message_capacity, "degenerate point configuration");
      return GS_NUMERICAL_ERROR;
    }
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) rotation[3 * r + c] = t(r, c);
      translation[r] = t(r, 3);
    }
    if (rms) {
      Eigen::Matrix<double, 3, Eigen::Dynamic> moved = (t.topLeftCorner<3, 3>() * a).colwise() + t.topRightCorner<3, 1>();
      *rms = std::sqrt((moved - b).colwise().squaredNorm().mean());
    }
    return GS_OK;
  });
}

gs_status gs_solve_symmetric(int32_t n, const double *a, const double *b, double *x, char *message,
                             size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (n <= 0 || a == nullptr || b == nullptr || x == nullptr) {
      copy_message(message, message_capacity, "empty system");
      return GS_INVALID_ARGUMENT;
    }
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(a, n, n);
    Eigen::Map<const Eigen::VectorXd> rhs(b, n);
    Eigen::LDLT<Eigen::MatrixXd> ldlt(m);
    if (ldlt.info() != Eigen::Success) {
      copy_message(message, message_capacity, "matrix is not positive semi-definite");
      return GS_NUMERICAL_ERROR;
    }
    Eigen::VectorXd solution = ldlt.solve(rhs);
    // LDLT "solves" a singular system without complaint; a backward-stable solve of a real
    // solution leaves a residual near rounding, an inconsistent system does not.
    if (!solution.allFinite() ||
        (m * solution - rhs).norm() > 1e-9 * (m.norm() * solution.norm() + rhs.norm())) {
      copy_message(message, message_capacity, "singular system");
      return GS_NUMERICAL_ERROR;
    }
    Eigen::Map<Eigen::VectorXd>(x, n) = solution;
    return GS_OK;
  });
}

void gs_return_large_blocks(size_t threshold, size_t kept_free) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, (int)threshold);
  mallopt(M_TRIM_THRESHOLD, (int)kept_free);
#else
  (void)threshold;
  (void)kept_free;
#endif
}

void gs_release_freed_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

struct gs_tree {
  pcl::KdTreeFLANN<pcl::PointXYZ> tree;
};

gs_status gs_tree_project_to_local_planes(const gs_tree *tree, const float *queries, int32_t begin, int32_t end,
                                          int32_t neighbours, int32_t quadratic, int32_t curvature_neighbours,
                                          float *out_xyz, float *normals, char *message, size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (tree == nullptr || queries == nullptr || out_xyz == nullptr || normals == nullptr || begin < 0 || end < begin ||
        neighbours < 3 || curvature_neighbours < 0) {
      copy_message(message, message_capacity, "invalid plane-projection arguments");
      return GS_INVALID_ARGUMENT;
    }
    const auto &cloud = *tree->tree.getInputCloud();
    const int32_t n = (int32_t)cloud.size();
    if (n < neighbours) {
      copy_message(message, message_capacity, "fewer points than neighbours");
      return GS_INVALID_ARGUMENT;
    }
    // The curvature patch: the plane's neighbours and more (KdTreeFLANN returns them nearest
    // first), when it is wider than the plane's and the cloud has that many points.
    const int32_t patch = quadratic == 0 && curvature_neighbours > neighbours ? std::min(curvature_neighbours, n) : neighbours;
    // Each query is independent of the others and the tree is only read, so disjoint ranges may
    // run at once on one tree (PCL's own OpenMP normal estimation shares one tree the same way).
    pcl::Indices found, nearest;
    std::vector<float> distances;
    for (int32_t i = begin; i < end; ++i) {
      pcl::PointXYZ query(queries[3 * i], queries[3 * i + 1], queries[3 * i + 2]);
      tree->tree.nearestKSearch(query, patch, found, distances);
      nearest.assign(found.begin(), found.begin() + std::min<size_t>((size_t)neighbours, found.size()));
      auto [mean, normal] = local_plane(cloud, nearest);
      Eigen::Vector3d p = query.getVector3fMap().cast<double>();
      Eigen::Vector3d q = p - (p - mean).dot(normal) * normal;
      if (quadratic != 0) q = local_quadric_projection(cloud, nearest, mean, normal, p).value_or(q);
      else if (patch > neighbours) q += plane_curvature_offset(cloud, found, nearest.size(), mean, normal, p).value_or(0) * normal;
      for (int k = 0; k < 3; ++k) {
        out_xyz[3 * i + k] = (float)q[k];
        normals[3 * i + k] = (float)normal[k];
      }
    }
    return GS_OK;
  });
}

gs_status gs_icp(const float *source, int32_t n, const float *target, int32_t m,
                 double max_correspondence, int32_t iterations, double transform[16],
                 double *fitness_before, double *fitness_after, int32_t *converged,
                 char *message, size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (source == nullptr || target == nullptr || transform == nullptr || n < 3 || m < 10 ||
        !(max_correspondence > 0) || iterations < 1) {
      copy_message(message, message_capacity, "invalid ICP arguments");
      return GS_INVALID_ARGUMENT;
    }
    // Point-to-plane: the target's normals from the PCA of its 10 nearest points.
    auto target_xyz = to_cloud(target, m);
    pcl::KdTreeFLANN<pcl::PointXYZ> xyz_tree;
    xyz_tree.setInputCloud(target_xyz);
    pcl::PointCloud<pcl::PointNormal>::Ptr target_cloud(new pcl::PointCloud<pcl::PointNormal>);
    target_cloud->resize((size_t)m);
    pcl::Indices found;
    std::vector<float> distances;
    for (int32_t i = 0; i < m; ++i) {
      xyz_tree.nearestKSearch((*target_xyz)[i], 10, found, distances);
      Eigen::Vector3d normal = local_plane(*target_xyz, found).second;
      auto &q = (*target_cloud)[i];
      q.x = target[3 * i];
      q.y = target[3 * i + 1];
      q.z = target[3 * i + 2];
      q.normal_x = (float)normal[0];
      q.normal_y = (float)normal[1];
      q.normal_z = (float)normal[2];
    }
    pcl::PointCloud<pcl::PointNormal>::Ptr source_cloud(new pcl::PointCloud<pcl::PointNormal>);
    source_cloud->resize((size_t)n);
    for (int32_t i = 0; i < n; ++i) {
      auto &p = (*source_cloud)[i];
      p.x = source[3 * i];
      p.y = source[3 * i + 1];
      p.z = source[3 * i + 2];
      p.normal_x = p.normal_y = p.normal_z = 0;
    }
    pcl::search::KdTree<pcl::PointNormal>::Ptr tree(new pcl::search::KdTree<pcl::PointNormal>);
    tree->setInputCloud(target_cloud);
    const double limit = max_correspondence * max_correspondence;
    auto fitness = [&](const pcl::PointCloud<pcl::PointNormal> &cloud) {
      pcl::Indices nearest(1);
      std::vector<float> squared(1);
      double sum = 0;
      for (const auto &p : cloud) {
        bool found = tree->nearestKSearch(p, 1, nearest, squared) == 1;
        sum += found && squared[0] < limit ? squared[0] : limit;
      }
      return cloud.empty() ? limit : sum / (double)cloud.size();
    };
    if (fitness_before) *fitness_before = fitness(*source_cloud);
    pcl::IterativeClosestPointWithNormals<pcl::PointNormal, pcl::PointNormal> icp;
    icp.setInputSource(source_cloud);
    icp.setInputTarget(target_cloud);
    icp.setSearchMethodTarget(tree, true);
    icp.setMaxCorrespondenceDistance(max_correspondence);
    icp.setMaximumIterations(iterations);
    icp.setTransformationEpsilon(1e-10);
    pcl::PointCloud<pcl::PointNormal> aligned;
    icp.align(aligned);
    Eigen::Matrix4f t = icp.getFinalTransformation();
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) transform[4 * r + c] = t(r, c);
    if (fitness_after) *fitness_after = fitness(aligned);
    if (converged) *converged = icp.hasConverged() ? 1 : 0;
    return GS_OK;
  });
}

gs_tree *gs_tree_create(const float *xyz, int32_t n, char *message, size_t message_capacity) {
  gs_tree *made = nullptr;
  gs_status status = guarded(message, message_capacity, [&]() {
    if (xyz == nullptr || n < 1) {
      copy_message(message, message_capacity, "a k-d tree needs at least one point");
      return GS_INVALID_ARGUMENT;
    }
    // Owned until handed out, so a throw while building it frees it.
    auto tree = std::make_unique<gs_tree>();
    tree->tree.setInputCloud(to_cloud(xyz, n));
    made = tree.release();
    return GS_OK;
  });
  return status == GS_OK ? made : nullptr;
}

void gs_tree_destroy(gs_tree *tree) { delete tree; }

gs_status gs_tree_mean_clipped_squared_distance(const gs_tree *tree, const float *queries, int32_t m,
                                                double limit, double *mean, char *message,
                                                size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (tree == nullptr || queries == nullptr || mean == nullptr || m < 1 || !(limit > 0)) {
      copy_message(message, message_capacity, "invalid nearest-distance arguments");
      return GS_INVALID_ARGUMENT;
    }
    pcl::Indices found(1);
    std::vector<float> squared(1);
    double sum = 0;
    for (int32_t i = 0; i < m; ++i) {
      pcl::PointXYZ q(queries[3 * i], queries[3 * i + 1], queries[3 * i + 2]);
      bool hit = tree->tree.nearestKSearch(q, 1, found, squared) == 1;
      sum += hit && squared[0] < limit ? squared[0] : limit;
    }
    *mean = sum / (double)m;
    return GS_OK;
  });
}

}  // extern "C"

gs_status gs_tree_mean_neighbour_distances(const gs_tree *tree, int32_t begin, int32_t end, int32_t neighbours,
                                           float *distances, uint8_t *valid, char *message, size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (tree == nullptr || distances == nullptr || valid == nullptr || begin < 0 || end < begin || neighbours < 1) {
      copy_message(message, message_capacity, "invalid neighbour-distance arguments");
      return GS_INVALID_ARGUMENT;
    }
    const auto &cloud = *tree->tree.getInputCloud();
    if (end > (int32_t)cloud.size() || (int32_t)cloud.size() <= neighbours) {
      copy_message(message, message_capacity, "neighbour distances need more points than neighbours");
      return GS_INVALID_ARGUMENT;
    }
    // One more neighbour than asked, since the
    // results include the query point (first, at distance 0); the mean of the others' distances.
    const int32_t searched = neighbours + 1;
    pcl::Indices indices(searched);
    std::vector<float> squared(searched);
    for (int32_t i = begin; i < end; ++i) {
      const auto &p = cloud[i];
      distances[i] = 0.0f;
      valid[i] = 0;
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
      if (tree->tree.nearestKSearch(i, searched, indices, squared) == 0) continue;
      double sum = 0.0;
      for (int32_t k = 1; k < searched; ++k) sum += std::sqrt(squared[k]);
      distances[i] = static_cast<float>(sum / neighbours);
      valid[i] = 1;
    }
    return GS_OK;
  });
}

