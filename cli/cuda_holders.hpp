// Device memory and a stream that a CLI command owns, released on every way out (a command that
// fails part-way throws CLI::RuntimeError): `tilegemm bench`, `overhead` and `copy-rate`.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tilegemm::cli {

// cudaMalloc'd buffers (at least 256 B each), freed together.
class DeviceBuffers {
 public:
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* p : held_) cudaFree(p);
  }
  // A new buffer of `bytes`, or nullptr when the device has no room.
  void* get(size_t bytes) {
    void* p = nullptr;
    if (cudaMalloc(&p, std::max<size_t>(bytes, 256)) != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    held_.push_back(p);
    return p;
  }

 private:
  std::vector<void*> held_;
};

// A non-blocking stream of the command's own (the legacy default stream synchronizes with every
// other stream: no place to measure overlap), or none (get() is the default stream, nullptr).
class OwnedStream {
 public:
  OwnedStream() = default;
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  ~OwnedStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaError_t create() { return cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace tilegemm::cli
