// TraceCapture (trace_capture.hpp).
#include "api/trace_capture.hpp"

#include <time.h>

#include <algorithm>
#include <cstring>

#include <cuda_runtime_api.h>

#include "api/sm90_launch.hpp"
#include "core/math.hpp"
#include "schedule/tile_mapping.hpp"
#include "sm90/gemm/traits.cuh"
#include "trace/event.hpp"

namespace tilegemm::detail {
namespace {

// Bytes behind the buffer that the kernel must never touch (checked by download()).
constexpr size_t kGuardBytes = 4096;
constexpr uint8_t kGuardByte = 0x3C;

Status cuda_failure(const char* what, cudaError_t e) {
  return Status{ErrorCode::cuda_error, "trace", std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                                                    cudaGetErrorString(e) + ")"};
}

}  // namespace

uint64_t host_clock_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

TraceCapture::~TraceCapture() {
  if (buffer_ != nullptr) cudaFree(buffer_);
}

void TraceCapture::begin_call() {
  spans.clear();
  launched = false;
}

void TraceCapture::add_span(const char* name, uint64_t start_ns, uint64_t end_ns, std::string detail) {
  spans.push_back(HostSpanRecord{name, start_ns, end_ns, std::move(detail)});
}

uint32_t trace_lane_capacity(const GemmArgs& args, const plan::Config& c, int resident_ctas) {
  const KernelExtents e = kernel_extents(args, c);
  const sched::KSplit ks = sm90::config_k_split(c, e.m, e.n, e.k, resident_ctas);
  const int grid = ks.workers > 0 || c.persistent ? ks.launch_ctas(std::max(resident_ctas, 1)) : ks.tiles;
  const sched::CtaShare busiest = sched::busiest_cta(ks, std::max(grid, 1));
  const int64_t units_per_cta = busiest.units, kb_per_cta = busiest.k_blocks;
  // Per unit: producer = tile; consumer = tile + the epilogue and its parts + the fix-up's partial or
  // sum. Per k-block: producer WAIT EMPTY + TMA issue; consumer WAIT FULL, WGMMA issue, WGMMA wait,
  // release.
  const int64_t boxes = sm90::store_boxes(c.bn, c.out_dtype);
  const int64_t epilogue_parts = c.epilogue == sm90::Epilogue::tma_store ? (sm90::partly_staged(c) ? 3 * boxes : 3) : 1;
  const int64_t per_unit = 1 + 1 + epilogue_parts + 1;
  const int64_t lane = units_per_cta * per_unit + 4 * kb_per_cta + 1;  // + the final store drain
  return uint32_t(std::min<int64_t>(lane, int64_t(UINT32_MAX) / 2));
}

Status TraceCapture::prepare(const GemmArgs& args, const PreparedKernel& prepared) {
  // NOTES: the buffer is initialised and its header copied with a synchronisation in between,
  // which a stream being captured into a CUDA graph cannot do.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(args.stream, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone)
    return Status{ErrorCode::unsupported, "trace", "a traced call cannot be captured into a CUDA graph"};
  config = prepared.config;
  grid = launch_grid(args, prepared);
  lanes = uint32_t(1 + config.consumers());
  lane_capacity = requested_capacity_ ? requested_capacity_ : trace_lane_capacity(args, config, prepared.resident_ctas);
  const trace::BufferHeader header =
      trace::make_buffer_header(uint32_t(grid), lanes, lane_capacity, uint32_t(config.stages), config.pingpong);
  bytes_ = size_t(trace::buffer_bytes(header.ctas, header.lanes, header.lane_capacity));
  if (bytes_ + kGuardBytes > allocated_) {
    if (buffer_ != nullptr) cudaFree(buffer_);
    buffer_ = nullptr;
    allocated_ = 0;
    if (cudaError_t e = cudaMalloc(&buffer_, bytes_ + kGuardBytes); e != cudaSuccess) {
      buffer_ = nullptr;
      return Status{ErrorCode::cuda_error, "trace",
                    "cannot allocate the " + std::to_string(bytes_) + "-byte trace buffer (" + std::to_string(grid) +
                        " CTAs x " + std::to_string(lanes) + " lanes x " + std::to_string(lane_capacity) +
                        " events): " + cudaGetErrorName(e)};
    }
    allocated_ = bytes_ + kGuardBytes;
  }
  // Header, then every lane header zeroed (a lane that never finishes keeps no magic), every event
  // slot filled with the unwritten pattern, the guard behind the buffer with its own.
  uint8_t* base = static_cast<uint8_t*>(buffer_);
  const size_t events_at = size_t(trace::lane_events_offset(header.ctas, lanes, lane_capacity, 0, 0));
  cudaError_t e = cudaMemsetAsync(base + sizeof(header), 0, events_at - sizeof(header), args.stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(base + events_at, trace::kUnwrittenByte, bytes_ - events_at, args.stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(base + bytes_, kGuardByte, kGuardBytes, args.stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(base, &header, sizeof(header), cudaMemcpyHostToDevice, args.stream);
  // NOTES: the header copy reads `header` from this stack frame; wait for it before returning.
  if (e == cudaSuccess) e = cudaStreamSynchronize(args.stream);
  if (e != cudaSuccess) return cuda_failure("initialising the trace buffer", e);
  return Status::success();
}

TraceTarget TraceCapture::target() const { return TraceTarget{buffer_, lane_capacity}; }

Status TraceCapture::download(std::vector<uint8_t>* bytes) const {
  if (!launched || buffer_ == nullptr)
    return Status{ErrorCode::invalid_argument, "trace", "no traced kernel was launched with this capture"};
  std::vector<uint8_t> all(bytes_ + kGuardBytes);
  if (cudaError_t e = cudaMemcpy(all.data(), buffer_, all.size(), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return cuda_failure("copying the trace buffer to the host", e);
  for (size_t i = bytes_; i < all.size(); ++i)
    if (all[i] != kGuardByte)
      return Status{ErrorCode::cuda_error, "trace",
                    "the traced kernel wrote " + std::to_string(i - bytes_) + " bytes past the end of its " +
                        std::to_string(bytes_) + "-byte trace buffer"};
  all.resize(bytes_);
  *bytes = std::move(all);
  return Status::success();
}

}  // namespace tilegemm::detail
