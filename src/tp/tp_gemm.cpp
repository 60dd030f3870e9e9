// Tensor-parallel GEMM (include/tilegemm/tp.hpp, docs/TENSOR_PARALLEL.md): the chunk protocol
// over a Transport, the GEMM steps through the one production path (gemm_with_options), and the
// public entry points over NCCL.
//
// Two streams per call: the caller's stream S runs the GEMM steps (and the reduce-scatter's sum);
// an internal communication stream Sc (one per device and S, high priority, so the collective's
// kernels are scheduled first when SMs free up) runs the transfers. Events order them:
//   all-gather + GEMM   S: start ──▶ Sc: own chunk copy, step 1 … W−1 receives (event per step)
//                       S: GEMM of step 0 (local rows), then per step s: wait(Sc step s), GEMM
//   GEMM + RS           S: per step s: GEMM of the m-blocks of step s, event
//                       Sc: per step s < W−1: wait(S step s), send chunk (r+1+s) mod W, receive
//                       the partial of chunk r from rank (r−1−s) mod W
//                       S: wait(Sc), sum the W partials in rank order (+ beta·C) into D
// Which m-blocks belong to which step is sched::TpChunkSchedule (src/schedule/tp_chunks.hpp),
// with m-blocks of the tile's row extent, so that every step's tiles are tiles of the whole
// problem: with the configuration held fixed (no k-split), every element of D is computed by the
// same instructions as in the single GEMM of the gathered problem.
#include "tp/tp_gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/matrix_layout.hpp"
#include "api/route.hpp"
#include "api/stream_workspace.hpp"
#include "schedule/tp_chunks.hpp"
#include "tp/cuda_status.hpp"
#include "tp/nccl_library.hpp"
#include "tp/reduce.hpp"
#include "tp/transport.hpp"

