// tp.hpp's communicator helpers: the library's version, bootstrap, and synchronize with NCCL's
// asynchronous error handling.
#include <chrono>
#include <cstring>
#include <thread>

#include "tp/nccl_library.hpp"
#include "tilegemm/tp.hpp"

namespace tilegemm::tp {

Status nccl_version(int* version, std::string* library_path) {
  const detail::NcclLibrary* lib = nullptr;
  if (Status s = detail::loaded_nccl(&lib); !s.ok()) return s;
  if (Status s = detail::nccl_status(*lib, "ncclGetVersion", lib->get_version(version), nullptr); !s.ok()) return s;
  if (library_path) *library_path = lib->path;
  return Status::success();
}

Status init_local_comms(const std::vector<int>& devices, std::vector<ncclComm*>* comms) {
  if (devices.empty()) return Status{ErrorCode::invalid_argument, "devices", "devices is empty: name at least one"};
  const detail::NcclLibrary* lib = nullptr;
  if (Status s = detail::loaded_nccl(&lib); !s.ok()) return s;
  comms->assign(devices.size(), nullptr);
  return detail::nccl_status(*lib, "ncclCommInitAll",
                             lib->comm_init_all(comms->data(), int(devices.size()), devices.data()), nullptr);
}

Status unique_id(UniqueId* id) {
  const detail::NcclLibrary* lib = nullptr;
  if (Status s = detail::loaded_nccl(&lib); !s.ok()) return s;
  detail::NcclUniqueId raw{};
  if (Status s = detail::nccl_status(*lib, "ncclGetUniqueId", lib->get_unique_id(&raw), nullptr); !s.ok()) return s;
  static_assert(sizeof(raw.internal) == sizeof(id->bytes));
  std::memcpy(id->bytes, raw.internal, sizeof(id->bytes));
  return Status::success();
}

Status init_rank(const UniqueId& id, int world, int rank, ncclComm** comm) {
  if (world < 1 || rank < 0 || rank >= world)
    return Status{ErrorCode::invalid_argument, "rank",
                  "rank " + std::to_string(rank) + " of world size " + std::to_string(world) +
                      ": need world >= 1 and 0 <= rank < world"};
  const detail::NcclLibrary* lib = nullptr;
  if (Status s = detail::loaded_nccl(&lib); !s.ok()) return s;
  detail::NcclUniqueId raw{};
  std::memcpy(raw.internal, id.bytes, sizeof(raw.internal));
  return detail::nccl_status(*lib, "ncclCommInitRank", lib->comm_init_rank(comm, world, raw, rank), nullptr);
}

Status destroy_comm(ncclComm* comm) {
  if (comm == nullptr) return Status::success();
  const detail::NcclLibrary* lib = nullptr;
  if (Status s = detail::loaded_nccl(&lib); !s.ok()) return s;
  return detail::nccl_status(*lib, "ncclCommDestroy", lib->comm_destroy(comm), nullptr);
}

Status synchronize(ncclComm* comm, cudaStream_t stream, double timeout_s) {
  if (comm == nullptr) return Status{ErrorCode::invalid_argument, "comm", "comm is null: pass an NCCL communicator"};
  if (!(timeout_s > 0))
    return Status{ErrorCode::invalid_argument, "timeout_s", "timeout_s must be > 0 seconds"};
  const detail::NcclLibrary* lib = nullptr;
  if (Status s = detail::loaded_nccl(&lib); !s.ok()) return s;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t q = cudaStreamQuery(stream);
    if (q == cudaSuccess) return Status::success();
    if (q != cudaErrorNotReady)
      return Status{ErrorCode::cuda_error, "stream", std::string("the stream failed: ") + cudaGetErrorString(q)};
    detail::NcclResult async = detail::kNcclSuccess;
    const detail::NcclResult r = lib->comm_get_async_error(comm, &async);
    if (r != detail::kNcclSuccess || (async != detail::kNcclSuccess && async != detail::kNcclInProgress)) {
      const std::string what = r != detail::kNcclSuccess ? lib->describe("ncclCommGetAsyncError", r, comm)
                                                         : lib->describe("a collective", async, comm);
      (void)lib->comm_abort(comm);
      return Status{ErrorCode::cuda_error, "comm", what + "; the communicator was aborted"};
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > timeout_s) {
      (void)lib->comm_abort(comm);
      return Status{ErrorCode::cuda_error, "comm",
                    "the stream did not finish within " + std::to_string(timeout_s) +
                        " s (a peer that never arrived?); the communicator was aborted"};
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace tilegemm::tp
