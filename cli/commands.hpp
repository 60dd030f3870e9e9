// Each `tilegemm` subcommand lives in its own cli/cmd_<name>.cpp and registers itself here.
// A command reports failure by throwing CLI::RuntimeError(exit_code) after printing its message.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "bench/suite.hpp"

namespace tilegemm::cli {

void add_info_command(CLI::App& app);     // cmd_info.cpp    device facts
void add_bench_command(CLI::App& app);    // cmd_bench.cpp   tilegemm vs cuBLASLt
void add_ladder_command(CLI::App& app);   // cmd_ladder.cpp  teaching kernels
void add_map_command(CLI::App& app);      // cmd_map.cpp     tile-mapping explorer
void add_explain_command(CLI::App& app);  // cmd_explain.cpp planner explanation
void add_warmup_command(CLI::App& app);   // cmd_warmup.cpp  precompile the JIT kernels
void add_overhead_command(CLI::App& app); // cmd_overhead.cpp host cost of a call vs cuBLASLt
void add_copy_rate_command(CLI::App& app); // cmd_copy_rate.cpp operand copies over the GPU and on P SMs
void add_serve_command(CLI::App& app);    // cmd_serve.cpp   the explorer page (HTTP)
void add_fuzz_command(CLI::App& app);     // cmd_fuzz.cpp    random problems checked on the GPU
void add_trace_command(CLI::App& app);    // cmd_trace.cpp   kernel timelines (recorded by trace/record.hpp)
void add_tune_command(CLI::App& app);     // cmd_tune.cpp    measured autotuner (tune_report.cpp: output)
void add_tp_bench_command(CLI::App& app); // cmd_tp_bench.cpp tensor-parallel GEMM over NCCL, overlapped vs not
// The default action (no subcommand): the demo. Defined in cmd_bench.cpp.
int run_demo();

// Bad input: "tilegemm <command>: <message>" on stderr, exit code 2.
[[noreturn]] inline void usage_error(const char* command, const std::string& message) {
  std::fprintf(stderr, "tilegemm %s: %s\n", command, message.c_str());
  throw CLI::RuntimeError(2);
}

// An option given with an empty value ("--svg ''") is a usage error, never "not given": main.cpp
// puts this check on every option of every command that takes a value.
inline CLI::Validator non_empty_value() {
  return CLI::Validator([](std::string& value) { return value.empty() ? std::string("the value is empty") : ""; },
                        "", "NONEMPTY");
}

// A whole number that fits int64_t. CLI11 reads int64_t options with strtoll, which clamps an
// out-of-range value to INT64_MAX without a word; this check refuses it instead, so the command
// never runs on a number the user did not type. Put it on every int64_t option.
inline CLI::Validator whole_int64() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) return "the value is empty";
        int64_t v = 0;
        const char* first = value.data() + (!value.empty() && value[0] == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(first, value.data() + value.size(), v);
        if (ec == std::errc::result_out_of_range)
          return value + " does not fit a 64-bit integer (at most 9223372036854775807)";
        if (ec != std::errc{} || end != value.data() + value.size()) return value + " is not a whole number";
        return "";
      },
      "INT64", "INT64");
}

// The --suite option's help: a file, or one of the builtin suites (bench/suites/*.txt compiled in),
// listed as the library has them; `default_name` (if not empty) is marked as the default.
inline std::string suite_option_help(const std::string& default_name) {
  std::string help = "Suite file (one 'M N K' per line) or builtin name:";
  const char* sep = " ";
  for (const std::string& name : bench::builtin_suite_names()) {
    help += sep + name + (name == default_name ? " (default)" : "");
    sep = ", ";
  }
  return help;
}

}  // namespace tilegemm::cli
