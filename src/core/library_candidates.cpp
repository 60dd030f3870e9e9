// library_candidates(): see library_candidates.hpp.
#include "core/library_candidates.hpp"

#include <dlfcn.h>

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

void* SymbolResolver::find(const char* name, bool required) {
  void* sym = dlsym(handle_, name);
  if (sym == nullptr && required && missing_.empty()) missing_ = name;
  return sym;
}

void* dlopen_first(const std::vector<std::string>& candidates, const std::function<void(SymbolResolver&)>& bind,
                   std::string* path, std::string* tried) {
  tried->clear();
  for (const std::string& candidate : candidates) {
    if (!tried->empty()) *tried += "; ";
    dlerror();
    void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      *tried += e ? std::string(e) : candidate + ": dlopen failed";
      continue;
    }
    SymbolResolver resolver(h);
    bind(resolver);
    if (!resolver.missing().empty()) {
      *tried += candidate + ": no symbol " + resolver.missing();
      dlclose(h);
      continue;
    }
    *path = candidate;
    return h;
  }
  if (tried->empty()) *tried = "nothing";
  return nullptr;
}

}  // namespace tilegemm
