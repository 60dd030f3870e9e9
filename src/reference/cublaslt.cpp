// cuBLASLt baseline (cublaslt.hpp).
//
// How a tilegemm problem becomes a cuBLAS call. cuBLAS is column-major: it computes
//   Dc (mc x nc) = alpha · op(X) · op(Y) + beta · Cc,   op(X): mc x K,  op(Y): K x nc.
// Our A [M, K] and B [N, K] are each stored one of two ways, and read column-major they are:
//   K-major  ((r, k) at p[r·ld + k]): a K x rows column-major matrix with leading dimension ld;
//   MN-major ((r, k) at p[k·ld + r]): a rows x K column-major matrix with leading dimension ld.
// D column-major ((m, n) at d[n·ld + m]) already is the M x N column-major Dc, so
//   X = A: op(X) must be A itself (M x K): K-major A -> CUBLAS_OP_T, MN-major A -> CUBLAS_OP_N;
//   Y = Bᵀ: op(Y) must be Bᵀ (K x N):     K-major B -> CUBLAS_OP_N, MN-major B -> CUBLAS_OP_T.
// D row-major ((m, n) at d[m·ld + n]) read column-major is the N x M matrix Dᵀ = B · Aᵀ, so
//   X = B: op(X) = B (N x K):             K-major B -> CUBLAS_OP_T, MN-major B -> CUBLAS_OP_N;
//   Y = Aᵀ: op(Y) = Aᵀ (K x M):           K-major A -> CUBLAS_OP_N, MN-major A -> CUBLAS_OP_T.
// In both cases: the X operand is transposed when K-major, the Y operand when MN-major, and the
// stored shape (K x rows or rows x K) does not depend on the role. C is described with D's shape
// and its own ld, which is only right when C has D's major (and dtype); otherwise C is first copied
// into D and the call runs in place.
#include "reference/cublaslt.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include <cublasLt.h>

#include "reference/matrix_ops.hpp"

namespace tilegemm::ref {
namespace {

Status cublas_failure(const char* call, cublasStatus_t st) {
  return Status{ErrorCode::cuda_error, "cublasLt",
                    std::string(call) + " failed: " + cublasLtGetStatusName(st) + " (" +
                        cublasLtGetStatusString(st) + ")"};
}

Status cuda_failure(const char* call, cudaError_t err) {
  const bool no_device = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver;
  return Status{no_device ? ErrorCode::no_device : ErrorCode::cuda_error, "device",
                    std::string(call) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")"};
}

#define TG_CUBLAS_TRY(call)                                        \
  do {                                                             \
    const cublasStatus_t st_ = (call);                             \
    if (st_ != CUBLAS_STATUS_SUCCESS) return cublas_failure(#call, st_); \
  } while (0)

cudaDataType_t cuda_type(DType t) { return t == DType::bf16 ? CUDA_R_16BF : CUDA_R_32F; }

// Largest power of two (<= 256) dividing the address: what cuBLASLt's alignment preferences mean.
uint32_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  uint32_t a = 256;
  while (a > 1 && v % a != 0) a >>= 1;
  return a;
}

// The stored column-major shape of a [rows, K] operand (see the file comment).
struct Stored {
  uint64_t rows, cols;
  int64_t ld;
};
Stored stored_shape(const MatrixRef& x) {
  const auto r = static_cast<uint64_t>(x.rows), k = static_cast<uint64_t>(x.cols);
  return x.major == Major::k_major ? Stored{k, r, x.ld} : Stored{r, k, x.ld};
}

}  // namespace

// One cached problem: descriptors and the algorithm the heuristic picked for them.
struct CublasLtPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t x = nullptr, y = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  ~CublasLtPlan() {
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (y) cublasLtMatrixLayoutDestroy(y);
    if (x) cublasLtMatrixLayoutDestroy(x);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

// m, n, k, majors of a/b/d, d dtype, lda, ldb, ldc, ldd, alignments of a/b/c/d pointers.
using CublasLtPlanKey = std::array<int64_t, 15>;

struct CublasLt::Impl {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
  int device = -1;
  std::map<CublasLtPlanKey, std::unique_ptr<CublasLtPlan>> plans;

