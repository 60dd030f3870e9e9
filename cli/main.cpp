// tilegemm: command-line front end. With no subcommand it runs the demo (the bench suite, or on a
// machine without a Hopper GPU, what it would run and the plan for it).
#include <cstdio>

#include "commands.hpp"

namespace {

// Every option and positional that takes a value, in every command, refuses an empty value.
void refuse_empty_values(CLI::App& app) {
  for (CLI::App* cmd : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : cmd->get_options())
      if (opt->get_type_size_max() > 0) opt->check(tilegemm::cli::non_empty_value());  // 0: a flag
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilegemm: Hopper (sm_90a) BF16 GEMM library and tools"};
  app.require_subcommand(0, 1);
  tilegemm::cli::add_info_command(app);
  tilegemm::cli::add_bench_command(app);
  tilegemm::cli::add_ladder_command(app);
  tilegemm::cli::add_map_command(app);
  tilegemm::cli::add_explain_command(app);
  tilegemm::cli::add_warmup_command(app);
  tilegemm::cli::add_overhead_command(app);
  tilegemm::cli::add_copy_rate_command(app);
  tilegemm::cli::add_serve_command(app);
  tilegemm::cli::add_fuzz_command(app);
  tilegemm::cli::add_trace_command(app);
  tilegemm::cli::add_tune_command(app);
  tilegemm::cli::add_tp_bench_command(app);
  refuse_empty_values(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints the help, or CLI11's message for a parse error
    // A command's own result (CLI::RuntimeError, see commands.hpp) keeps its code; a parse error
    // (bad number, unknown option, missing argument) is a usage error: exit 2, not CLI11's 10x.
    if (dynamic_cast<const CLI::RuntimeError*>(&e) != nullptr || rc == 0) return rc;
    return 2;
  }
  if (app.get_subcommands().empty()) return tilegemm::cli::run_demo();
  return 0;
}
