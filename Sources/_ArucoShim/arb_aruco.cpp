// C shim over OpenCV 4.6 contrib ArUco. Every entry point is noexcept and
// catches everything: a C++ exception that reached Swift would end the process.

#include "arb_aruco.h"
#include "native_support.h"

#include <opencv2/aruco.hpp>
#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

struct arb_detector {
  cv::Ptr<cv::aruco::Dictionary> dictionary;
  cv::Ptr<cv::aruco::DetectorParameters> params;
};

namespace {

using ns::copy_message;

struct NamedDictionary {
  const char *name;
  cv::aruco::PREDEFINED_DICTIONARY_NAME id;
};

const NamedDictionary kDictionaries[] = {
    {"DICT_4X4_50", cv::aruco::DICT_4X4_50},
    {"DICT_4X4_100", cv::aruco::DICT_4X4_100},
    {"DICT_4X4_250", cv::aruco::DICT_4X4_250},
    {"DICT_4X4_1000", cv::aruco::DICT_4X4_1000},
    {"DICT_5X5_50", cv::aruco::DICT_5X5_50},
    {"DICT_5X5_100", cv::aruco::DICT_5X5_100},
    {"DICT_5X5_250", cv::aruco::DICT_5X5_250},
    {"DICT_5X5_1000", cv::aruco::DICT_5X5_1000},
    {"DICT_6X6_50", cv::aruco::DICT_6X6_50},
    {"DICT_6X6_100", cv::aruco::DICT_6X6_100},
    {"DICT_6X6_250", cv::aruco::DICT_6X6_250},
    {"DICT_6X6_1000", cv::aruco::DICT_6X6_1000},
    {"DICT_7X7_50", cv::aruco::DICT_7X7_50},
    {"DICT_7X7_100", cv::aruco::DICT_7X7_100},
    {"DICT_7X7_250", cv::aruco::DICT_7X7_250},
    {"DICT_7X7_1000", cv::aruco::DICT_7X7_1000},
    {"DICT_ARUCO_ORIGINAL", cv::aruco::DICT_ARUCO_ORIGINAL},
    {"DICT_APRILTAG_16h5", cv::aruco::DICT_APRILTAG_16h5},
    {"DICT_APRILTAG_25h9", cv::aruco::DICT_APRILTAG_25h9},
    {"DICT_APRILTAG_36h10", cv::aruco::DICT_APRILTAG_36h10},
    {"DICT_APRILTAG_36h11", cv::aruco::DICT_APRILTAG_36h11},
};

bool lookup_dictionary(const char *name, cv::aruco::PREDEFINED_DICTIONARY_NAME *out) {
  if (name == nullptr) return false;
  for (const auto &entry : kDictionaries) {
    if (std::strcmp(entry.name, name) == 0) {
      *out = entry.id;
      return true;
    }
  }
  return false;
}

void to_params(const arb_detector_params &in, cv::aruco::DetectorParameters &out) {
  out.adaptiveThreshWinSizeMin = in.adaptive_thresh_win_size_min;
  out.adaptiveThreshWinSizeMax = in.adaptive_thresh_win_size_max;
  out.adaptiveThreshWinSizeStep = in.adaptive_thresh_win_size_step;
  out.adaptiveThreshConstant = in.adaptive_thresh_constant;
  out.minMarkerPerimeterRate = in.min_marker_perimeter_rate;
  out.maxMarkerPerimeterRate = in.max_marker_perimeter_rate;
  out.polygonalApproxAccuracyRate = in.polygonal_approx_accuracy_rate;
  out.minCornerDistanceRate = in.min_corner_distance_rate;
  out.minDistanceToBorder = in.min_distance_to_border;
  out.minMarkerDistanceRate = in.min_marker_distance_rate;
  out.cornerRefinementMethod = in.corner_refinement_method;
  out.cornerRefinementWinSize = in.corner_refinement_win_size;
  out.cornerRefinementMaxIterations = in.corner_refinement_max_iterations;
  out.cornerRefinementMinAccuracy = in.corner_refinement_min_accuracy;
  out.markerBorderBits = in.marker_border_bits;
  out.perspectiveRemovePixelPerCell = in.perspective_remove_pixel_per_cell;
  out.perspectiveRemoveIgnoredMarginPerCell = in.perspective_remove_ignored_margin_per_cell;
  out.maxErroneousBitsInBorderRate = in.max_erroneous_bits_in_border_rate;
  out.minOtsuStdDev = in.min_otsu_std_dev;
  out.errorCorrectionRate = in.error_correction_rate;
}

// Runs `body`, turning any exception into a status and message (native_support.h).
template <typename Body>
arb_status guarded(char *message, size_t capacity, Body body) noexcept {
  return ns::guarded<cv::Exception>(message, capacity, "OpenCV: ", ARB_OPENCV_ERROR, ARB_INTERNAL_ERROR, body);
}

// Copies a PnP solution out and, when asked, its RMS reprojection error in pixels.
void write_pose(const std::vector<cv::Point3d> &object, const std::vector<cv::Point2d> &image,
                const cv::Matx33d &camera, const cv::Vec3d &r, const cv::Vec3d &t, double rvec[3],
                double tvec[3], double *rms_pixels) {
  for (int k = 0; k < 3; ++k) {
    rvec[k] = r[k];
    tvec[k] = t[k];
  }
  if (rms_pixels == nullptr) return;
  std::vector<cv::Point2d> projected;
  cv::projectPoints(object, r, t, camera, cv::noArray(), projected);
  double sum = 0;
  for (size_t k = 0; k < image.size(); ++k) {
    cv::Point2d d = projected[k] - image[k];
    sum += d.dot(d);
  }
  *rms_pixels = std::sqrt(sum / (double)image.size());
}


// Checks an image's shape; on failure copies why into `message` and returns false.
bool valid_image(const uint8_t *pixels, int32_t width, int32_t height, int32_t row_bytes, int32_t channels,
                 char *message, size_t message_capacity) {
  if (pixels == nullptr) {
    copy_message(message, message_capacity, "pixels are null");
    return false;
  }
  if (width <= 0 || height <= 0) {
    copy_message(message, message_capacity,
                 "image has zero size (" + std::to_string(width) + "x" + std::to_string(height) + ")");
    return false;
  }
  if (channels != 1 && channels != 3 && channels != 4) {
    copy_message(message, message_capacity, "unsupported channel count " + std::to_string(channels));
    return false;
  }
  if (row_bytes < width * channels) {
    copy_message(message, message_capacity, "row_bytes smaller than width × channels");
    return false;
  }
  return true;
}

// Checks a detection call's detector, image and output buffers and zeroes *count; on failure
// copies why into `message` and returns false.
bool valid_detection(const arb_detector *detector, const uint8_t *pixels, int32_t width, int32_t height,
                     int32_t row_bytes, int32_t channels, const int32_t *ids, const float *corners,
                     int32_t capacity, int32_t *count, char *message, size_t message_capacity) {
  if (count != nullptr) *count = 0;
  if (detector == nullptr || count == nullptr) {
    copy_message(message, message_capacity, "detector or count is null");
    return false;
  }
  if (!valid_image(pixels, width, height, row_bytes, channels, message, message_capacity)) return false;
  if (capacity > 0 && (ids == nullptr || corners == nullptr)) {
    copy_message(message, message_capacity, "ids or corners buffer is null");
    return false;
  }
  return true;
}

// Runs OpenCV's detection on `grey` and copies ids and corners (shifted by dx, dy) out. With
// `refine_in`, the corners are refined there after the shift, as `params_refinement` says
// (`grey` is then a view of part of `refine_in`, offset by dx, dy, detected without refinement).
arb_status detect_into(const arb_detector &detector, const cv::Mat &grey,
                       const cv::Ptr<cv::aruco::DetectorParameters> &params, float dx, float dy,
                       const cv::Mat *refine_in, const cv::aruco::DetectorParameters &params_refinement,
                       int32_t *ids, float *corners, int32_t capacity, int32_t *count) {
  std::vector<int> found_ids;
  std::vector<std::vector<cv::Point2f>> found_corners, rejected;
  cv::aruco::detectMarkers(grey, detector.dictionary, found_corners, found_ids, params, rejected);
  if (refine_in != nullptr) {
    // cornerSubPix iterates in float32 pixel coordinates, so the same corner refined in a view
    // (coordinates smaller by the view's offset) rounds differently at every step: usually by
    // thousandths of a pixel, but a corner that barely converges can end pixels away or be reset
    // to its start. The candidates' corners are whole pixels, exact after the shift, so refining
    // them in the whole image gives what detectMarkers gives on the whole image, bit for bit.
    const int side = params_refinement.cornerRefinementWinSize;
    const cv::TermCriteria criteria(cv::TermCriteria::MAX_ITER | cv::TermCriteria::EPS,
                                    params_refinement.cornerRefinementMaxIterations,
                                    params_refinement.cornerRefinementMinAccuracy);
    for (auto &marker : found_corners) {
      for (auto &corner : marker) corner += cv::Point2f(dx, dy);
      cv::cornerSubPix(*refine_in, marker, cv::Size(side, side), cv::Size(-1, -1), criteria);
    }
    dx = 0;
    dy = 0;
  }
  *count = (int32_t)found_ids.size();
  if (*count > capacity) return ARB_BUFFER_TOO_SMALL;
  for (size_t i = 0; i < found_ids.size(); ++i) {
    ids[i] = found_ids[i];
    for (int k = 0; k < 4; ++k) {
      corners[i * 8 + k * 2] = found_corners[i][k].x + dx;
      corners[i * 8 + k * 2 + 1] = found_corners[i][k].y + dy;
    }
  }
  return ARB_OK;
}

// A perimeter rate that gives, on an image whose larger side is `part`, the pixel limit OpenCV
// derives from `rate` on one whose larger side is `whole` (it truncates rate × side).
double same_pixels_rate(double rate, double whole, double part) {
  return (std::floor(rate * whole) + 0.5) / part;
}

}  // namespace

