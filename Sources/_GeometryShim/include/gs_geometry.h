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

/* Asks the processor to bring the cache line at `address` close (for writing): the signed-distance
   march prefetches its per-frame table's entries a ray ahead of updating them. */
static inline void gs_prefetch_for_write(const void *address) { __builtin_prefetch(address, 1, 3); }

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

/* Returns memory that freed allocations hold in the C library's arenas (every thread's) to the
 * system (glibc's malloc_trim); nothing where the C library has no such call. Never fails. */
void gs_release_freed_memory(void);

/* Serves every allocation of at least `threshold` bytes with its own mapping, returned to the
 * system when freed (glibc's mallopt(M_MMAP_THRESHOLD), which also stops glibc raising the
 * threshold as large blocks are freed), and lets each heap keep up to `kept_free` bytes of freed
 * memory at its top for reuse (M_TRIM_THRESHOLD); nothing where the C library has no such call. */
void gs_return_large_blocks(size_t threshold, size_t kept_free);

/* Solves the symmetric positive definite n×n system A·x = b (row-major A) by LDLT. */
gs_status gs_solve_symmetric(int32_t n, const double *a, const double *b, double *x, char *message,
                             size_t message_capacity);

/* Point-to-point ICP of source onto target (pcl::IterativeClosestPoint). Writes the 4×4
   row-major transform (target ← source), convergence, and the fitness before and after: the
   mean over the source points of the squared distance to their nearest target point, clipped
   at max_correspondence² (either pointer may be NULL). */
gs_status gs_icp(const float *source, int32_t n, const float *target, int32_t m,
                 double max_correspondence, int32_t iterations, double transform[16],
                 double *fitness_before, double *fitness_after, int32_t *converged,
                 char *message, size_t message_capacity);

/* A k-d tree over n points (pcl::KdTreeFLANN), kept for repeated queries. NULL on failure
   (message says why). Free with gs_tree_destroy. */
typedef struct gs_tree gs_tree;
gs_tree *gs_tree_create(const float *xyz, int32_t n, char *message, size_t message_capacity);
void gs_tree_destroy(gs_tree *tree);

/* For each query i in begin..<end, fits a plane to its k nearest points of the tree's cloud (PCA),
   projects the query onto it and writes the plane's unit normal, both at index i of out_xyz and
   normals (3 floats each). quadratic != 0: onto the least-squares quadratic height field over
   that plane instead (exact to second order where it is well conditioned, noisier with few
   points). Otherwise, with curvature_neighbours > neighbours: the plane's projection corrected
   by the plane's curvature offset, the surface's second-order part from a quadratic over that
   many nearest points (a plane lies about E[s^2]/(2R) inside a convex surface of radius R).
   The tree is only read: disjoint ranges may be projected at once from several threads. */
gs_status gs_tree_project_to_local_planes(const gs_tree *tree, const float *queries, int32_t begin, int32_t end,
                                          int32_t neighbours, int32_t quadratic, int32_t curvature_neighbours,
                                          float *out_xyz, float *normals, char *message, size_t message_capacity);

/* Mean over the m queries of the squared distance to the nearest tree point, each clipped at
   limit (so a query with no near neighbour counts as limit). */
gs_status gs_tree_mean_clipped_squared_distance(const gs_tree *tree, const float *queries, int32_t m,
                                                double limit, double *mean, char *message,
                                                size_t message_capacity);

/* For points begin..<end of the tree's own cloud: the mean distance to each point's `neighbours` nearest other points (distances[i]) and
   whether it was found (valid[i]; 0 for a non-finite point, whose distance is 0). The tree is
   only read: disjoint ranges may run at once from several threads. */
gs_status gs_tree_mean_neighbour_distances(const gs_tree *tree, int32_t begin, int32_t end, int32_t neighbours,
                                           float *distances, uint8_t *valid, char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif
