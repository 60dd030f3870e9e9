// Headers embedded into the library at build time (src/jit/embed_headers.cmake), so that an
// installed library compiles kernels without a source tree: NVRTC receives each text under its
// include name, and nothing else (no include path).
#pragma once

#include <span>
#include <string_view>

namespace tilegemm::jit {

struct EmbeddedHeader {
  std::string_view name;  // include name, relative to the embedding's BASE_DIR: "jit/probe/probe_params.h"
  std::string_view text;  // the file's bytes
};

// A set of headers plus its digest: SHA-256 (hex) of the manifest embed_headers.cmake writes,
// "<name>\n<size>\n<sha256 of text>\n" per header in listed order (test_embedded_headers.cpp
// recomputes it). The digest is part of every cache key.
struct HeaderSet {
  std::span<const EmbeddedHeader> headers;
  std::string_view digest;
};

// The set tilegemm_jit embeds (src/jit/CMakeLists.txt lists it). Generated; defined in
// <build>/src/jit/tilegemm_jit_embedded_headers.cpp.
std::span<const EmbeddedHeader> embedded_headers();
std::string_view embedded_headers_digest();
inline HeaderSet embedded_header_set() { return {embedded_headers(), embedded_headers_digest()}; }

}  // namespace tilegemm::jit
