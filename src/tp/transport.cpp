// transport.hpp: the NCCL and loopback transports.
#include "tp/transport.hpp"

#include <string>

#include "tp/cuda_status.hpp"
#include "tp/nccl_library.hpp"

namespace tilegemm::tp::detail {

Status NcclTransport::make(ncclComm* comm, NcclTransport* out) {
  if (comm == nullptr) return Status{ErrorCode::invalid_argument, "comm", "comm is null: pass an NCCL communicator"};
  const NcclLibrary* lib = nullptr;
  if (Status s = loaded_nccl(&lib); !s.ok()) return s;
  int world = 0, rank = 0, device = -1, current = -1;
  if (Status s = nccl_status(*lib, "ncclCommCount", lib->comm_count(comm, &world), comm); !s.ok()) return s;
  if (Status s = nccl_status(*lib, "ncclCommUserRank", lib->comm_user_rank(comm, &rank), comm); !s.ok()) return s;
  if (Status s = nccl_status(*lib, "ncclCommCuDevice", lib->comm_cu_device(comm, &device), comm); !s.ok()) return s;
  if (Status s = cuda_status("cudaGetDevice", cudaGetDevice(&current)); !s.ok()) return s;
  if (device != current)
    return Status{ErrorCode::invalid_argument, "comm",
                  "comm belongs to CUDA device " + std::to_string(device) + " but the current device is " +
                      std::to_string(current) + ": call cudaSetDevice(" + std::to_string(device) + ") first"};
  out->comm_ = comm;
  out->world_ = world;
  out->rank_ = rank;
  return Status::success();
}

Status NcclTransport::exchange(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes, int from,
                               cudaStream_t stream) {
  if (send_bytes == 0 && recv_bytes == 0) return Status::success();
  const NcclLibrary* lib = nullptr;
  if (Status s = loaded_nccl(&lib); !s.ok()) return s;
  if (Status s = nccl_status(*lib, "ncclGroupStart", lib->group_start(), comm_); !s.ok()) return s;
  NcclResult r = kNcclSuccess;
  const char* call = "ncclSend";
  if (send_bytes > 0) r = lib->send(send, send_bytes, kNcclUint8, to, comm_, stream);
  if (r == kNcclSuccess && recv_bytes > 0) {
    call = "ncclRecv";
    r = lib->recv(recv, recv_bytes, kNcclUint8, from, comm_, stream);
  }
  const NcclResult end = lib->group_end();  // always closes the group, also after a failed call
  if (r != kNcclSuccess) return nccl_status(*lib, call, r, comm_);
  return nccl_status(*lib, "ncclGroupEnd", end, comm_);
}

Status LoopbackTransport::exchange(const void* send, size_t send_bytes, int to, void* recv, size_t recv_bytes,
                                   int from, cudaStream_t stream) {
  using Post = LoopbackHub::Post;
  long send_seq = -1;
  if (send_bytes > 0) {
    cudaEvent_t ready = nullptr;
    if (Status s = cuda_status("cudaEventCreate", cudaEventCreateWithFlags(&ready, cudaEventDisableTiming)); !s.ok())
      return s;
    if (Status s = cuda_status("cudaEventRecord", cudaEventRecord(ready, stream)); !s.ok()) return s;
    std::lock_guard lock(hub_.mutex_);
    send_seq = hub_.sent_[{rank_, to}]++;
    hub_.posts_[{rank_, to, send_seq}] = Post{send, send_bytes, ready, nullptr};
    hub_.changed_.notify_all();
  }
  if (recv_bytes > 0) {
    std::unique_lock lock(hub_.mutex_);
    const long seq = hub_.received_[{from, rank_}]++;
    const LoopbackHub::Key key{from, rank_, seq};
    if (!hub_.changed_.wait_for(lock, hub_.timeout_, [&] { return hub_.posts_.count(key) > 0; }))
      return Status{ErrorCode::cuda_error, "comm",
                    "loopback rank " + std::to_string(rank_) + " waited " + std::to_string(hub_.timeout_.count()) +
                        " ms for message " + std::to_string(seq) + " from rank " + std::to_string(from)};
    Post& p = hub_.posts_[key];
    if (p.bytes != recv_bytes)
      return Status{ErrorCode::invalid_argument, "comm",
                    "loopback rank " + std::to_string(rank_) + " expects " + std::to_string(recv_bytes) +
                        " bytes from rank " + std::to_string(from) + ", which sends " + std::to_string(p.bytes)};
    cudaEvent_t copied = nullptr;
    cudaError_t err = cudaStreamWaitEvent(stream, p.ready, 0);
    if (err == cudaSuccess) err = cudaMemcpyAsync(recv, p.ptr, recv_bytes, cudaMemcpyDeviceToDevice, stream);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(copied, stream);
    if (err != cudaSuccess) return cuda_status("loopback receive", err);
    p.copied = copied;
    hub_.changed_.notify_all();
  }
  if (send_bytes > 0) {
    std::unique_lock lock(hub_.mutex_);
    const LoopbackHub::Key key{rank_, to, send_seq};
    if (!hub_.changed_.wait_for(lock, hub_.timeout_, [&] { return hub_.posts_[key].copied != nullptr; }))
      return Status{ErrorCode::cuda_error, "comm",
                    "loopback rank " + std::to_string(rank_) + " waited " + std::to_string(hub_.timeout_.count()) +
                        " ms for rank " + std::to_string(to) + " to receive message " + std::to_string(send_seq)};
    const Post p = hub_.posts_[key];
    hub_.posts_.erase(key);
    lock.unlock();
    const cudaError_t err = cudaStreamWaitEvent(stream, p.copied, 0);
    cudaEventDestroy(p.ready);  // released once complete; the waits above are already enqueued
    cudaEventDestroy(p.copied);
    if (Status s = cuda_status("cudaStreamWaitEvent", err); !s.ok()) return s;
  }
  return Status::success();
}

}  // namespace tilegemm::tp::detail
