// The explorer's page (web/: HTML, JS, CSS), compiled into the binary by embed_web.cmake.
#pragma once

#include <string_view>
#include <vector>

namespace tilegemm::explorer {

struct StaticFile {
  std::string_view path;          // "/index.html", "/explorer.js", ...
  std::string_view content_type;  // from the extension
  std::string_view body;
};

// Every embedded file, in web/'s (sorted) order.
const std::vector<StaticFile>& static_files();
// The file served at `path` ("/" is /index.html), or nullptr.
const StaticFile* find_static_file(std::string_view path);

namespace detail {
struct EmbeddedFile {  // one entry of the generated table, ended by {nullptr, nullptr}
  const char* path;
  const char* text;
};
extern const EmbeddedFile kEmbeddedFiles[];
}  // namespace detail

}  // namespace tilegemm::explorer