extern "C" {

arb_status arb_detector_params_default(arb_detector_params *out, char *message,
                                       size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (out == nullptr) {
      copy_message(message, message_capacity, "params output is null");
      return ARB_INVALID_ARGUMENT;
    }
    auto p = cv::aruco::DetectorParameters::create();
    out->adaptive_thresh_win_size_min = p->adaptiveThreshWinSizeMin;
    out->adaptive_thresh_win_size_max = p->adaptiveThreshWinSizeMax;
    out->adaptive_thresh_win_size_step = p->adaptiveThreshWinSizeStep;
    out->adaptive_thresh_constant = p->adaptiveThreshConstant;
    out->min_marker_perimeter_rate = p->minMarkerPerimeterRate;
    out->max_marker_perimeter_rate = p->maxMarkerPerimeterRate;
    out->polygonal_approx_accuracy_rate = p->polygonalApproxAccuracyRate;
    out->min_corner_distance_rate = p->minCornerDistanceRate;
    out->min_distance_to_border = p->minDistanceToBorder;
    out->min_marker_distance_rate = p->minMarkerDistanceRate;
    out->corner_refinement_method = p->cornerRefinementMethod;
    out->corner_refinement_win_size = p->cornerRefinementWinSize;
    out->corner_refinement_max_iterations = p->cornerRefinementMaxIterations;
    out->corner_refinement_min_accuracy = p->cornerRefinementMinAccuracy;
    out->marker_border_bits = p->markerBorderBits;
    out->perspective_remove_pixel_per_cell = p->perspectiveRemovePixelPerCell;
    out->perspective_remove_ignored_margin_per_cell = p->perspectiveRemoveIgnoredMarginPerCell;
    out->max_erroneous_bits_in_border_rate = p->maxErroneousBitsInBorderRate;
    out->min_otsu_std_dev = p->minOtsuStdDev;
    out->error_correction_rate = p->errorCorrectionRate;
    return ARB_OK;
  });
}

