// run_case (runner.hpp): allocate -> fill -> CPU reference -> run + check each side -> time it.
#include "bench/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>

#include "reference/cublaslt.hpp"
#include "reference/device_fill.hpp"
#include "reference/parallel.hpp"

namespace tilegemm::bench {
namespace {

Status cuda_status(const char* what, cudaError_t e) {
  return Status{ErrorCode::cuda_error, "device",
                      std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")"};
}

// Owns one cudaMalloc allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  cudaError_t allocate(size_t bytes) { return cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes); }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};


// Storage of one operand: the MatrixRef the candidate sees and how many elements back it.
struct Storage {
  MatrixRef ref;
  size_t elements = 0;  // ld · (number of contiguous lines)
};

// A [rows, cols] matrix stored `major` with ld = contiguous extent + pad.
Storage layout(int64_t rows, int64_t cols, Major major, DType dtype, int64_t pad) {
  Storage s;
  s.ref.rows = rows;
  s.ref.cols = cols;
  s.ref.major = major;
  s.ref.dtype = dtype;
  const int64_t contiguous = major == Major::k_major ? cols : rows;
  const int64_t lines = major == Major::k_major ? rows : cols;
  s.ref.ld = contiguous + pad;
  s.elements = static_cast<size_t>(s.ref.ld) * static_cast<size_t>(lines);
  return s;
}

// Storage index of logical element (r, c) (the MatrixRef rule).
inline size_t index_of(const MatrixRef& x, int64_t r, int64_t c) {
  return static_cast<size_t>(x.major == Major::k_major ? r * x.ld + c : c * x.ld + r);
}

struct Seeds {
  uint64_t a, b, c;
};
Seeds derive_seeds(uint64_t seed) { return {seed * 4 + 1, seed * 4 + 2, seed * 4 + 3}; }

float round_to(DType t, float v) { return t == DType::bf16 ? __bfloat162float(__float2bfloat16_rn(v)) : v; }

// The CPU reference for `rows` of D (row-major [rows.size()][N]), from the seeds alone.
void host_reference(const Case& cs, const Storage& a, const Storage& b, const Storage* c, const Seeds& seeds,
                    const std::vector<int64_t>& rows, std::vector<float>* out) {
  const int64_t n_rows = static_cast<int64_t>(rows.size()), k = cs.k, n = cs.n;
  // A: only the checked rows, compacted to [rows][K] K-major.
  std::vector<__nv_bfloat16> a_rows(static_cast<size_t>(n_rows * k));
  ref::parallel_for_items(n_rows, [&](int64_t i) {
    for (int64_t kk = 0; kk < k; ++kk)
      a_rows[i * k + kk] = __float2bfloat16_rn(ref::normal_value(seeds.a, index_of(a.ref, rows[i], kk), 1.0f));
  });
  // B: all of it, in its own storage order.
  std::vector<__nv_bfloat16> b_host(b.elements);
  ref::fill_normal_host_bf16(b_host.data(), b_host.size(), seeds.b, 1.0f);
  // C: the checked rows, row-major [rows][N], rounded to C's dtype (with C = D: D's layout and dtype).
  std::vector<float> c_rows;
  if (c != nullptr) {
    c_rows.resize(static_cast<size_t>(n_rows * n));
    ref::parallel_for_items(n_rows, [&](int64_t i) {
      for (int64_t j = 0; j < n; ++j)
        c_rows[i * n + j] = round_to(c->ref.dtype, ref::normal_value(seeds.c, index_of(c->ref, rows[i], j), 1.0f));
    });
  }
  const ref::HostView<__nv_bfloat16> av{a_rows.data(), n_rows, k, k, Major::k_major};
  const ref::HostView<__nv_bfloat16> bv{b_host.data(), n, k, b.ref.ld, b.ref.major};
  const ref::HostView<float> cv{c_rows.data(), n_rows, n, n, row_major};
  out->assign(static_cast<size_t>(n_rows * n), 0.0f);
  ref::cpu_gemm(av, bv, c != nullptr ? &cv : nullptr, cs.alpha, cs.beta, out->data());
}

// Copies D back, scans every logical element for NaN/Inf (the poison), and compares the checked
// rows with the reference.
Status check_output(const Case& cs, const MatrixRef& d, size_t d_elements, const std::vector<int64_t>& rows,
                    const std::vector<float>& reference, ref::CheckResult* result) {
  std::vector<float> host(d_elements);
  if (cudaError_t e = ref::copy_to_host_float(d.ptr, d.dtype == DType::bf16, d_elements, host.data());
      e != cudaSuccess)
    return cuda_status("copy of D to the host", e);
  size_t non_finite = 0;
  for (int64_t r = 0; r < cs.m; ++r)
    for (int64_t c = 0; c < cs.n; ++c) non_finite += std::isfinite(host[index_of(d, r, c)]) ? 0 : 1;
  std::vector<float> got(reference.size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t c = 0; c < cs.n; ++c) got[i * cs.n + c] = host[index_of(d, rows[i], c)];
  *result = ref::check(got.data(), reference.data(), got.size(), cs.out);
  result->non_finite = non_finite;  // over all of D, not only the checked rows
  result->passed = result->passed && non_finite == 0;
  return Status::success();
}

// D before a checked run: poisoned, or with C = D filled with C's values (stream seeds.c).
cudaError_t prepare_d(const Case& cs, const MutMatrixRef& d, size_t d_elements, uint64_t c_seed, cudaStream_t s) {
  if (!cs.in_place) return ref::poison(d.ptr, d_elements, dtype_bytes(d.dtype), s);
  return d.dtype == DType::bf16 ? ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(d.ptr), d_elements, c_seed, 1.0f, s)
                                : ref::fill_normal_f32(static_cast<float*>(d.ptr), d_elements, c_seed, 1.0f, s);
}

// One side (candidate or cuBLASLt): poison D (or give it C's values), run once, check; if it
// passed, time it.
SideResult run_side(const Case& cs, const Launcher& launch, const GemmArgs& args, size_t d_elements, uint64_t c_seed,
                    const std::vector<int64_t>& rows, const std::vector<float>& reference, const RunOptions& opt) {
  SideResult side;
  const cudaStream_t stream = args.stream;
  if (cudaError_t e = prepare_d(cs, args.d, d_elements, c_seed, stream); e != cudaSuccess) {
    side.status = cuda_status(cs.in_place ? "filling D with C's values" : "poison(D)", e);
    return side;
  }
  side.status = launch(args);
  if (!side.status.ok()) return side;
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    side.status = cuda_status("the checked run (cudaStreamSynchronize)", e);
    return side;
  }
  side.status = check_output(cs, args.d, d_elements, rows, reference, &side.check);
  if (!side.status.ok()) return side;
  side.ran = true;
  if (!side.check.passed) return side;  // NOTES: a result that failed its check is never timed
  if (!opt.measure) return side;