  ~Impl() {
    plans.clear();
    if (workspace) cudaFree(workspace);  // destructor: nothing useful to do with an error
    if (handle) cublasLtDestroy(handle);
  }
};

CublasLt::CublasLt() : impl_(std::make_unique<Impl>()) {}
CublasLt::~CublasLt() = default;

size_t CublasLt::cached_plans() const { return impl_->plans.size(); }
size_t CublasLt::version() { return cublasLtGetVersion(); }
std::string CublasLt::version_string() {
  const size_t v = version();
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

Status CublasLt::init() {
  if (impl_->handle != nullptr) return Status::success();
  int device = -1;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return cuda_failure("cudaGetDevice", e);
  void* workspace = nullptr;
  if (cudaError_t e = cudaMalloc(&workspace, kWorkspaceBytes); e != cudaSuccess)
    return cuda_failure("cudaMalloc(cuBLASLt workspace, 32 MiB)", e);
  cublasLtHandle_t handle = nullptr;
  if (cublasStatus_t st = cublasLtCreate(&handle); st != CUBLAS_STATUS_SUCCESS) {
    cudaFree(workspace);
    return cublas_failure("cublasLtCreate", st);
  }
  impl_->handle = handle;
  impl_->workspace = workspace;
  impl_->device = device;
  return Status::success();
}

namespace {

// Builds the descriptors for one problem and asks the heuristic for its best algorithm.
Status build_plan(cublasLtHandle_t handle, const GemmArgs& args, const MatrixRef& x, const MatrixRef& y,
                  uint64_t mc, uint64_t nc, int64_t ldc, const std::array<uint32_t, 4>& align, CublasLtPlan& plan) {
  const auto k = static_cast<uint64_t>(args.a.cols);
  const cublasOperation_t trans_x = x.major == Major::k_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_y = y.major == Major::k_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  TG_CUBLAS_TRY(cublasLtMatmulDescCreate(&plan.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  TG_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_x, sizeof(trans_x)));
  TG_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_y, sizeof(trans_y)));
  const Stored sx = stored_shape(x), sy = stored_shape(y);
  TG_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&plan.x, CUDA_R_16BF, sx.rows, sx.cols, sx.ld));
  TG_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&plan.y, CUDA_R_16BF, sy.rows, sy.cols, sy.ld));
  const cudaDataType_t out = cuda_type(args.d.dtype);
  TG_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&plan.c, out, mc, nc, ldc));
  TG_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&plan.d, out, mc, nc, args.d.ld));

  cublasLtMatmulPreference_t pref = nullptr;
  TG_CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t workspace = CublasLt::kWorkspaceBytes;
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &workspace, sizeof(workspace));
  const cublasLtMatmulPreferenceAttributes_t align_attr[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4 && st == CUBLAS_STATUS_SUCCESS; ++i)
    st = cublasLtMatmulPreferenceSetAttribute(pref, align_attr[i], &align[i], sizeof(uint32_t));
  if (st != CUBLAS_STATUS_SUCCESS) {
    cublasLtMatmulPreferenceDestroy(pref);
    return cublas_failure("cublasLtMatmulPreferenceSetAttribute", st);
  }
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  st = cublasLtMatmulAlgoGetHeuristic(handle, plan.op, plan.x, plan.y, plan.c, plan.d, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS) return cublas_failure("cublasLtMatmulAlgoGetHeuristic", st);
  if (found == 0)
    return Status{ErrorCode::unsupported, "cublasLt",
                      "cublasLtMatmulAlgoGetHeuristic found no algorithm for M = " + std::to_string(args.a.rows) +
                          ", N = " + std::to_string(args.b.rows) + ", K = " + std::to_string(k)};
  plan.algo = result.algo;
  return Status::success();
}

}  // namespace

