// The files to try, in order, when a shared library the build does not link is dlopen'ed at run
// time (libcupti for the bench's timer, libnccl for tensor parallelism): the override alone when
// one is given; otherwise each soname (the loader's search, which also finds a copy already in the
// process, e.g. PyTorch's), then <root><dir><soname> for every root that is set (trailing slashes
// dropped) and every dir. No duplicates. And dlopen_first(): the first of them that loads and has
// every symbol the caller requires.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace tilegemm {

std::vector<std::string> library_candidates(const char* override_path, std::initializer_list<const char*> sonames,
                                            std::initializer_list<const char*> roots,
                                            std::initializer_list<const char*> dirs);

// What a loader's bind function gets: resolve(&slot, "name") stores the symbol (or nullptr); a
// required one that is missing makes the candidate fail.
class SymbolResolver {
 public:
  explicit SymbolResolver(void* handle) : handle_(handle) {}
  template <typename Fn>
  void operator()(Fn** slot, const char* name, bool required = true) {
    *slot = reinterpret_cast<Fn*>(find(name, required));
  }
  const std::string& missing() const { return missing_; }  // the first required symbol not found

 private:
  void* find(const char* name, bool required);
  void* handle_;
  std::string missing_;
};

// dlopen (RTLD_NOW | RTLD_LOCAL) each candidate in turn and run bind on it; the first with no
// required symbol missing is kept: its handle is returned and *path set (never dlclose'd). The
// others are closed (nothing of them was called). nullptr when none works, with *tried saying
// why for each ("<dlerror>; <file>: no symbol <name>").
void* dlopen_first(const std::vector<std::string>& candidates, const std::function<void(SymbolResolver&)>& bind,
                   std::string* path, std::string* tried);

}  // namespace tilegemm