  Status launch_error;
  const auto timed_launch = [&](cudaStream_t s) -> cudaError_t {
    GemmArgs a = args;
    a.stream = s;
    launch_error = launch(a);
    return launch_error.ok() ? cudaSuccess : cudaErrorLaunchFailure;
  };
  if (cudaError_t e = time_on_device(timed_launch, opt.timing, stream, &side.timing); e != cudaSuccess) {
    side.status = launch_error.ok() ? cuda_status("time_on_device", e) : launch_error;
    return side;
  }
  side.timed = true;
  side.tflops = tflops(static_cast<double>(cs.m), static_cast<double>(cs.n), static_cast<double>(cs.k),
                       side.timing.median_us);
  side.gbps = gbps(min_bytes(cs), side.timing.median_us);
  return side;
}

Status validate_case(const Case& c) {
  if (c.m < 1 || c.n < 1 || c.k < 1)
    return Status{ErrorCode::invalid_argument, "case",
                        "benchmark cases need M, N, K >= 1 (got " + describe(c) + ")"};
  if (c.out != DType::bf16 && c.out != DType::fp32)
    return Status{ErrorCode::unsupported, "case.out", "benchmark output must be bf16 or fp32"};
  if (c.ld_pad < 0) return Status{ErrorCode::invalid_argument, "case.ld_pad", "ld_pad must be >= 0"};
  if (c.in_place && !c.with_c)
    return Status{ErrorCode::invalid_argument, "case.in_place", "in_place (C is D) needs with_c"};
  return Status::success();
}

