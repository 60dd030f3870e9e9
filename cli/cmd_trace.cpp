// `tilegemm trace M N K [--layout nt|nn|tn|tt] [--dtype bf16|fp32] [--beta B [--c-dtype T]
// [--in-place]] [--d-major row|col] [--alpha A] [--config SPEC] --out trace.json [--html view.html]
// [--json]`: one traced GEMM through the production path (docs/TRACE.md), the call described by
// bench's flags (call_flags.hpp; D's dtype is --dtype here, --out names the trace file). The call runs the traced
// kernel of the config gemm() picks (or --config), is checked against the CPU reference the way
// `tilegemm bench` checks, and its timeline is written as Chrome-trace JSON (Perfetto: a process
// per SM, a thread per warp role; the host's spans and CUPTI's records beside them) and, with
// --html, as a self-contained viewer of the stage-local timeline. Then the traced and the untraced
// kernel are timed alike: the cost of tracing. `--decode RAW` redraws a buffer saved with --raw,
// without a GPU. The recording itself is trace::record_trace (src/trace/record.hpp), which the
// explorer's record endpoint runs too.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "api/route.hpp"
#include "api/trace_capture.hpp"
#include "bench/runner.hpp"
#include "call_flags.hpp"
#include "commands.hpp"
#include "plan/config_spec.hpp"
#include "trace/chrome_trace.hpp"
#include "trace/record.hpp"
#include "trace/viewer.hpp"

