// `tilegemm trace M N K [--layout nt|nn|tn|tt] [--config SPEC] --out trace.json [--html view.html]
// [--json]`: one traced GEMM through the production path (docs/TRACE.md). The call runs the traced
// kernel of the config gemm() picks (or --config), is checked against the CPU reference the way
// `tilegemm bench` checks, and its timeline is written as Chrome-trace JSON (Perfetto: a process
// per SM, a thread per warp role; the host's spans and CUPTI's records beside them) and, with
// --html, as a self-contained viewer of the stage-local timeline. Then the traced and the untraced
// kernel are timed alike: the cost of tracing. `--decode RAW` redraws a buffer saved with --raw,
// without a GPU.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "api/route.hpp"
#include "bench/device_info.hpp"
#include "bench/runner.hpp"
#include "commands.hpp"
#include "plan/config_spec.hpp"
#include "trace/invariants.hpp"
#include "trace/summary.hpp"
#include "trace/viewer.hpp"
#include "trace_tracks.hpp"

namespace tilegemm::cli {
namespace {

constexpr int kExitFailed = 1, kExitUsage = 2, kExitNoHopper = 3;

struct TraceArgs {
  std::vector<int64_t> mnk;
  std::string layout = "nt", config, out, html, raw, decode;
  bool json = false, cold = false;
  uint32_t capacity = 0, ctas = 0, html_ctas = 8;
  int iters = 20;
  uint64_t seed = 20261129;
};

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  return bool(f);
}

std::string us(double ns) { return fmt::format("{:.3f} us", ns * 1e-3); }

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

// Median kernel time of `options` on this problem (checked first), or a negative number and *why.
double kernel_time_us(const bench::Case& c, const detail::GemmOptions& options, const TraceArgs& a, std::string* why,
                      std::string* method) {
  bench::RunOptions run;
  run.with_cublas = false;
  run.seed = a.seed;
  run.timing.iters = a.iters;
  run.timing.warmup = 3;
  const bench::CaseResult r = bench::run_case(
      c, [options](const GemmArgs& args) { return detail::gemm_with_options(args, options); }, run);
  if (!r.passed() || !r.candidate.timed) {
    *why = r.setup.ok() ? r.candidate.verdict() : r.setup.message;
    return -1;
  }
  *method = r.candidate.timing.method;
  return r.candidate.timing.median_us;
}

int run_trace(const TraceArgs& a) {
  const bool decode_only = !a.decode.empty();
  if (!decode_only && a.mnk.size() != 3) usage_error("trace", "give M N K (or --decode RAW)");
  for (int64_t v : a.mnk)
    if (v < 1) usage_error("trace", "M, N and K must be >= 1 (got " + std::to_string(v) + ")");
  bench::Case c;
  if (!bench::parse_layout(a.layout, &c.a_major, &c.b_major)) usage_error("trace", "--layout must be nt, nn, tn or tt");
  detail::GemmOptions options;
  if (!a.config.empty()) {
    const plan::ParsedConfigSpec spec = plan::parse_config_spec(a.config, "--config");
    if (!spec.ok()) usage_error("trace", spec.error);
    options.config = spec.spec.config;
    options.config_stages_given = spec.spec.stages_given;
  }

  nlohmann::json info = {{"schema", "tilegemm.trace/1"}};
  std::vector<uint8_t> raw;
  detail::TraceCapture capture(a.capacity);
  TracedCall call;
  bench::CaseResult checked;
  std::string device_name;
  if (decode_only) {
    std::ifstream f(a.decode, std::ios::binary);
    if (!f) usage_error("trace", "--decode '" + a.decode + "': cannot read the file");
    raw.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    info["problem"] = "decoded from " + a.decode;
  } else {
    const bench::DeviceInfo dev = bench::probe_device();
    if (!dev.is_sm90()) {
      std::fprintf(stderr, "tilegemm trace: no Hopper (sm_90) GPU found: %s\n", dev.not_sm90_reason().c_str());
      return kExitNoHopper;
    }
    device_name = dev.name + " (" + std::to_string(dev.sm_count) + " SMs)";
    c.m = a.mnk[0], c.n = a.mnk[1], c.k = a.mnk[2];
    call.options = options;
    call.options.trace = &capture;
    call.warm = !a.cold;
    bench::RunOptions run;
    run.with_cublas = false;
    run.measure = false;
    run.seed = a.seed;
    checked = bench::run_case(c, [&call](const GemmArgs& args) { return call(args); }, run);
    if (!checked.setup.ok() || !checked.candidate.status.ok()) {
      std::fprintf(stderr, "tilegemm trace: %s\n",
                   (checked.setup.ok() ? checked.candidate.status.message : checked.setup.message).c_str());
      return kExitFailed;
    }
    if (Status s = capture.download(&raw); !s.ok()) {
      std::fprintf(stderr, "tilegemm trace: %s\n", s.message.c_str());
      return kExitFailed;
    }
    info["problem"] = bench::describe(c);
    info["config"] = plan::describe(capture.config);
    info["device"] = device_name;
    info["check"] = checked.candidate.verdict();
  }
  trace::DecodedTrace decoded;
  std::string error;
  if (!trace::decode_trace(raw.data(), raw.size(), &decoded, &error)) {
    std::fprintf(stderr, "tilegemm trace: %s\n", error.c_str());
    return decode_only ? kExitUsage : kExitFailed;
  }
  const trace::TraceSummary summary = trace::summarize(decoded);
  const trace::InvariantReport invariants = trace::check_invariants(decoded);
  trace::TraceDocument doc;
  doc.device = &decoded;
  ClockAlignment clock;
  nlohmann::json host = nlohmann::json::array();
  if (!decode_only) {
    const std::vector<bench::ActivityRecord> records = records_of_call(call.records, call.window);
    const bench::ActivityRecord* kernel = traced_kernel_record(records);
    clock = align_clocks(decoded, call.window, kernel);
    doc.device_offset_ns = clock.offset_ns;
    doc.tracks = host_tracks(capture, call.window, records);
    for (const detail::HostSpanRecord& s : capture.spans) {
      host.push_back({{"name", s.name}, {"detail", s.detail}, {"ns", s.end_ns - s.start_ns},
                      {"start_from_call_ns", int64_t(s.start_ns) - int64_t(call.window.call_start_ns)}});
      if (s.name == "launch")
        info["launch_to_first_instruction_ns"] =
            int64_t(summary.first_ns) + clock.offset_ns - int64_t(s.start_ns);
    }
    info["host_spans"] = host;
    info["clock"] = {{"method", clock.method}, {"offset_ns", clock.offset_ns},
                     {"host_call_to_first_instruction_ns", clock.host_call_to_first_ns}};
    if (clock.has_cupti_kernel) info["clock"]["raw_globaltimer_minus_cupti_ns"] = clock.raw_globaltimer_minus_cupti_ns;
    info["cupti"] = call.cupti_note.empty() ? "recorded" : call.cupti_note;
    info["grid"] = capture.grid;
    info["lane_capacity"] = capture.lane_capacity;
  }
  info["stages"] = decoded.header.stages;
  info["summary"] = trace::summary_json(summary);
  info["summary_text"] = trace::summary_text(summary, decode_only ? -1.0 : double(clock.host_call_to_first_ns));
  info["problems"] = decoded.problems;
  info["invariants"] = {{"violations", invariants.count}, {"first", invariants.violations},
                        {"tiles_checked", invariants.tiles_checked}, {"kblocks_checked", invariants.kblocks_checked}};

  // The cost of tracing: the same config with and without the trace switch, timed alike.
  if (!decode_only && a.iters > 0) {
    detail::GemmOptions untraced = options;
    untraced.config = capture.config;
    untraced.config->trace = false;
    untraced.config_stages_given = true;
    detail::TraceCapture timing_capture(a.capacity);
    detail::GemmOptions traced = untraced;
    traced.trace = &timing_capture;
    std::string why, method_off, method_on;
    const double off = kernel_time_us(c, untraced, a, &why, &method_off);
    const double on = off > 0 ? kernel_time_us(c, traced, a, &why, &method_on) : -1;
    if (off > 0 && on > 0)
      info["overhead"] = {{"untraced_us", off}, {"traced_us", on}, {"ratio", on / off}, {"iters", a.iters},
                          {"timer", method_on}, {"l2_flushed", true}};
    else
      info["overhead"] = {{"error", why}};
  }

  if (!a.out.empty()) {
    doc.info = info;
    if (a.ctas) doc.max_ctas = a.ctas;
    if (!write_file(a.out, trace::chrome_trace(doc).dump() + "\n")) usage_error("trace", "--out '" + a.out + "': cannot write");
  }
  if (!a.html.empty()) {
    doc.info = info;
    doc.max_ctas = a.html_ctas;
    if (!write_file(a.html, trace::viewer_html(trace::chrome_trace(doc))))
      usage_error("trace", "--html '" + a.html + "': cannot write");
  }
  if (!a.raw.empty()) {
    // With --ctas, only those CTAs (a small fixture from a large run).
    const std::vector<uint8_t> kept = a.ctas ? trace::slice_buffer(raw, a.ctas, &error) : raw;
    if (!write_file(a.raw, std::string(kept.begin(), kept.end()))) usage_error("trace", "--raw '" + a.raw + "': cannot write");
  }

  if (a.json) {
    info.erase("summary_text");
    fmt::print("{}\n", info.dump(2));
  } else {
    fmt::print("tilegemm trace: {}{}\n", info.value("problem", ""), device_name.empty() ? "" : " on " + device_name);
    if (!decode_only)
      fmt::print("config: {}; grid {} CTAs; check: {}\n", info.value("config", ""), capture.grid,
                 checked.candidate.verdict());
    fmt::print("{}", info["summary_text"].get<std::string>());
    if (!decode_only) {
      std::string spans;
      for (const auto& s : host) spans += fmt::format("{}{} {}", spans.empty() ? "" : ", ", s["name"].get<std::string>(),
                                                      us(double(s["ns"].get<uint64_t>())));
      fmt::print("host spans: {}\n", spans);
      fmt::print("clock: {}", clock.method);
      fmt::print("\n");
      if (info.contains("launch_to_first_instruction_ns"))
        fmt::print("launch call -> first kernel instruction: {}{}\n",
                   us(double(info["launch_to_first_instruction_ns"].get<int64_t>())),
                   clock.has_cupti_kernel ? " (CUPTI's kernel start)" : "");
      if (!call.cupti_note.empty()) fmt::print("{}\n", call.cupti_note);
      if (info.contains("overhead")) {
        const auto& o = info["overhead"];
        if (o.contains("error")) fmt::print("overhead: not measured: {}\n", o["error"].get<std::string>());
        else
          fmt::print("tracing overhead: kernel time {:.1f} us untraced, {:.1f} us traced ({:+.1f}%), median of {} "
                     "({}, L2 flushed)\n", o["untraced_us"].get<double>(), o["traced_us"].get<double>(),
                     100.0 * (o["ratio"].get<double>() - 1.0), a.iters, o["timer"].get<std::string>());
      }
    }
    fmt::print("pipeline order (trace/invariants.hpp): {} over {} tiles and {} k-blocks\n",
               invariants.ok() ? std::string("ok") : std::to_string(invariants.count) + " VIOLATIONS",
               invariants.tiles_checked, invariants.kblocks_checked);
    for (const std::string& v : invariants.violations) fmt::print("VIOLATION: {}\n", v);
    for (const std::string& p : decoded.problems) fmt::print("PROBLEM: {}\n", p);
    if (!a.out.empty()) fmt::print("wrote {} (open it in https://ui.perfetto.dev or chrome://tracing)\n", a.out);
    if (!a.html.empty()) fmt::print("wrote {} (first {} CTAs)\n", a.html, a.html_ctas);
  }
  if (!decode_only && !checked.passed()) return kExitFailed;
  return decoded.problems.empty() && invariants.ok() ? 0 : kExitFailed;
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto a = std::make_shared<TraceArgs>();
  CLI::App* cmd = app.add_subcommand("trace", "Trace one GEMM in the production kernel: per-warp-role events, host "
                                              "spans and CUPTI activity as Chrome-trace JSON (docs/TRACE.md)");
  cmd->add_option("mnk", a->mnk, "M N K")->expected(0, 3)->check(whole_int64());
  cmd->add_option("--layout", a->layout, "nt (default), nn, tn, tt (tilegemm bench --help)")
      ->check(CLI::IsMember({"nt", "nn", "tn", "tt"}));
  cmd->add_option("--config", a->config, "Trace this sm90 configuration instead of the planner's (tilegemm explain --help)");
  cmd->add_option("--out", a->out, "Write the Chrome-trace JSON here (Perfetto, chrome://tracing)")->required();
  cmd->add_option("--html", a->html, "Also write the self-contained HTML viewer here");
  cmd->add_option("--raw", a->raw, "Also write the raw device buffer here (for --decode)");
  cmd->add_option("--decode", a->decode, "Decode a raw buffer written by --raw instead of running (no GPU needed)");
  cmd->add_option("--capacity", a->capacity, "Events per warp-role lane (default: as many as the launch records)")
      ->check(CLI::Range(1u, 1u << 26));
  cmd->add_option("--ctas", a->ctas, "Write only the first N CTAs' lanes to --out and --raw (the summary covers all)")
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--html-ctas", a->html_ctas, "CTAs the HTML viewer holds (default 8)")->check(CLI::Range(1u, 4096u));
  cmd->add_option("--iters", a->iters, "Timed runs of the traced and the untraced kernel (0: skip)")
      ->check(CLI::Range(0, 10000));
  cmd->add_option("--seed", a->seed, "Seed of the random normal inputs");
  cmd->add_flag("--cold", a->cold, "Record the first call (with its JIT compile) instead of a warm one");
  cmd->add_flag("--json", a->json, "Print the document's metadata and summary as JSON");
  cmd->callback([a] {
    if (const int rc = run_trace(*a); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace tilegemm::cli