// The case set up once: operands allocated and filled, the reference of the checked rows computed,
// the GemmArgs every side runs with.
struct PreparedCase {
  Storage a, b, c, d;
  DeviceBuffer a_buf, b_buf, c_buf, d_buf;
  Seeds seeds{};
  std::vector<int64_t> rows;
  std::vector<float> reference;
  MatrixRef d_as_c;  // C = D: the same matrix
  GemmArgs args;
};

Status prepare_case(const Case& cs, const RunOptions& opt, PreparedCase& pc) {
  if (Status s = validate_case(cs); !s.ok()) return s;
  const cudaStream_t stream = opt.stream;
  pc.seeds = derive_seeds(opt.seed);

  // Operands. A [M, K], B [N, K], C/D [M, N]; ld = contiguous extent + ld_pad.
  pc.a = layout(cs.m, cs.k, cs.a_major, DType::bf16, cs.ld_pad);
  pc.b = layout(cs.n, cs.k, cs.b_major, DType::bf16, cs.ld_pad);
  pc.c = layout(cs.m, cs.n, cs.d_major, cs.c_type(), cs.ld_pad);
  pc.d = layout(cs.m, cs.n, cs.d_major, cs.out, cs.ld_pad);
  const std::pair<DeviceBuffer*, size_t> allocations[] = {
      {&pc.a_buf, pc.a.elements * 2}, {&pc.b_buf, pc.b.elements * 2}, {&pc.d_buf, pc.d.elements * dtype_bytes(cs.out)},
      {&pc.c_buf, cs.with_c && !cs.in_place ? pc.c.elements * dtype_bytes(cs.c_type()) : 0}};
  for (const auto& [buf, bytes] : allocations)
    if (cudaError_t e = buf->allocate(bytes); e != cudaSuccess) return cuda_status("cudaMalloc of the operands", e);
  pc.a.ref.ptr = pc.a_buf.get();
  pc.b.ref.ptr = pc.b_buf.get();
  pc.c.ref.ptr = pc.c_buf.get();
  pc.d.ref.ptr = pc.d_buf.get();

  const Seeds& seeds = pc.seeds;
  cudaError_t e = ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(pc.a_buf.get()), pc.a.elements, seeds.a, 1.0f, stream);
  if (e == cudaSuccess)
    e = ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(pc.b_buf.get()), pc.b.elements, seeds.b, 1.0f, stream);
  if (e == cudaSuccess && cs.with_c && !cs.in_place)
    e = cs.c_type() == DType::bf16
            ? ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(pc.c_buf.get()), pc.c.elements, seeds.c, 1.0f, stream)
            : ref::fill_normal_f32(static_cast<float*>(pc.c_buf.get()), pc.c.elements, seeds.c, 1.0f, stream);
  if (e != cudaSuccess) return cuda_status("filling the inputs", e);

  // The reference, on the host while the GPU fills.
  const double macs = static_cast<double>(cs.m) * static_cast<double>(cs.n) * static_cast<double>(cs.k);
  pc.rows = macs <= opt.full_check_max_macs ? sample_rows(cs.m, static_cast<int>(std::min<int64_t>(cs.m, INT32_MAX)))
                                            : sample_rows(cs.m, opt.sample_rows);
  host_reference(cs, pc.a, pc.b, cs.with_c ? &pc.c : nullptr, seeds, pc.rows, &pc.reference);
  if (e = cudaStreamSynchronize(stream); e != cudaSuccess)
    return cuda_status("filling the inputs (cudaStreamSynchronize)", e);

  GemmArgs& args = pc.args;
  args.a = pc.a.ref;
  args.b = pc.b.ref;
  args.d = MutMatrixRef{pc.d_buf.get(), pc.d.ref.rows, pc.d.ref.cols, pc.d.ref.ld, pc.d.ref.dtype, pc.d.ref.major};
  // C = D: the same matrix (D's layout is C's, so the reference reads the same seeded values).
  pc.d_as_c = args.d;
  args.c = !cs.with_c ? nullptr : cs.in_place ? &pc.d_as_c : &pc.c.ref;
  args.alpha = cs.alpha;
  args.beta = cs.with_c ? cs.beta : 0.0f;
  args.stream = stream;
  return Status::success();
}

}  // namespace

