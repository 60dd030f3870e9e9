// tilegemm tensor parallelism: a GEMM whose input arrives by, or whose output leaves through, an
// NCCL collective, the two overlapped chunk by chunk (docs/TENSOR_PARALLEL.md).
//
// World size W, this rank r. Rows are cut into W chunks, chunk c = rows [floor(c·M/W),
// floor((c+1)·M/W)) (tilegemm::tp::chunk_rows).
//
//   all_gather_gemm      (column-parallel layer) rank r holds chunk r of A [M, K]; every rank
//                        computes D = all_gather(A) · Bᵀ for its own B [N, K] (its weight shard).
//                        Step 0 multiplies the local chunk while the others are in flight; each
//                        later step multiplies the rows that have landed. D's bits are those of
//                        the single-GPU gemm() of the gathered problem run with the same
//                        configuration (the configuration is chosen once, for the whole problem,
//                        without a k-split).
//   gemm_reduce_scatter  (row-parallel layer) rank r holds A_r [M, K_r] and B_r [N, K_r] (its slice
//                        of K); D_r = rows chunk r of Σ_q alpha·A_q·B_qᵀ (+ beta·C_r). Rank r
//                        computes its partial chunk by chunk, the one for rank r+1 first, and sends
//                        each as soon as it is complete; the W partials of chunk r are summed in
//                        FP32 in rank order 0 … W−1, whatever order they arrive in, so the result
//                        is bitwise the same run to run.
//
// NCCL is not linked: libnccl.so.2 is loaded at run time on first use (the one already in the
// process, e.g. PyTorch's, if any; else TILEGEMM_NCCL_LIBRARY; else the CUDA toolkit's), and a
// missing library is an `unsupported` Status, never a crash. The communicator is the caller's,
// from any ncclCommInit* of that library (ncclComm_t is `ncclComm*`); standalone programs can use
// tp::init_local_comms (one process, several GPUs) or tp::unique_id + tp::init_rank.
//
// Both calls are asynchronous like gemm(): they return once everything is enqueued on
// args.stream (with the communication on an internal stream that joins args.stream before the
// call's last operation). A peer that never arrives shows as a kernel that does not finish: use
// tp::synchronize, which polls NCCL's asynchronous error state with a timeout and aborts the
// communicator on an error or a timeout, so every rank gets an error instead of a hang.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilegemm/tilegemm.hpp"

struct ncclComm;  // NCCL's communicator: ncclComm_t is ncclComm*

namespace tilegemm::tp {

// Rows [begin, end) of chunk `chunk` when `rows` rows are cut among `world` ranks.
struct RowRange {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};
RowRange chunk_rows(int64_t rows, int world, int chunk);

struct Overlap {
  // false: the collective first, then one GEMM of the whole problem (the baseline the overlap is
  // measured against; same transport, same configuration).
  bool enabled = true;
  // SMs the GEMM steps leave free for the collective's kernels while both run (their persistent
  // grid is capped at SMs − reserved_sms; the sequential run uses every SM). 0: none reserved;
  // NCCL's kernels then take SMs as the GEMM's CTAs retire (docs/TENSOR_PARALLEL.md: why).
  int reserved_sms = 0;
};

struct AllGatherGemmArgs {
  int64_t m = 0;             // rows of the gathered A (and of D)
  MatrixRef a_shard;         // [chunk_rows(m, W, r).size(), K]: K-major, rows contiguous (ld == K)
  // [M, K], K-major, ld == K: receives the gathered A (kept for the backward pass). ptr null: a
  // buffer of the call's own (stream-ordered allocation, freed when the call's work is done).
  MutMatrixRef a_gathered;
  MatrixRef b;               // [N, K] this rank's weight shard, any layout gemm() takes
  const MatrixRef* c = nullptr;  // [M, N], read only when beta != 0
  MutMatrixRef d;            // [M, N]
  float alpha = 1.0f, beta = 0.0f;
  cudaStream_t stream = nullptr;
  Overlap overlap;
};

struct GemmReduceScatterArgs {
  MatrixRef a;               // [M, K_r] this rank's slice of K (any layout gemm() takes)
  MatrixRef b;               // [N, K_r]
  const MatrixRef* c = nullptr;  // [chunk rows, N], added after the sum: beta·C (beta != 0)
  MutMatrixRef d;            // [chunk_rows(M, W, r).size(), N]
  // The partials' type on the wire: bf16 halves the traffic, fp32 keeps every partial unrounded.
  DType partial_dtype = DType::bf16;
  float alpha = 1.0f, beta = 0.0f;
  cudaStream_t stream = nullptr;
  Overlap overlap;
};

Status all_gather_gemm(ncclComm* comm, const AllGatherGemmArgs& args);
Status gemm_reduce_scatter(ncclComm* comm, const GemmReduceScatterArgs& args);

// Waits for everything enqueued on `stream` while watching `comm`: NCCL's asynchronous error
// (ncclCommGetAsyncError) or `timeout_s` seconds without completion abort the communicator
// (ncclCommAbort) and return an error naming which; a CUDA error is returned as such.
Status synchronize(ncclComm* comm, cudaStream_t stream, double timeout_s);

// ---- bootstrap helpers for programs without a launcher of their own ----------------------------
// The NCCL library that is used: its file and version (e.g. 22809), or an `unsupported` Status
// saying which files were tried.
Status nccl_version(int* version, std::string* library_path);
// One communicator per device, all in this process (ncclCommInitAll): comms[i] is rank i on
// devices[i]. Drive each rank from its own host thread.
Status init_local_comms(const std::vector<int>& devices, std::vector<ncclComm*>* comms);
// Multi-process: rank 0 makes the id (128 bytes) and passes it to the others by any means.
struct UniqueId {
  char bytes[128] = {};
};
Status unique_id(UniqueId* id);
Status init_rank(const UniqueId& id, int world, int rank, ncclComm** comm);  // on the current device
Status destroy_comm(ncclComm* comm);

}  // namespace tilegemm::tp