Status cublaslt_gemm(CublasLt& h, const GemmArgs& args) {
  // The same rules as tilegemm::gemm (one place: src/api/validate.cpp), so both sides of a
  // comparison accept exactly the same problems.
  if (Status s = validate(args); !s.ok()) return s;
  const int64_t m = args.a.rows, n = args.b.rows, k = args.a.cols;
  if (m == 0 || n == 0) return Status::success();
  if (k == 0) {  // A·Bᵀ is an empty sum: D = beta·C with C, else D = 0 (the public API's rule)
    const bool read_c = args.c != nullptr && args.beta != 0.0f;
    const MatrixRef& src = read_c ? *args.c : args.d;  // with scale 0 the source is not read
    if (cudaError_t e = scale_copy_matrix(src, args.d, read_c ? args.beta : 0.0f, args.stream); e != cudaSuccess)
      return cuda_failure("scale_copy_matrix(D = beta*C, K = 0)", e);
    return Status::success();
  }
  if (Status s = h.init(); !s.ok()) return s;
  CublasLt::Impl& impl = *h.impl_;
  int device = -1;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return cuda_failure("cudaGetDevice", e);
  if (device != impl.device)
    return Status{ErrorCode::invalid_argument, "device",
                      "the cuBLASLt baseline was initialised on device " + std::to_string(impl.device) +
                          " but device " + std::to_string(device) + " is current"};

  // C: used directly when it has D's major and dtype; otherwise copied into D first (in place).
  const bool use_c = args.c != nullptr && args.beta != 0.0f;
  const void* c_ptr = args.d.ptr;
  int64_t ldc = args.d.ld;
  if (use_c && args.c->major == args.d.major && args.c->dtype == args.d.dtype) {
    c_ptr = args.c->ptr;
    ldc = args.c->ld;
  } else if (use_c) {
    if (cudaError_t e = scale_copy_matrix(*args.c, args.d, 1.0f, args.stream); e != cudaSuccess)
      return cuda_failure("scale_copy_matrix(C into D's layout)", e);
  }

  // Column-major D: Dc = A·Bᵀ (X = A, Y = B). Row-major D: Dc = Dᵀ = B·Aᵀ (X = B, Y = A).
  const bool d_col_major = args.d.major == Major::mn_major;
  const MatrixRef& x = d_col_major ? args.a : args.b;
  const MatrixRef& y = d_col_major ? args.b : args.a;
  const uint64_t mc = static_cast<uint64_t>(d_col_major ? m : n);
  const uint64_t nc = static_cast<uint64_t>(d_col_major ? n : m);

  const std::array<uint32_t, 4> align = {alignment_of(x.ptr), alignment_of(y.ptr), alignment_of(c_ptr),
                                         alignment_of(args.d.ptr)};
  const CublasLtPlanKey key = {m, n, k, static_cast<int64_t>(args.a.major), static_cast<int64_t>(args.b.major),
                       static_cast<int64_t>(args.d.major), static_cast<int64_t>(args.d.dtype),
                       args.a.ld, args.b.ld, ldc, args.d.ld, align[0], align[1], align[2], align[3]};
  auto it = impl.plans.find(key);
  if (it == impl.plans.end()) {
    auto plan = std::make_unique<CublasLtPlan>();
    if (Status s = build_plan(impl.handle, args, x, y, mc, nc, ldc, align, *plan); !s.ok()) return s;
    it = impl.plans.emplace(key, std::move(plan)).first;
  }
  const CublasLtPlan& plan = *it->second;
  const float alpha = args.alpha, beta = use_c ? args.beta : 0.0f;
  TG_CUBLAS_TRY(cublasLtMatmul(impl.handle, plan.op, &alpha, x.ptr, plan.x, y.ptr, plan.y, &beta, c_ptr, plan.c,
                               args.d.ptr, plan.d, &plan.algo, impl.workspace,
                               CublasLt::kWorkspaceBytes, args.stream));
  return Status::success();
}

}  // namespace tilegemm::ref
