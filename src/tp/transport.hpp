// How the tensor-parallel engine (tp_gemm.cpp) moves its chunks: one step of a collective is one
// grouped send + receive on a stream. Two transports:
//   NcclTransport     ncclSend/ncclRecv in one ncclGroupStart/End (the product).
//   LoopbackTransport W virtual ranks on one GPU, one host thread each: a receive is a
//                     device-to-device copy from the sender's buffer, ordered by events. It runs
//                     the engine's whole chunk protocol (steps, events, the reduction order) on a
//                     single GPU, for the tests and `tilegemm tp-bench --loopback`; it moves no
//                     data between GPUs and its timings say nothing about overlap.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>

#include <cuda_runtime_api.h>

#include "tilegemm/tp.hpp"

namespace tilegemm::tp::detail {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int world() const = 0;
  // Enqueue on `stream`: send `send_bytes` from `send` to rank `to`, and receive `recv_bytes` into
  // `recv` from rank `from`. A side with 0 bytes is skipped (both ends agree: sizes come from the
  // same chunk cut on every rank).
  virtual Status exchange(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes, int from,
                          cudaStream_t stream) = 0;
};

class NcclTransport final : public Transport {
 public:
  // Reads world and rank from the communicator and checks that it belongs to the current device.
  static Status make(ncclComm* comm, NcclTransport* out);
  int rank() const override { return rank_; }
  int world() const override { return world_; }
  Status exchange(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes, int from,
                  cudaStream_t stream) override;

 private:
  ncclComm* comm_ = nullptr;
  int rank_ = 0, world_ = 1;
};

// What the virtual ranks of one loopback world share: the posted sends, matched to receives by
// (from, to, sequence number of that pair).
class LoopbackHub {
 public:
  explicit LoopbackHub(int world, std::chrono::milliseconds timeout = std::chrono::seconds(60))
      : world_(world), timeout_(timeout) {}
  int world() const { return world_; }

 private:
  friend class LoopbackTransport;
  struct Post {
    const void* ptr = nullptr;
    size_t bytes = 0;
    cudaEvent_t ready = nullptr;   // recorded on the sender's stream: the data is there
    cudaEvent_t copied = nullptr;  // recorded on the receiver's stream: the copy is done
  };
  using Key = std::tuple<int, int, long>;  // from, to, sequence
  int world_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<Key, Post> posts_;
  std::map<std::pair<int, int>, long> sent_, received_;
};

class LoopbackTransport final : public Transport {
 public:
  LoopbackTransport(LoopbackHub& hub, int rank) : hub_(hub), rank_(rank) {}
  int rank() const override { return rank_; }
  int world() const override { return hub_.world(); }
  // Posts the send, then copies the matching post of `from` (waiting for it on the host, up to the
  // hub's timeout), then waits on the host until `to` has copied the send: every rank posts before
  // it waits, so a step cannot deadlock. The stream waits on the copy of its send, so the sender's
  // buffer stays untouched until the receiver has it, as with NCCL.
  Status exchange(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes, int from,
                  cudaStream_t stream) override;

 private:
  LoopbackHub& hub_;
  int rank_;
};

}  // namespace tilegemm::tp::detail