std::string describe(const Case& c) {
  std::string s = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " " +
                  layout_name(c.a_major, c.b_major) + " " + (c.out == DType::bf16 ? "bf16" : "fp32");
  if (c.d_major != row_major) s += " D:col";
  if (c.with_c) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), " +C(alpha %g, beta %g)", c.alpha, c.beta);
    s += buf;
    if (c.in_place) s += " C=D";
    if (c.c_type() != c.out) s += std::string(" C:") + to_string(c.c_type());
  }
  if (c.ld_pad != 0) s += " pad=" + std::to_string(c.ld_pad);
  return s;
}

Launcher launcher_from_cuda(std::function<cudaError_t(const GemmArgs& args)> launch, std::string name) {
  return [launch = std::move(launch), name = std::move(name)](const GemmArgs& args) -> Status {
    const cudaError_t e = launch(args);
    if (e == cudaSuccess) return Status::success();
    return cuda_status(name.c_str(), e);
  };
}

std::string SideResult::verdict() const {
  char buf[256];
  if (!status.ok()) return "ERROR: " + status.message;
  if (!ran) return "not run";
  if (check.passed) return "ok";
  std::snprintf(buf, sizeof(buf), "FAILED (calc_diff %.2e, limit %.0e; %zu mismatches; %zu non-finite)",
                check.calc_diff, check.threshold, check.mismatches, check.non_finite);
  return buf;
}

std::vector<int64_t> sample_rows(int64_t m, int count) {
  std::vector<int64_t> rows;
  if (m <= 0) return rows;
  if (count < 2 || m <= count) {
    if (count < 2 && m > count) return {0, m - 1};
    for (int64_t r = 0; r < m; ++r) rows.push_back(r);
    return rows;
  }
  for (int i = 0; i < count; ++i) {
    const int64_t r = static_cast<int64_t>(std::llround(static_cast<double>(i) * (m - 1) / (count - 1)));
    if (rows.empty() || r != rows.back()) rows.push_back(r);
  }
  return rows;
}

double min_bytes(const Case& c) {
  const double m = static_cast<double>(c.m), n = static_cast<double>(c.n), k = static_cast<double>(c.k);
  const double out = static_cast<double>(dtype_bytes(c.out));
  return 2.0 * (m * k + n * k) + out * m * n + (c.with_c ? dtype_bytes(c.c_type()) * m * n : 0.0);
}

CaseResult run_case(const Case& cs, const Launcher& candidate, const RunOptions& opt) {
  CaseResult result;
  result.problem = cs;
  PreparedCase pc;
  result.setup = prepare_case(cs, opt, pc);
  result.checked_rows = static_cast<int64_t>(pc.rows.size());
  result.sampled = result.checked_rows < cs.m;
  if (!result.setup.ok()) return result;

  result.candidate = run_side(cs, candidate, pc.args, pc.d.elements, pc.seeds.c, pc.rows, pc.reference, opt);
  if (opt.with_cublas) {
    std::unique_ptr<ref::CublasLt> own;
    ref::CublasLt* handle = opt.cublas;
    if (handle == nullptr) {
      own = std::make_unique<ref::CublasLt>();
      handle = own.get();
    }
    const Launcher baseline = [handle](const GemmArgs& x) { return ref::cublaslt_gemm(*handle, x); };
    result.cublas = run_side(cs, baseline, pc.args, pc.d.elements, pc.seeds.c, pc.rows, pc.reference, opt);
  }
  if (result.candidate.timed && result.cublas.timed && result.candidate.timing.median_us > 0)
    result.ratio = result.cublas.timing.median_us / result.candidate.timing.median_us;
  return result;
}

Status run_candidates(const Case& cs, const std::vector<Launcher>& candidates, const RunOptions& opt,
                      const std::function<void(size_t, const SideResult&)>& done, std::vector<SideResult>* out,
                      int64_t* checked_rows) {
  out->clear();
  PreparedCase pc;
  const Status setup = prepare_case(cs, opt, pc);
  if (checked_rows) *checked_rows = static_cast<int64_t>(pc.rows.size());
  if (!setup.ok()) return setup;
  for (size_t i = 0; i < candidates.size(); ++i) {
    out->push_back(run_side(cs, candidates[i], pc.args, pc.d.elements, pc.seeds.c, pc.rows, pc.reference, opt));
    if (done) done(i, out->back());
  }
  return Status::success();
}

}  // namespace tilegemm::bench
