// Placeholder: replaced by the real `tilegemm map` implementation.
#include "commands.hpp"
#include <cstdio>

namespace tilegemm::cli {
void add_map_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("map", "(not implemented yet)");
  cmd->callback([] { std::fprintf(stderr, "tilegemm map: not implemented yet\n"); throw CLI::RuntimeError(2); });
}
}  // namespace tilegemm::cli
