/*
 * native_support.h — what every native shim of headscan needs at its C boundary.
 * No API: included by the C++ files of _ArucoShim and _GeometryShim only.
 *
 * A C++ exception that crossed an extern "C" entry point into Swift would end
 * the process, so each entry point runs its body through ns::guarded, which
 * catches everything, copies a one-line message into the caller's buffer and
 * returns a status. The library's own exception type (cv::Exception,
 * pcl::PCLException) is a template argument, so this header includes no library.
 *
 * From C (and Swift) this header is empty.
 */
#ifndef NATIVE_SUPPORT_H
#define NATIVE_SUPPORT_H

#ifdef __cplusplus

#include <cstddef>
#include <cstring>
#include <exception>
#include <string>

namespace ns {

/// Copies `text` into `message` (capacity bytes, always NUL-terminated, truncated to fit).
/// A null buffer or zero capacity is allowed: the message is then dropped.
inline void copy_message(char *message, size_t capacity, const std::string &text) noexcept {
  if (message == nullptr || capacity == 0) return;
  size_t n = text.size() < capacity - 1 ? text.size() : capacity - 1;
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

/// Runs `body` (returning a Status), turning any exception into a status and a message:
/// the library's own `LibraryException` gives `library_error` and `prefix` + what();
/// another std::exception `internal_error` and its what(); anything else `internal_error`
/// and "unknown C++ exception". Never throws.
template <typename LibraryException, typename Status, typename Body>
Status guarded(char *message, size_t capacity, const char *prefix, Status library_error, Status internal_error,
               Body body) noexcept {
  try {
    return body();
  } catch (const LibraryException &e) {
    copy_message(message, capacity, std::string(prefix) + e.what());
    return library_error;
  } catch (const std::exception &e) {
    copy_message(message, capacity, e.what());
    return internal_error;
  } catch (...) {
    copy_message(message, capacity, "unknown C++ exception");
    return internal_error;
  }
}

}  // namespace ns

#endif  // __cplusplus
#endif  // NATIVE_SUPPORT_H