arb_status arb_detector_create(const char *dictionary_name, const arb_detector_params *params,
                               arb_detector **out, char *message, size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (out == nullptr || params == nullptr) {
      copy_message(message, message_capacity, "detector output or params is null");
      return ARB_INVALID_ARGUMENT;
    }
    *out = nullptr;
    cv::aruco::PREDEFINED_DICTIONARY_NAME id;
    if (!lookup_dictionary(dictionary_name, &id)) {
      copy_message(message, message_capacity,
                   std::string("unknown ArUco dictionary '") +
                       (dictionary_name ? dictionary_name : "(null)") + "'");
      return ARB_UNKNOWN_DICTIONARY;
    }
    if (params->adaptive_thresh_win_size_min < 3 ||
        params->adaptive_thresh_win_size_max < params->adaptive_thresh_win_size_min ||
        params->adaptive_thresh_win_size_step <= 0 || params->marker_border_bits < 1 ||
        params->corner_refinement_method < 0 || params->corner_refinement_method > 3 ||
        params->corner_refinement_win_size < 1 || params->perspective_remove_pixel_per_cell < 1) {
      copy_message(message, message_capacity, "detector parameters out of range");
      return ARB_INVALID_ARGUMENT;
    }
    // Owned until handed out, so a throw while filling it in frees it.
    auto detector = std::make_unique<arb_detector>();
    detector->dictionary = cv::aruco::getPredefinedDictionary(id);
    detector->params = cv::aruco::DetectorParameters::create();
    to_params(*params, *detector->params);
    *out = detector.release();
    return ARB_OK;
  });
}