namespace tilegemm::tp {

RowRange chunk_rows(int64_t rows, int world, int chunk) {
  const sched::RowChunks c{rows, world < 1 ? 1 : world};
  return RowRange{c.begin(chunk), c.end(chunk)};
}

namespace detail {
namespace {

using ::tilegemm::detail::choose_launch;
using ::tilegemm::detail::gemm_with_options;
using ::tilegemm::detail::GemmOptions;
using ::tilegemm::detail::LaunchChoice;
using ::tilegemm::detail::Path;

// A placeholder device address for an operand the call allocates itself: validate() checks
// alignment and overlap against it, and no allocation is ever at address 256.
const void* const kPlaceholder = reinterpret_cast<const void*>(uintptr_t{256});

Status invalid(std::string argument, std::string message) {
  return Status{ErrorCode::invalid_argument, std::move(argument), std::move(message)};
}
// Prefixes the argument and message of a failed gemm() check with where it came from.
Status in_context(Status s, const char* context) {
  if (!s.ok()) s.message = std::string(context) + ": " + s.message;
  return s;
}

// Rows [begin, end) of a matrix, as a view.
template <typename Ref>
Ref row_slice(Ref m, int64_t begin, int64_t end) {
  using Byte = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(m.ptr)>>, const uint8_t, uint8_t>;
  if (m.ptr != nullptr && end > begin)
    m.ptr = static_cast<Byte*>(m.ptr) + layout::element_offset(begin, 0, m.ld, m.major == Major::mn_major) *
                                            dtype_bytes(m.dtype);
  m.rows = end - begin;
  return m;
}

bool spans_overlap(const MatrixRef& x, const MatrixRef& y) {
  const int64_t bx = layout::span_bytes(x), by = layout::span_bytes(y);
  if (bx == 0 || by == 0 || x.ptr == nullptr || y.ptr == nullptr) return false;
  const auto px = reinterpret_cast<uintptr_t>(x.ptr), py = reinterpret_cast<uintptr_t>(y.ptr);
  return px < py + uintptr_t(by) && py < px + uintptr_t(bx);
}

Status check_world(int rank, int world) {
  if (world < 1 || world > kMaxWorld)
    return invalid("comm", "world size " + std::to_string(world) + ": tensor-parallel calls take 1 to " +
                               std::to_string(kMaxWorld) + " ranks");
  if (rank < 0 || rank >= world)
    return invalid("comm", "rank " + std::to_string(rank) + " is outside [0, " + std::to_string(world) + ")");
  return Status::success();
}

// A contiguous K-major bf16 operand the transport moves as one message.
Status check_contiguous_rows(const MatrixRef& m, const char* name, int64_t rows, int64_t cols) {
  const std::string n = name;
  if (m.dtype != DType::bf16)
    return invalid(n + ".dtype", n + ".dtype = " + to_string(m.dtype) + ": the gathered operand is bf16");
  if (m.major != Major::k_major)
    return invalid(n + ".major", n + ".major = " + to_string(m.major) +
                                     ": the gathered operand is sent by rows, so it must be k_major");
  if (m.rows != rows)
    return invalid(n + ".rows", n + ".rows = " + std::to_string(m.rows) + " but this rank's chunk has " +
                                    std::to_string(rows) + " rows (tp::chunk_rows)");
  if (m.cols != cols)
    return invalid(n + ".cols", n + ".cols = " + std::to_string(m.cols) + " but K = " + std::to_string(cols));
  if (m.ld != cols)
    return invalid(n + ".ld", n + ".ld = " + std::to_string(m.ld) + ": the rows must be contiguous (ld == K = " +
                                  std::to_string(cols) + ") to travel as one message");
  if (m.ptr == nullptr && rows > 0 && cols > 0) return invalid(n, n + ".ptr is null");
  if (reinterpret_cast<uintptr_t>(m.ptr) % 2 != 0)
    return invalid(n, n + ".ptr is not aligned to its element size (2 bytes)");
  return Status::success();
}

// The single GEMM the all-gather call stands for, D = alpha·A·Bᵀ + beta·C over all M rows, with
// the gathered A at `a` (validation: a placeholder when the call will allocate it).
GemmArgs gathered_problem(const AllGatherGemmArgs& args, const void* a) {
  const int64_t k = args.a_shard.cols;
  return GemmArgs{MatrixRef{a, args.m, k, k, DType::bf16, Major::k_major}, args.b, args.c, args.d, args.alpha,
                  args.beta, args.stream};
}

// Every rank's partial of all of D in the reduce-scatter call, alpha·A_r·B_rᵀ, into `d` (row-major,
// partial_dtype; validation: a placeholder).
GemmArgs partial_problem(const GemmReduceScatterArgs& args, void* d) {
  return GemmArgs{args.a, args.b, nullptr,
                  MutMatrixRef{d, args.a.rows, args.b.rows, args.b.rows, args.partial_dtype, Major::k_major},
                  args.alpha, 0.0f, args.stream};
}

Status check_overlap(const Overlap& o) {
  if (o.reserved_sms < 0)
    return invalid("overlap.reserved_sms", "overlap.reserved_sms = " + std::to_string(o.reserved_sms) + ": must be >= 0");
  return Status::success();
}

}  // namespace

Status validate_all_gather_gemm(const AllGatherGemmArgs& args, int rank, int world) {
  if (Status s = check_world(rank, world); !s.ok()) return s;
  if (args.m < 0) return invalid("m", "m = " + std::to_string(args.m) + ": dimensions must be >= 0");
  const RowRange own = chunk_rows(args.m, world, rank);
  const int64_t k = args.a_shard.cols;
  if (Status s = check_contiguous_rows(args.a_shard, "a_shard", own.size(), k); !s.ok()) return s;
  if (args.a_gathered.ptr != nullptr) {
    if (Status s = check_contiguous_rows(args.a_gathered, "a_gathered", args.m, k); !s.ok()) return s;
    const auto* own_rows = static_cast<const uint8_t*>(args.a_gathered.ptr) + own.begin * k * 2;
    if (spans_overlap(args.a_shard, args.a_gathered) && args.a_shard.ptr != own_rows)
      return invalid("a_shard", "a_shard overlaps a_gathered other than as its own chunk (rows " +
                                    std::to_string(own.begin) + " to " + std::to_string(own.end) + ")");
  }
  const GemmArgs full = gathered_problem(args, args.a_gathered.ptr ? args.a_gathered.ptr : kPlaceholder);
  if (Status s = in_context(validate(full), "the gathered problem D = all_gather(A)·Bᵀ"); !s.ok()) return s;
  if (spans_overlap(args.d, args.a_shard)) return invalid("d", "d overlaps a_shard, which the other ranks read");
  return check_overlap(args.overlap);
}

Status validate_gemm_reduce_scatter(const GemmReduceScatterArgs& args, int rank, int world) {
  if (Status s = check_world(rank, world); !s.ok()) return s;
  if (args.partial_dtype != DType::bf16 && args.partial_dtype != DType::fp32)
    return invalid("partial_dtype", std::string("partial_dtype = ") + to_string(args.partial_dtype) +
                                        ": the partials are bf16 or fp32");
  const GemmArgs partial = partial_problem(args, const_cast<void*>(kPlaceholder));
  if (Status s = in_context(validate(partial), "the partial product A_r·B_rᵀ"); !s.ok()) return s;
  // D and C have the shapes of this rank's rows of the product: validate that GEMM.
  const RowRange own = chunk_rows(args.a.rows, world, rank);
  const GemmArgs mine{row_slice(args.a, own.begin, own.end), args.b, args.c, args.d, args.alpha, args.beta};
  if (Status s = in_context(validate(mine), "this rank's rows of the sum"); !s.ok()) return s;
  return check_overlap(args.overlap);
}

namespace {

// The communication stream of (device, caller's stream): created once, never destroyed.
Status comm_stream(cudaStream_t user, cudaStream_t* out) {
  static std::mutex mutex;
  static std::map<std::pair<int, cudaStream_t>, cudaStream_t> streams;
  int device = 0;
  if (Status s = cuda_status("cudaGetDevice", cudaGetDevice(&device)); !s.ok()) return s;
  std::lock_guard lock(mutex);
  auto [it, inserted] = streams.try_emplace({device, user}, nullptr);
  if (inserted) {
    int least = 0, greatest = 0;
    cudaError_t err = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (err == cudaSuccess) err = cudaStreamCreateWithPriority(&it->second, cudaStreamNonBlocking, greatest);
    if (err != cudaSuccess) {
      streams.erase(it);
      return cuda_status("creating the communication stream", err);
    }
  }
  *out = it->second;
  return Status::success();
}

// Events of one call, destroyed with it (their pending waits stay valid).
class Events {
 public:
  ~Events() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  Status record(cudaStream_t s, cudaEvent_t* out) {
    cudaEvent_t e = nullptr;
    if (Status st = cuda_status("cudaEventCreate", cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); !st.ok())
      return st;
    events_.push_back(e);
    *out = e;
    return cuda_status("cudaEventRecord", cudaEventRecord(e, s));
  }
  // `waiter` waits for everything enqueued on `s` so far.
  Status join(cudaStream_t waiter, cudaStream_t s) {
    cudaEvent_t e = nullptr;
    if (Status st = record(s, &e); !st.ok()) return st;
    return cuda_status("cudaStreamWaitEvent", cudaStreamWaitEvent(waiter, e, 0));
  }

