// Placeholder: replaced by the real `tilegemm explain` implementation.
#include "commands.hpp"
#include <cstdio>

namespace tilegemm::cli {
void add_explain_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("explain", "(not implemented yet)");
  cmd->callback([] { std::fprintf(stderr, "tilegemm explain: not implemented yet\n"); throw CLI::RuntimeError(2); });
}
}  // namespace tilegemm::cli
