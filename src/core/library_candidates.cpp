// library_candidates(): see library_candidates.hpp.
#include "core/library_candidates.hpp"

#include <algorithm>

namespace tilegemm {

std::vector<std::string> library_candidates(const char* override_path, std::initializer_list<const char*> sonames,
                                            std::initializer_list<const char*> roots,
                                            std::initializer_list<const char*> dirs) {
  std::vector<std::string> out;
  const auto add = [&out](const std::string& p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  if (override_path != nullptr && override_path[0] != '\0') {
    add(override_path);
    return out;
  }
  for (const char* name : sonames) add(name);
  for (const char* root : roots) {
    if (root == nullptr || root[0] == '\0') continue;
    std::string r = root;
    while (r.size() > 1 && r.back() == '/') r.pop_back();
    for (const char* dir : dirs)
      for (const char* name : sonames) add(r + dir + name);
  }
  return out;
}

}  // namespace tilegemm