 private:
  std::vector<cudaEvent_t> events_;
};

// The call's scratch (the gathered A, the partials): the communication stream's workspace
// (api/stream_workspace: grow-only, kept between calls, grown only after that stream is idle;
// every call starts with the communication stream waiting for the caller's, so that covers the
// caller's use too). Inside a CUDA graph capture, a stream-ordered allocation of the graph's own
// (*owned: freed on `stream` at the end of the call).
Status call_buffer(cudaStream_t stream, cudaStream_t comm, size_t bytes, uint8_t** out, bool* owned) {
  *out = nullptr;
  *owned = false;
  if (bytes == 0) return Status::success();
  int device = 0;
  if (Status s = cuda_status("cudaGetDevice", cudaGetDevice(&device)); !s.ok()) return s;
  if (void* ws = ::tilegemm::detail::stream_workspace(device, comm, bytes, bytes, 0); ws != nullptr) {
    *out = static_cast<uint8_t*>(ws);
    return Status::success();
  }
  *owned = true;
  return cuda_status("cudaMallocAsync (the call's scratch)", cudaMallocAsync(reinterpret_cast<void**>(out), bytes, stream));
}

// The GEMM every step runs: the configuration chosen once for the whole problem, without a
// k-split, and the tile's extent along D's rows (the m-block of the chunk schedule).
struct StepPlan {
  GemmOptions options;
  int block_rows = 128;
};

Status plan_steps(const GemmArgs& whole, const Overlap& overlap, StepPlan* out) {
  if (overlap.reserved_sms > 0) {
    int device = 0, sms = 0;
    if (Status s = cuda_status("cudaGetDevice", cudaGetDevice(&device)); !s.ok()) return s;
    if (Status s = cuda_status("cudaDeviceGetAttribute",
                               cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        !s.ok())
      return s;
    if (overlap.reserved_sms >= sms)
      return invalid("overlap.reserved_sms", "overlap.reserved_sms = " + std::to_string(overlap.reserved_sms) +
                                                 " leaves none of the device's " + std::to_string(sms) +
                                                 " SMs to the GEMM");
    out->options.max_ctas = sms - overlap.reserved_sms;
  }
  // Chosen for the SMs the GEMM may hold (max_ctas: planned for them, persistent).
  LaunchChoice choice;
  if (Status s = choose_launch(whole, out->options, &choice); !s.ok()) return s;
  if (choice.route.path == Path::sm90) {
    plan::Config c = choice.config;
    c.split_k = 1;
    c.cluster_k = 1;
    c.stream_k = false;
    out->options.config = c;
    out->options.config_stages_given = true;
    out->options.config_ignore_preferences = true;
    // The kernel computes Dᵀ when D is column-major (route) and again with swap-AB (d_col_major):
    // D's rows then run along the kernel's N.
    out->block_rows = choice.route.transposed != c.d_col_major ? c.bn : c.bm;
  }
  return Status::success();
}

// One step's GEMM with the plan's configuration; where that configuration cannot take the step's
// rows (a rule of the kernel, not a preference), the planner's own choice for them.
Status step_gemm(const GemmArgs& args, const StepPlan& plan) {
  Status s = gemm_with_options(args, plan.options);
  if (s.code == ErrorCode::invalid_argument && s.argument == "config") {
    GemmOptions planner = plan.options;
    planner.config.reset();
    s = gemm_with_options(args, planner);
  }
  return s;
}

// The m-block ranges of every step; false when the schedule has no contiguous ranges (never for
// the two collectives; the caller then runs the steps unoverlapped).
bool step_ranges(int64_t m, int world, int rank, int block_rows, sched::TpCollective kind,
                 sched::TpStepRanges<kMaxWorld>* out) {
  sched::TpChunkSchedule s;
  s.chunks = sched::RowChunks{m, world};
  s.rank = rank;
  s.block_m = block_rows;
  s.kind = kind;
  return m > 0 && sched::tp_step_ranges(s, *out);
}

}  // namespace

Status run_all_gather_gemm(Transport& t, const AllGatherGemmArgs& args, bool comm_only) {
  const int world = t.world(), rank = t.rank();
  if (Status s = validate_all_gather_gemm(args, rank, world); !s.ok()) return s;
  if (Status s = check_device(); !s.ok()) return s;
  const int64_t m = args.m, k = args.a_shard.cols;
  const size_t row_bytes = size_t(k) * 2;
  const RowRange own = chunk_rows(m, world, rank);
  const cudaStream_t stream = args.stream;
  cudaStream_t comm = nullptr;
  if (Status s = comm_stream(stream, &comm); !s.ok()) return s;

  Events events;
  if (Status s = events.join(comm, stream); !s.ok()) return s;  // the transfers start after what S has
  // The gathered A: the caller's, or the call's scratch (not needed with one rank).
  uint8_t* gathered = static_cast<uint8_t*>(args.a_gathered.ptr);
  bool owned = false;
  if (gathered == nullptr && world > 1)
    if (Status s = call_buffer(stream, comm, size_t(m) * row_bytes, &gathered, &owned); !s.ok()) return s;
  const GemmArgs whole = gathered_problem(args, world == 1 ? args.a_shard.ptr : gathered);
  StepPlan plan;
  Status status = plan_steps(whole, args.overlap, &plan);

  std::vector<cudaEvent_t> landed(size_t(world), nullptr);  // on comm: chunks of steps <= s are in
  if (status.ok() && gathered != nullptr && own.size() > 0 && args.a_shard.ptr != gathered + own.begin * row_bytes) {
    // The own chunk into the gathered A, by a kernel (a copy engine moves ~250 GB/s; this is in
    // front of the first transfer).
    ReduceArgs copy;
    copy.src[0] = args.a_shard.ptr;
    copy.count = 1;
    copy.rows = own.size();
    copy.cols = copy.src_ld = copy.d_ld = k;
    copy.d = gathered + own.begin * row_bytes;
    status = cuda_status("copying the own chunk", launch_reduce(copy, comm));
  }
  for (int step = 1; status.ok() && step < world; ++step) {
    const int from = (rank + step) % world, to = (rank - step + world) % world;
    const RowRange in = chunk_rows(m, world, from);
    status = t.exchange(args.a_shard.ptr, own.size() * row_bytes, to, gathered + in.begin * row_bytes,
                        in.size() * row_bytes, from, comm);
    if (status.ok()) status = events.record(comm, &landed[size_t(step)]);
  }

  sched::TpStepRanges<kMaxWorld> ranges;
  const bool overlapped = args.overlap.enabled && world > 1 &&
                          step_ranges(m, world, rank, plan.block_rows, sched::TpCollective::all_gather, &ranges);
  if (!overlapped) plan.options.max_ctas = 0;  // nothing runs beside the GEMM: all SMs
  if (status.ok() && !overlapped && !comm_only) {  // the whole collective, then one GEMM
    if (world > 1) status = events.join(stream, comm);  // one rank: the GEMM reads a_shard itself
    if (status.ok()) status = step_gemm(whole, plan);
  }
  for (int step = 0; status.ok() && overlapped && !comm_only && step < world; ++step) {
    const int64_t r0 = int64_t(ranges.first[step]) * plan.block_rows;
    const int64_t r1 = std::min<int64_t>(int64_t(ranges.end[step]) * plan.block_rows, m);
    if (r1 <= r0) continue;
    GemmArgs part = whole;
    if (step == 0) {  // rows of the own chunk only: read where they are
      part.a = row_slice(args.a_shard, r0 - own.begin, r1 - own.begin);
    } else {
      status = cuda_status("cudaStreamWaitEvent", cudaStreamWaitEvent(stream, landed[size_t(step)], 0));
      part.a = row_slice(whole.a, r0, r1);
    }
    part.d = row_slice(args.d, r0, r1);
    MatrixRef c_rows;
    if (args.c != nullptr) {
      c_rows = row_slice(*args.c, r0, r1);
      part.c = &c_rows;
    }
    if (status.ok()) status = step_gemm(part, plan);
  }
  // The caller's stream goes on once every transfer is done (the own chunk may then be reused).
  if (status.ok()) status = events.join(stream, comm);
  if (owned) {
    const Status freed = cuda_status("cudaFreeAsync (the call's scratch)", cudaFreeAsync(gathered, stream));
    if (status.ok()) status = freed;
  }
  return status;
}

Status run_gemm_reduce_scatter(Transport& t, const GemmReduceScatterArgs& args, bool comm_only) {
  const int world = t.world(), rank = t.rank();
  if (Status s = validate_gemm_reduce_scatter(args, rank, world); !s.ok()) return s;
  if (Status s = check_device(); !s.ok()) return s;
  const cudaStream_t stream = args.stream;
  if (world == 1 && !comm_only) {  // nothing to send: D = alpha·A·Bᵀ + beta·C
    GemmArgs g{args.a, args.b, args.c, args.d, args.alpha, args.beta, stream};
    return gemm(g);
  }
  const int64_t m = args.a.rows, n = args.b.rows;
  const RowRange own = chunk_rows(m, world, rank);
  const size_t es = size_t(dtype_bytes(args.partial_dtype));
  const size_t partial_bytes = size_t(m) * size_t(n) * es;
  const size_t slot_bytes = size_t(own.size()) * size_t(n) * es;
  const size_t slots_offset = (partial_bytes + 255) / 256 * 256;
  const size_t total = slots_offset + size_t(world - 1) * slot_bytes;
  cudaStream_t comm = nullptr;
  if (Status s = comm_stream(stream, &comm); !s.ok()) return s;
  Events events;
  if (Status s = events.join(comm, stream); !s.ok()) return s;  // see call_buffer
  uint8_t* buffer = nullptr;
  bool owned = false;
  if (Status s = call_buffer(stream, comm, total, &buffer, &owned); !s.ok()) return s;
  const auto slot = [&](int q) { return buffer + slots_offset + size_t(q < rank ? q : q - 1) * slot_bytes; };
  const auto partial_rows = [&](int64_t row) { return buffer + size_t(row) * size_t(n) * es; };

  const GemmArgs whole = partial_problem(args, buffer);
  StepPlan plan;
  Status status = plan_steps(whole, args.overlap, &plan);

  std::vector<cudaEvent_t> done(size_t(world), nullptr);  // on stream: chunks departing at <= s complete
  sched::TpStepRanges<kMaxWorld> ranges;
  const bool overlapped = args.overlap.enabled &&
                          step_ranges(m, world, rank, plan.block_rows, sched::TpCollective::reduce_scatter, &ranges);
  if (!overlapped) plan.options.max_ctas = 0;  // nothing runs beside the GEMM: all SMs
  if (status.ok() && !overlapped) {
    if (!comm_only) status = step_gemm(whole, plan);
    if (status.ok()) status = events.record(stream, &done[0]);
    for (int s = 1; s < world; ++s) done[size_t(s)] = done[0];
  }
  for (int step = 0; status.ok() && overlapped && step < world; ++step) {
    const int64_t r0 = int64_t(ranges.first[step]) * plan.block_rows;
    const int64_t r1 = std::min<int64_t>(int64_t(ranges.end[step]) * plan.block_rows, m);
    if (r1 > r0 && !comm_only) {
      GemmArgs part = whole;
      part.a = row_slice(args.a, r0, r1);
      part.d = row_slice(whole.d, r0, r1);
      status = step_gemm(part, plan);
    }
    if (status.ok()) status = events.record(stream, &done[size_t(step)]);
  }
  for (int step = 0; status.ok() && step + 1 < world; ++step) {
    const int to = (rank + 1 + step) % world, from = (rank - 1 - step + 2 * world) % world;
    const RowRange out = chunk_rows(m, world, to);
    status = cuda_status("cudaStreamWaitEvent", cudaStreamWaitEvent(comm, done[size_t(step)], 0));
    if (status.ok())
      status = t.exchange(partial_rows(out.begin), size_t(out.size()) * size_t(n) * es, to, slot(from), slot_bytes,
                          from, comm);
  }
  if (status.ok()) status = events.join(stream, comm);
  if (status.ok()) {
    ReduceArgs r;
    for (int q = 0; q < world; ++q) r.src[q] = q == rank ? partial_rows(own.begin) : slot(q);
    r.count = world;
    r.src_dtype = args.partial_dtype;
    r.rows = own.size();
    r.cols = n;
    r.src_ld = n;
    r.d = args.d.ptr;
    r.d_ld = args.d.ld;
    r.d_col_major = args.d.major == Major::mn_major;
    r.d_dtype = args.d.dtype;
    if (args.c != nullptr && args.beta != 0.0f) {
      r.c = args.c->ptr;
      r.c_ld = args.c->ld;
      r.c_col_major = args.c->major == Major::mn_major;
      r.c_dtype = args.c->dtype;
      r.beta = args.beta;
    }
    status = cuda_status("the reduce-scatter's sum", launch_reduce(r, stream));
  }
  if (owned) {
    const Status freed = cuda_status("cudaFreeAsync (the call's scratch)", cudaFreeAsync(buffer, stream));
    if (status.ok()) status = freed;
  }
  return status;
}

}  // namespace detail

// ---- the public entry points over NCCL ----------------------------------------------------------

Status all_gather_gemm(ncclComm* comm, const AllGatherGemmArgs& args) {
  detail::NcclTransport t;
  if (Status s = detail::NcclTransport::make(comm, &t); !s.ok()) return s;
  return detail::run_all_gather_gemm(t, args);
}

Status gemm_reduce_scatter(ncclComm* comm, const GemmReduceScatterArgs& args) {
  detail::NcclTransport t;
  if (Status s = detail::NcclTransport::make(comm, &t); !s.ok()) return s;
  return detail::run_gemm_reduce_scatter(t, args);
}

}  // namespace tilegemm::tp
