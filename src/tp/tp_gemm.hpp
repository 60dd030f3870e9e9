// The tensor-parallel engine behind include/tilegemm/tp.hpp, over any Transport (NCCL, or the
// loopback of the tests and `tilegemm tp-bench --loopback`).
#pragma once

#include "tilegemm/tp.hpp"

namespace tilegemm::tp::detail {

class Transport;

// Every rule of the call for rank `rank` of `world`, host only, no CUDA call: the first broken
// rule, naming the argument (a_shard.ld, partial_dtype, d.rows, ...).
Status validate_all_gather_gemm(const AllGatherGemmArgs& args, int rank, int world);
Status validate_gemm_reduce_scatter(const GemmReduceScatterArgs& args, int rank, int world);

// comm_only (tilegemm tp-bench: the collective's own time): every transfer (and the reduce-scatter's
// sum) without the GEMM steps; D is then left unwritten (the sum adds uninitialised partials).
Status run_all_gather_gemm(Transport& transport, const AllGatherGemmArgs& args, bool comm_only = false);
Status run_gemm_reduce_scatter(Transport& transport, const GemmReduceScatterArgs& args, bool comm_only = false);

}  // namespace tilegemm::tp::detail
