/*
 * arb_aruco.h — plain C interface over OpenCV 4.6 contrib ArUco.
 *
 * This target is no API: Swift code reaches it only through the
 * ArucoBridge module. Conventions:
 *  - every function is noexcept on the C++ side; failures come back as an
 *    arb_status plus a NUL-terminated message copied into a caller buffer;
 *  - the caller owns every buffer (pixels in, ids/corners out);
 *  - pixel coordinates follow OpenCV: the top-left pixel's centre is (0, 0).
 */
#ifndef ARB_ARUCO_H
#define ARB_ARUCO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum arb_status {
  ARB_OK = 0,
  ARB_INVALID_ARGUMENT = 1,
  ARB_UNKNOWN_DICTIONARY = 2,
  ARB_BUFFER_TOO_SMALL = 3,
  ARB_OPENCV_ERROR = 4,
  ARB_INTERNAL_ERROR = 5
} arb_status;

/* Mirrors cv::aruco::CornerRefineMethod. */
typedef enum arb_corner_refinement {
  ARB_REFINE_NONE = 0,
  ARB_REFINE_SUBPIX = 1,
  ARB_REFINE_CONTOUR = 2,
  ARB_REFINE_APRILTAG = 3
} arb_corner_refinement;

/* The tunable subset of cv::aruco::DetectorParameters (same names, snake case). */
typedef struct arb_detector_params {
  int32_t adaptive_thresh_win_size_min;
  int32_t adaptive_thresh_win_size_max;
  int32_t adaptive_thresh_win_size_step;
  double adaptive_thresh_constant;
  double min_marker_perimeter_rate;
  double max_marker_perimeter_rate;
  double polygonal_approx_accuracy_rate;
  double min_corner_distance_rate;
  int32_t min_distance_to_border;
  double min_marker_distance_rate;
  int32_t corner_refinement_method; /* arb_corner_refinement */
  int32_t corner_refinement_win_size;
  int32_t corner_refinement_max_iterations;
  double corner_refinement_min_accuracy;
  int32_t marker_border_bits;
  int32_t perspective_remove_pixel_per_cell;
  double perspective_remove_ignored_margin_per_cell;
  double max_erroneous_bits_in_border_rate;
  double min_otsu_std_dev;
  double error_correction_rate;
} arb_detector_params;

/* Fills *out with OpenCV's own defaults (DetectorParameters::create()). */
arb_status arb_detector_params_default(arb_detector_params *out, char *message, size_t message_capacity);

/* An immutable detector: dictionary + parameters. Safe to share between threads. */
typedef struct arb_detector arb_detector;

/* Creates a detector for a predefined dictionary name such as "DICT_4X4_50". */
arb_status arb_detector_create(const char *dictionary_name, const arb_detector_params *params,
                               arb_detector **out, char *message, size_t message_capacity);

void arb_detector_destroy(arb_detector *detector);

/* Number of markers in the detector's dictionary. */
int32_t arb_detector_dictionary_size(const arb_detector *detector);

/* Bits across one side of the dictionary's markers, border excluded (4 for DICT_4X4_50). */
int32_t arb_detector_marker_bits(const arb_detector *detector);

/*
 * Detects markers in an 8-bit image with 1 (grey), 3 (BGR) or 4 (BGRA) channels.
 * Writes up to `capacity` ids and 8 floats of corners per marker (x0 y0 … x3 y3,
 * OpenCV order: clockwise from the marker's top-left). *count receives the number
 * found; when it exceeds capacity the call returns ARB_BUFFER_TOO_SMALL and the
 * caller retries with a larger buffer.
 */
arb_status arb_detector_detect(const arb_detector *detector, const uint8_t *pixels, int32_t width,
                               int32_t height, int32_t row_bytes, int32_t channels, int32_t *ids,
                               float *corners, int32_t capacity, int32_t *count, char *message,
                               size_t message_capacity);

/*
 * Detects markers inside one rectangle of an 8-bit grey image (region_x, region_y: its top-left
 * pixel; region_width × region_height pixels, all inside the image). The perimeter limits keep
 * the pixel sizes the whole image gives them (rates × the image's larger side), so a marker lying
 * inside the rectangle, clear of its edges by half the largest threshold window plus the corner
 * refinement window, is found with the corners a search of the whole image gives it: sub-pixel
 * corners are refined in the whole image, in its coordinates, so they are the same bit for bit.
 * Corners are written in the whole image's pixels; capacity, count and statuses as
 * arb_detector_detect.
 */
arb_status arb_detector_detect_region(const arb_detector *detector, const uint8_t *pixels, int32_t width,
                                      int32_t height, int32_t row_bytes, int32_t region_x, int32_t region_y,
                                      int32_t region_width, int32_t region_height, int32_t *ids,
                                      float *corners, int32_t capacity, int32_t *count, char *message,
                                      size_t message_capacity);

/* Draws marker `id` as a side_pixels × side_pixels grey bitmap (0 black, 255 white). */
arb_status arb_draw_marker(const char *dictionary_name, int32_t id, int32_t side_pixels,
                           int32_t border_bits, uint8_t *out, size_t out_capacity, char *message,
                           size_t message_capacity);

/*
 * Pose of a square marker of side `side_length` (any unit) from its 4 image
 * corners, OpenCV order, with cv::SOLVEPNP_IPPE_SQUARE. Pinhole camera without
 * distortion. Writes rvec (Rodrigues, 3) and tvec (3) of cameraFromMarker and
 * the RMS reprojection error in pixels.
 */
arb_status arb_solve_square_pnp(const double corners[8], double side_length, double fx, double fy,
                                double cx, double cy, double rvec[3], double tvec[3],
                                double *rms_pixels, char *message, size_t message_capacity);

/*
 * Pose of a camera from `count` (>= 4) known points and their image pixels
 * (camera resection), pinhole camera without distortion. `object_points` holds
 * x, y, z per point (any unit; the pose comes out in it), `image_points` u, v
 * per point. With `use_guess` non-zero, rvec/tvec hold the starting pose and
 * OpenCV's iterative Levenberg–Marquardt (SOLVEPNP_ITERATIVE) refines it;
 * otherwise SQPnP finds it from scratch. Writes rvec (Rodrigues) and tvec of
 * cameraFromObject and the RMS reprojection error in pixels.
 */
arb_status arb_solve_pnp(const double *object_points, const double *image_points, int32_t count,
                         double fx, double fy, double cx, double cy, int32_t use_guess,
                         double rvec[3], double tvec[3], double *rms_pixels, char *message,
                         size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif
