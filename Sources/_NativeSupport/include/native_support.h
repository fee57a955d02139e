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
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

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

/// Calls `body(begin, end)` on contiguous shares of `0..<count`, one share a core this process
/// may run on (at most 8), each on its own thread, and returns when all have returned. The
/// first exception a share throws (in share order) is rethrown here, after every thread has
/// joined, so `guarded` sees it. A thread that cannot be started leaves its share to the
/// calling thread.
template <typename Body>
void for_each_share(int count, Body body) {
  cpu_set_t allowed;
  int cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
  int shares = cores < 1 ? 1 : (cores > 8 ? 8 : cores);
  if (count < 2 * shares) shares = 1;
  std::vector<std::exception_ptr> failures((size_t)shares);
  auto share = [&](int s) {
    try {
      body((int)((long long)count * s / shares), (int)((long long)count * (s + 1) / shares));
    } catch (...) {
      failures[(size_t)s] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  int started = 1;  // share 0 is the calling thread's
  try {
    threads.reserve((size_t)shares);
    for (; started < shares; ++started) threads.emplace_back(share, started);
  } catch (...) {
    // No thread for shares `started..<shares` (e.g. a thread limit): this thread takes them.
  }
  share(0);
  for (int s = started; s < shares; ++s) share(s);
  for (auto &thread : threads) thread.join();
  for (auto &failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace ns

#endif  // __cplusplus
#endif  // NATIVE_SUPPORT_H