void arb_detector_destroy(arb_detector *detector) { delete detector; }

int32_t arb_detector_dictionary_size(const arb_detector *detector) {
  if (detector == nullptr) return 0;
  return detector->dictionary->bytesList.rows;
}

int32_t arb_detector_marker_bits(const arb_detector *detector) {
  if (detector == nullptr) return 0;
  return detector->dictionary->markerSize;
}

arb_status arb_detector_detect(const arb_detector *detector, const uint8_t *pixels, int32_t width,
                               int32_t height, int32_t row_bytes, int32_t channels, int32_t *ids,
                               float *corners, int32_t capacity, int32_t *count, char *message,
                               size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (!valid_detection(detector, pixels, width, height, row_bytes, channels, ids, corners, capacity, count, message,
                         message_capacity))
      return ARB_INVALID_ARGUMENT;
    int type = channels == 1 ? CV_8UC1 : (channels == 3 ? CV_8UC3 : CV_8UC4);
    cv::Mat image(height, width, type, const_cast<uint8_t *>(pixels), (size_t)row_bytes);
    cv::Mat grey;
    if (channels == 1) {
      grey = image;
    } else {
      cv::cvtColor(image, grey, channels == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
    }
    return detect_into(*detector, grey, detector->params, 0, 0, nullptr, *detector->params, ids, corners, capacity,
                       count);
  });
}

arb_status arb_detector_detect_region(const arb_detector *detector, const uint8_t *pixels, int32_t width,
                                      int32_t height, int32_t row_bytes, int32_t region_x, int32_t region_y,
                                      int32_t region_width, int32_t region_height, int32_t *ids,
                                      float *corners, int32_t capacity, int32_t *count, char *message,
                                      size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (!valid_detection(detector, pixels, width, height, row_bytes, 1, ids, corners, capacity, count, message,
                         message_capacity))
      return ARB_INVALID_ARGUMENT;
    if (region_x < 0 || region_y < 0 || region_width <= 0 || region_height <= 0 ||
        region_width > width - region_x || region_height > height - region_y) {
      copy_message(message, message_capacity,
                   "region " + std::to_string(region_width) + "x" + std::to_string(region_height) + " at (" +
                       std::to_string(region_x) + ", " + std::to_string(region_y) + ") is not inside the " +
                       std::to_string(width) + "x" + std::to_string(height) + " image");
      return ARB_INVALID_ARGUMENT;
    }
    cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(pixels), (size_t)row_bytes);
    cv::Mat grey = image(cv::Rect(region_x, region_y, region_width, region_height));
    // A copy of the shared parameters (the detector stays immutable), its perimeter limits in
    // the whole image's pixels.
    auto params = cv::makePtr<cv::aruco::DetectorParameters>(*detector->params);
    double whole = std::max(width, height), part = std::max(region_width, region_height);
    params->minMarkerPerimeterRate = same_pixels_rate(params->minMarkerPerimeterRate, whole, part);
    params->maxMarkerPerimeterRate = same_pixels_rate(params->maxMarkerPerimeterRate, whole, part);
    // Sub-pixel corners are refined in the whole image (detect_into says why).
    const bool refine_whole = params->cornerRefinementMethod == cv::aruco::CORNER_REFINE_SUBPIX;
    if (refine_whole) params->cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE;
    return detect_into(*detector, grey, params, (float)region_x, (float)region_y, refine_whole ? &image : nullptr,
                       *detector->params, ids, corners, capacity, count);
  });
}