namespace tilegemm::cli {
namespace {

constexpr int kExitFailed = 1, kExitUsage = 2, kExitNoHopper = 3;

struct TraceArgs {
  std::vector<int64_t> mnk;
  std::string layout = "nt", config, out, html, raw, decode;
  CallFlags call{.dtype_flag = "--dtype"};  // the call beyond the shape, as bench takes it
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

// The cost of tracing: the recorded config with and without the trace switch, timed alike.
nlohmann::json tracing_overhead(const trace::RecordRequest& rq, const trace::Recording& rec, const TraceArgs& a) {
  detail::GemmOptions untraced;
  untraced.config = rec.config;
  untraced.config->trace = false;
  untraced.config_stages_given = true;
  detail::TraceCapture timing_capture(a.capacity);
  detail::GemmOptions traced = untraced;
  traced.trace = &timing_capture;
  std::string why, method_off, method_on;
  const double off = kernel_time_us(rq.problem, untraced, a, &why, &method_off);
  const double on = off > 0 ? kernel_time_us(rq.problem, traced, a, &why, &method_on) : -1;
  if (off > 0 && on > 0)
    return {{"untraced_us", off}, {"traced_us", on}, {"ratio", on / off}, {"iters", a.iters},
            {"timer", method_on}, {"l2_flushed", true}};
  return {{"error", why}};
}

int run_trace(const TraceArgs& a) {
  const bool decode_only = !a.decode.empty();
  if (!decode_only && a.mnk.size() != 3) usage_error("trace", "give M N K (or --decode RAW)");
  for (int64_t v : a.mnk)
    if (v < 1) usage_error("trace", "M, N and K must be >= 1 (got " + std::to_string(v) + ")");
  trace::RecordRequest rq;
  bench::Case& c = rq.problem;
  if (!bench::parse_layout(a.layout, &c.a_major, &c.b_major)) usage_error("trace", "--layout must be nt, nn, tn or tt");
  if (const auto bad = apply_call_flags(a.call, &c)) usage_error("trace", *bad);
  if (!a.config.empty()) {
    const plan::ParsedConfigSpec spec = plan::parse_config_spec(a.config, "--config");
    if (!spec.ok()) usage_error("trace", spec.error);
    rq.config = spec.spec.config;
    rq.config_stages_given = spec.spec.stages_given;
  }
  rq.lane_capacity = a.capacity;
  rq.warm = !a.cold;
  rq.seed = a.seed;

  // Either a recording (trace/record.hpp) or a saved buffer decoded here.
  trace::Recording rec;
  trace::DecodedTrace& decoded = rec.decoded;
  nlohmann::json& info = rec.info;
  std::string error;
  if (decode_only) {
    std::ifstream f(a.decode, std::ios::binary);
    if (!f) usage_error("trace", "--decode '" + a.decode + "': cannot read the file");
    rec.raw.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    if (!trace::decode_trace(rec.raw.data(), rec.raw.size(), &decoded, &error)) {
      std::fprintf(stderr, "tilegemm trace: %s\n", error.c_str());
      return kExitUsage;
    }
    rec.summary = trace::summarize(decoded);
    rec.invariants = trace::check_invariants(decoded);
    info = {{"schema", trace::kTraceInfoSchema}, {"problem", "decoded from " + a.decode}};
    trace::add_findings(decoded, rec.summary, rec.invariants, -1.0, &info);
  } else {
    c.m = a.mnk[0], c.n = a.mnk[1], c.k = a.mnk[2];
    if (Status s = trace::record_trace(rq, &rec); !s.ok()) {
      std::fprintf(stderr, "tilegemm trace: %s\n", s.message.c_str());
      return s.code == ErrorCode::no_device ? kExitNoHopper : kExitFailed;
    }
    if (a.iters > 0) info["overhead"] = tracing_overhead(rq, rec, a);
  }

  trace::TraceDocument doc;
  doc.device = &decoded;
  doc.device_offset_ns = rec.clock.offset_ns;
  doc.tracks = rec.tracks;
  doc.info = info;
  if (!a.out.empty()) {
    if (a.ctas) doc.max_ctas = a.ctas;
    if (!write_file(a.out, trace::chrome_trace(doc).dump() + "\n")) usage_error("trace", "--out '" + a.out + "': cannot write");
  }
  if (!a.html.empty()) {
    doc.max_ctas = a.html_ctas;
    if (!write_file(a.html, trace::viewer_html(trace::chrome_trace(doc))))
      usage_error("trace", "--html '" + a.html + "': cannot write");
  }
  if (!a.raw.empty()) {
    // With --ctas, only those CTAs (a small fixture from a large run).
    const std::vector<uint8_t> kept = a.ctas ? trace::slice_buffer(rec.raw, a.ctas, &error) : rec.raw;
    if (!write_file(a.raw, std::string(kept.begin(), kept.end()))) usage_error("trace", "--raw '" + a.raw + "': cannot write");
  }

  if (a.json) {
    info.erase("summary_text");
    fmt::print("{}\n", info.dump(2));
  } else {
    fmt::print("tilegemm trace: {}{}\n", info.value("problem", ""), rec.device.empty() ? "" : " on " + rec.device);
    if (!decode_only)
      fmt::print("config: {}; grid {} CTAs; check: {}\n", info.value("config", ""), rec.grid,
                 rec.checked.candidate.verdict());
    fmt::print("{}", info["summary_text"].get<std::string>());
    if (!decode_only) {
      std::string spans;
      for (const auto& s : info["host_spans"])
        spans += fmt::format("{}{} {}", spans.empty() ? "" : ", ", s["name"].get<std::string>(),
                             us(double(s["ns"].get<uint64_t>())));
      fmt::print("host spans: {}\n", spans);
      fmt::print("clock: {}\n", rec.clock.method);
      if (info.contains("launch_to_first_instruction_ns"))
        fmt::print("launch call -> first kernel instruction: {}{}\n",
                   us(double(info["launch_to_first_instruction_ns"].get<int64_t>())),
                   rec.clock.has_cupti_kernel ? " (CUPTI's kernel start)" : "");
      if (rec.clock.last_role_to_kernel_end_ns >= 0)
        fmt::print("last role's end -> kernel end: {} (CUPTI's kernel end)\n",
                   us(double(rec.clock.last_role_to_kernel_end_ns)));
      if (!rec.cupti_note.empty()) fmt::print("{}\n", rec.cupti_note);
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
               rec.invariants.ok() ? std::string("ok") : std::to_string(rec.invariants.count) + " VIOLATIONS",
               rec.invariants.tiles_checked, rec.invariants.kblocks_checked);
    for (const std::string& v : rec.invariants.violations) fmt::print("VIOLATION: {}\n", v);
    for (const std::string& p : decoded.problems) fmt::print("PROBLEM: {}\n", p);
    if (!a.out.empty()) fmt::print("wrote {} (open it in https://ui.perfetto.dev or chrome://tracing)\n", a.out);
    if (!a.html.empty()) fmt::print("wrote {} (first {} CTAs)\n", a.html, a.html_ctas);
  }
  if (!decode_only && !rec.checked.passed()) return kExitFailed;
  return decoded.problems.empty() && rec.invariants.ok() ? 0 : kExitFailed;
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto a = std::make_shared<TraceArgs>();
  CLI::App* cmd = app.add_subcommand("trace", "Trace one GEMM in the production kernel: per-warp-role events, host "
                                              "spans and CUPTI activity as Chrome-trace JSON (docs/TRACE.md)");
  cmd->add_option("mnk", a->mnk, "M N K")->expected(0, 3)->check(whole_int64());
  cmd->add_option("--layout", a->layout, "nt (default), nn, tn, tt (tilegemm bench --help)")
      ->check(CLI::IsMember({"nt", "nn", "tn", "tt"}));
  add_call_flags(cmd, &a->call);
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
