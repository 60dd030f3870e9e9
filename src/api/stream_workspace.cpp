// stream_workspace (stream_workspace.hpp).
#include "api/stream_workspace.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace tilegemm::detail {

namespace {

struct Workspace {
  void* ptr = nullptr;
  size_t bytes = 0;
};
std::mutex g_mutex;
std::map<std::pair<int, cudaStream_t>, Workspace>& workspaces() {
  static auto* m = new std::map<std::pair<int, cudaStream_t>, Workspace>;  // never destroyed
  return *m;
}

}  // namespace

void* stream_workspace(int device, cudaStream_t stream, size_t bytes, size_t min_bytes, size_t zeroed_bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Workspace& w = workspaces()[{device, stream}];
  if (w.bytes >= bytes) return w.ptr;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  if (capture != cudaStreamCaptureStatusNone) return nullptr;  // no allocation inside a capture
  const size_t want = bytes > min_bytes ? bytes : min_bytes;
  if (w.ptr != nullptr) {  // grow: earlier calls on this stream may still read the old one
    if (cudaStreamSynchronize(stream) != cudaSuccess || cudaFree(w.ptr) != cudaSuccess) {
      (void)cudaGetLastError();
      w = {};
      return nullptr;
    }
    w = {};
  }
  void* ptr = nullptr;
  if (cudaMalloc(&ptr, want) != cudaSuccess) {
    (void)cudaGetLastError();  // out of memory is not sticky: clear it and run unsplit
    return nullptr;
  }
  if (zeroed_bytes > 0 && cudaMemsetAsync(ptr, 0, zeroed_bytes < want ? zeroed_bytes : want, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    (void)cudaFree(ptr);
    return nullptr;
  }
  w = {ptr, want};
  return ptr;
}

}  // namespace tilegemm::detail