arb_status arb_draw_marker(const char *dictionary_name, int32_t id, int32_t side_pixels,
                           int32_t border_bits, uint8_t *out, size_t out_capacity, char *message,
                           size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    cv::aruco::PREDEFINED_DICTIONARY_NAME name;
    if (!lookup_dictionary(dictionary_name, &name)) {
      copy_message(message, message_capacity,
                   std::string("unknown ArUco dictionary '") +
                       (dictionary_name ? dictionary_name : "(null)") + "'");
      return ARB_UNKNOWN_DICTIONARY;
    }
    auto dictionary = cv::aruco::getPredefinedDictionary(name);
    if (id < 0 || id >= dictionary->bytesList.rows) {
      copy_message(message, message_capacity,
                   "marker id " + std::to_string(id) + " is not in " + dictionary_name);
      return ARB_INVALID_ARGUMENT;
    }
    if (border_bits < 1 || side_pixels < dictionary->markerSize + 2 * border_bits) {
      copy_message(message, message_capacity, "side_pixels too small for the marker's bits");
      return ARB_INVALID_ARGUMENT;
    }
    if (out == nullptr || out_capacity < (size_t)side_pixels * (size_t)side_pixels) {
      copy_message(message, message_capacity, "output buffer is null or too small");
      return ARB_BUFFER_TOO_SMALL;
    }
    cv::Mat bitmap(side_pixels, side_pixels, CV_8UC1, out);
    cv::Mat drawn;
    cv::aruco::drawMarker(dictionary, id, side_pixels, drawn, border_bits);
    drawn.copyTo(bitmap);
    return ARB_OK;
  });
}

arb_status arb_solve_square_pnp(const double corners[8], double side_length, double fx, double fy,
                                double cx, double cy, double rvec[3], double tvec[3],
                                double *rms_pixels, char *message, size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (corners == nullptr || rvec == nullptr || tvec == nullptr || !(side_length > 0) ||
        !(fx > 0) || !(fy > 0)) {
      copy_message(message, message_capacity, "invalid PnP input");
      return ARB_INVALID_ARGUMENT;
    }
    double h = side_length / 2;
    std::vector<cv::Point3d> object = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
    std::vector<cv::Point2d> image;
    for (int k = 0; k < 4; ++k) image.emplace_back(corners[2 * k], corners[2 * k + 1]);
    cv::Matx33d camera(fx, 0, cx, 0, fy, cy, 0, 0, 1);
    cv::Vec3d r, t;
    bool ok = cv::solvePnP(object, image, camera, cv::noArray(), r, t, false,
                           cv::SOLVEPNP_IPPE_SQUARE);
    if (!ok) {
      copy_message(message, message_capacity, "solvePnP found no solution");
      return ARB_OPENCV_ERROR;
    }
    write_pose(object, image, camera, r, t, rvec, tvec, rms_pixels);
    return ARB_OK;
  });
}

arb_status arb_solve_pnp(const double *object_points, const double *image_points, int32_t count,
                         double fx, double fy, double cx, double cy, int32_t use_guess,
                         double rvec[3], double tvec[3], double *rms_pixels, char *message,
                         size_t message_capacity) {
  return guarded(message, message_capacity, [&]() {
    if (object_points == nullptr || image_points == nullptr || rvec == nullptr || tvec == nullptr ||
        count < 4 || !(fx > 0) || !(fy > 0)) {
      copy_message(message, message_capacity, "invalid PnP input (needs 4 or more points)");
      return ARB_INVALID_ARGUMENT;
    }
    std::vector<cv::Point3d> object;
    std::vector<cv::Point2d> image;
    for (int32_t k = 0; k < count; ++k) {
      object.emplace_back(object_points[3 * k], object_points[3 * k + 1], object_points[3 * k + 2]);
      image.emplace_back(image_points[2 * k], image_points[2 * k + 1]);
    }
    cv::Matx33d camera(fx, 0, cx, 0, fy, cy, 0, 0, 1);
    cv::Vec3d r(rvec[0], rvec[1], rvec[2]), t(tvec[0], tvec[1], tvec[2]);
    bool ok = use_guess
                  ? cv::solvePnP(object, image, camera, cv::noArray(), r, t, true, cv::SOLVEPNP_ITERATIVE)
                  : cv::solvePnP(object, image, camera, cv::noArray(), r, t, false, cv::SOLVEPNP_SQPNP);
    if (!ok || !std::isfinite(t[0]) || !std::isfinite(t[1]) || !std::isfinite(t[2])) {
      copy_message(message, message_capacity, "solvePnP found no solution");
      return ARB_OPENCV_ERROR;
    }
    write_pose(object, image, camera, r, t, rvec, tvec, rms_pixels);
    return ARB_OK;
  });
}

}  // extern "C"
