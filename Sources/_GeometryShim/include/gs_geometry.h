/*
 * gs_geometry.h — plain C interface over Eigen and PCL for registration and fusion.
 * No API: Swift reaches it through the Registration module. The caller owns every
 * buffer; points are packed xyz; failures return a status and a message.
 */
#ifndef GS_GEOMETRY_H
#define GS_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_status {
  GS_OK = 0,
  GS_INVALID_ARGUMENT = 1,
  GS_NUMERICAL_ERROR = 2,
  GS_INTERNAL_ERROR = 3
} gs_status;

/* Least-squares rigid motion dst ≈ R·src + t (Umeyama, no scale), n ≥ 3 points (xyz doubles).
   Writes R row-major (9), t (3) and the RMS residual. */
gs_status gs_rigid_fit(const double *src, const double *dst, int32_t n, double rotation[9],
                       double translation[3], double *rms, char *message, size_t message_capacity);

/* Solves the symmetric positive definite n×n system A·x = b (row-major A) by LDLT. */
gs_status gs_solve_symmetric(int32_t n, const double *a, const double *b, double *x, char *message,
                             size_t message_capacity);

/* Statistical outlier removal (pcl::StatisticalOutlierRemoval): keep[i] = 1 for inliers. */
gs_status gs_statistical_outliers(const float *xyz, int32_t n, int32_t neighbours, double stddev,
                                  uint8_t *keep, char *message, size_t message_capacity);

/* For each point, fits a plane to its k nearest neighbours (PCA), projects the point onto it
   and writes the plane's unit normal. out_xyz may equal xyz. */
gs_status gs_project_to_local_planes(const float *xyz, int32_t n, int32_t neighbours,
                                     float *out_xyz, float *normals, char *message,
                                     size_t message_capacity);

/* Point-to-point ICP of source onto target (pcl::IterativeClosestPoint). Writes the 4×4
   row-major transform (target ← source), the fitness (mean squared distance) and convergence. */
gs_status gs_icp(const float *source, int32_t n, const float *target, int32_t m,
                 double max_correspondence, int32_t iterations, double transform[16],
                 double *fitness, int32_t *converged, char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif
