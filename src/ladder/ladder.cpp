// The ladder's registry: each step file defines one `Step` constant; this file lists them in order.
#include "ladder/ladder.hpp"

#include <array>

namespace tilegemm::ladder {

extern const Step kStep01, kStep02, kStep03, kStep04, kStep05, kStep06, kStep07, kStep08, kStep09;

std::span<const Step> steps() {
  static const std::array<Step, 9> all{kStep01, kStep02, kStep03, kStep04, kStep05,
                                       kStep06, kStep07, kStep08, kStep09};
  return all;
}

const Step* find_step(int number) {
  for (const Step& s : steps())
    if (s.number == number) return &s;
  return nullptr;
}

std::string require_multiple(const char* what, int value, int multiple) {
  if (value > 0 && value % multiple == 0) return {};
  return std::string(what) + " must be a positive multiple of " + std::to_string(multiple) +
         " (got " + std::to_string(value) + ")";
}

std::string require_tile_multiples(int m, int n, int k, int tile_m, int tile_n, int tile_k) {
  std::string e = require_multiple("M", m, tile_m);
  if (e.empty()) e = require_multiple("N", n, tile_n);
  if (e.empty()) e = require_multiple("K", k, tile_k);
  return e;
}

std::string require_equal(const char* what, int value, int expected) {
  if (value == expected) return {};
  return std::string(what) + " must be " + std::to_string(expected) + " (got " + std::to_string(value) + ")";
}

}  // namespace tilegemm::ladder
