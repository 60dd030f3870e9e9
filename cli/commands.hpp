// Each `tilegemm` subcommand lives in its own cli/cmd_<name>.cpp and registers itself here.
// A command reports failure by throwing CLI::RuntimeError(exit_code) after printing its message.
#pragma once

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

namespace tilegemm::cli {

void add_info_command(CLI::App& app);     // cmd_info.cpp    device facts
void add_bench_command(CLI::App& app);    // cmd_bench.cpp   tilegemm vs cuBLASLt
void add_ladder_command(CLI::App& app);   // cmd_ladder.cpp  teaching kernels
void add_map_command(CLI::App& app);      // cmd_map.cpp     tile-mapping explorer
void add_explain_command(CLI::App& app);  // cmd_explain.cpp planner explanation
void add_warmup_command(CLI::App& app);   // cmd_warmup.cpp  precompile the JIT kernels
void add_overhead_command(CLI::App& app); // cmd_overhead.cpp host cost of a call vs cuBLASLt
void add_serve_command(CLI::App& app);    // cmd_serve.cpp   the explorer page (HTTP)
// The default action (no subcommand): the demo. Defined in cmd_bench.cpp.
int run_demo();

// Bad input: "tilegemm <command>: <message>" on stderr, exit code 2.
[[noreturn]] inline void usage_error(const char* command, const std::string& message) {
  std::fprintf(stderr, "tilegemm %s: %s\n", command, message.c_str());
  throw CLI::RuntimeError(2);
}

}  // namespace tilegemm::cli
