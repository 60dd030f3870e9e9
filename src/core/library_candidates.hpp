// The files to try, in order, when a shared library the build does not link is dlopen'ed at run
// time (libcupti for the bench's timer, libnccl for tensor parallelism): the override alone when
// one is given; otherwise each soname (the loader's search, which also finds a copy already in the
// process, e.g. PyTorch's), then <root><dir><soname> for every root that is set (trailing slashes
// dropped) and every dir. No duplicates.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace tilegemm {

std::vector<std::string> library_candidates(const char* override_path, std::initializer_list<const char*> sonames,
                                            std::initializer_list<const char*> roots,
                                            std::initializer_list<const char*> dirs);

}  // namespace tilegemm
