// record_trace (record.hpp): one traced GEMM, checked, decoded and described.
#include "trace/record.hpp"

#include <cuda_runtime_api.h>

#include "api/route.hpp"
#include "api/trace_capture.hpp"
#include "bench/cupti_activity.hpp"
#include "bench/device_info.hpp"
#include "plan/config_spec.hpp"
#include "trace/chrome_trace.hpp"

namespace tilegemm::trace {
namespace {

// The traced call as run_case's candidate: optionally a warm-up call first (so the recorded one
// finds its kernel compiled), then the recorded call inside a CUPTI recording, synchronised.
struct TracedCall {
  detail::GemmOptions options;
  bool warm = true;
  CallWindow window;
  std::vector<bench::ActivityRecord> records;
  std::string cupti_note;

  Status operator()(const GemmArgs& args) {
    // Recording starts before the warm-up: CUPTI's own start-up cost lands on that call.
    std::optional<bench::ActivityRecording> recording;
    recording.emplace();
    if (!recording->ok()) cupti_note = "CUPTI not recorded: " + recording->reason();
    if (warm) {
      if (Status s = detail::gemm_with_options(args, options); !s.ok()) return s;
      if (cudaStreamSynchronize(args.stream) != cudaSuccess) return Status{ErrorCode::cuda_error, "trace", "warm-up"};
    }
    window.call_start_ns = detail::host_clock_ns();
    const Status s = detail::gemm_with_options(args, options);
    window.call_end_ns = detail::host_clock_ns();
    const cudaError_t e = cudaStreamSynchronize(args.stream);
    window.sync_end_ns = detail::host_clock_ns();
    std::string error;
    if (recording->ok() && !recording->finish(&records, &error)) cupti_note = "CUPTI records lost: " + error;
    if (!s.ok()) return s;
    if (e != cudaSuccess)
      return Status{ErrorCode::cuda_error, "trace", std::string("the traced kernel: ") + cudaGetErrorString(e)};
    return Status::success();
  }
};

}  // namespace

void add_findings(const DecodedTrace& t, const TraceSummary& summary, const InvariantReport& invariants,
                  double host_call_to_first_ns, nlohmann::json* info) {
  nlohmann::json& j = *info;
  j["stages"] = t.header.stages;
  j["summary"] = summary_json(summary);
  j["summary_text"] = summary_text(summary, host_call_to_first_ns);
  j["problems"] = t.problems;
  j["invariants"] = {{"violations", invariants.count}, {"first", invariants.violations},
                     {"tiles_checked", invariants.tiles_checked}, {"kblocks_checked", invariants.kblocks_checked}};
}

Status record_trace(const RecordRequest& rq, Recording* out) {
  Recording& r = *out;
  const bench::DeviceInfo dev = bench::probe_device();
  if (!dev.is_sm90())
    return Status{ErrorCode::no_device, "device", "no Hopper (sm_90) GPU found: " + dev.not_sm90_reason()};
  r.device = dev.name + " (" + std::to_string(dev.sm_count) + " SMs)";

  detail::TraceCapture capture(rq.lane_capacity);
  TracedCall call;
  call.options.config = rq.config;
  call.options.config_stages_given = rq.config_stages_given;
  call.options.trace = &capture;
  call.warm = rq.warm;
  bench::RunOptions run;
  run.with_cublas = false;
  run.measure = false;
  run.seed = rq.seed;
  r.checked = bench::run_case(rq.problem, [&call](const GemmArgs& args) { return call(args); }, run);
  if (!r.checked.setup.ok()) return r.checked.setup;
  if (!r.checked.candidate.status.ok()) return r.checked.candidate.status;
  if (Status s = capture.download(&r.raw); !s.ok()) return s;
  r.config = capture.config;
  r.grid = capture.grid;
  r.lane_capacity = capture.lane_capacity;
  r.window = call.window;
  r.cupti_note = call.cupti_note;

  std::string error;
  if (!decode_trace(r.raw.data(), r.raw.size(), &r.decoded, &error))
    return Status{ErrorCode::cuda_error, "trace", "the recorded buffer does not decode: " + error};
  r.summary = summarize(r.decoded);
  r.invariants = check_invariants(r.decoded);

  const std::vector<bench::ActivityRecord> records = records_of_call(call.records, call.window);
  r.clock = align_clocks(r.decoded, call.window, traced_kernel_record(records));
  r.tracks = host_tracks(capture, call.window, records);

  nlohmann::json& info = r.info;
  info = {{"schema", kTraceInfoSchema}};
  info["problem"] = bench::describe(rq.problem);
  info["config"] = plan::describe(capture.config);
  info["device"] = r.device;
  info["check"] = r.checked.candidate.verdict();
  nlohmann::json host = nlohmann::json::array();
  for (const detail::HostSpanRecord& s : capture.spans) {
    host.push_back({{"name", s.name}, {"detail", s.detail}, {"ns", s.end_ns - s.start_ns},
                    {"start_from_call_ns", int64_t(s.start_ns) - int64_t(call.window.call_start_ns)}});
    if (s.name == "launch")
      info["launch_to_first_instruction_ns"] = int64_t(r.summary.first_ns) + r.clock.offset_ns - int64_t(s.start_ns);
  }
  info["host_spans"] = host;
  info["clock"] = {{"method", r.clock.method}, {"offset_ns", r.clock.offset_ns},
                   {"host_call_to_first_instruction_ns", r.clock.host_call_to_first_ns}};
  if (r.clock.has_cupti_kernel) {
    info["clock"]["raw_globaltimer_minus_cupti_ns"] = r.clock.raw_globaltimer_minus_cupti_ns;
    info["clock"]["last_role_to_kernel_end_ns"] = r.clock.last_role_to_kernel_end_ns;
  }
  info["cupti"] = r.cupti_note.empty() ? "recorded" : r.cupti_note;
  info["grid"] = r.grid;
  info["lane_capacity"] = r.lane_capacity;
  add_findings(r.decoded, r.summary, r.invariants, double(r.clock.host_call_to_first_ns), &info);
  return Status::success();
}

uint32_t ctas_within(const DecodedTrace& t, uint32_t max_ctas, uint64_t max_events) {
  uint32_t kept = 0;
  uint64_t events = 0;
  for (uint32_t cta = 0; cta < t.header.ctas && kept < max_ctas; ++cta) {
    uint64_t of_cta = 0;
    for (uint32_t lane = 0; lane < t.header.lanes; ++lane) of_cta += t.lane(cta, lane).events.size();
    if (kept > 0 && events + of_cta > max_events) break;
    events += of_cta;
    ++kept;
  }
  return kept;
}

nlohmann::json recording_document(const Recording& r, uint32_t max_ctas) {
  TraceDocument doc;
  doc.device = &r.decoded;
  doc.device_offset_ns = r.clock.offset_ns;
  doc.tracks = r.tracks;
  doc.info = r.info;
  doc.max_ctas = max_ctas;
  return chrome_trace(doc);
}

}  // namespace tilegemm::trace
