// DeepGEMM's layout names, one place for the planner, the bench and the CLI.
// Suffix = storage of A then B, read as in `A @ B`: A "n" is [M][K] (K-major), A "t" is [K][M]
// (MN-major); B "t" is [N][K] (K-major), B "n" is [K][N] (MN-major). So nt = both K-major,
// nn = B MN-major, tn = both MN-major, tt = A MN-major.
#pragma once

#include <string_view>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm {

inline const char* layout_name(Major a_major, Major b_major) {
  const bool a_k = a_major == Major::k_major, b_k = b_major == Major::k_major;
  return a_k ? (b_k ? "nt" : "nn") : (b_k ? "tt" : "tn");
}

// Case-insensitive ("NT" works); false for anything that is not two of n/t.
inline bool parse_layout(std::string_view name, Major* a_major, Major* b_major) {
  if (name.size() != 2) return false;
  const char a = static_cast<char>(name[0] | 0x20), b = static_cast<char>(name[1] | 0x20);
  if ((a != 'n' && a != 't') || (b != 'n' && b != 't')) return false;
  *a_major = a == 'n' ? Major::k_major : Major::mn_major;
  *b_major = b == 't' ? Major::k_major : Major::mn_major;
  return true;
}

}  // namespace tilegemm
