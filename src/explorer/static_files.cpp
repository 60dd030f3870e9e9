#include "explorer/static_files.hpp"

namespace tilegemm::explorer {

namespace {

std::string_view content_type_of(std::string_view path) {
  auto ends_with = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  if (ends_with(".html")) return "text/html; charset=utf-8";
  if (ends_with(".js")) return "text/javascript; charset=utf-8";
  if (ends_with(".css")) return "text/css; charset=utf-8";
  if (ends_with(".svg")) return "image/svg+xml";
  if (ends_with(".json")) return "application/json";
  return "text/plain; charset=utf-8";
}

std::vector<StaticFile> build_table() {
  std::vector<StaticFile> files;
  for (const detail::EmbeddedFile* f = detail::kEmbeddedFiles; f->path != nullptr; ++f)
    files.push_back(StaticFile{f->path, content_type_of(f->path), f->text});
  return files;
}

}  // namespace

const std::vector<StaticFile>& static_files() {
  static const std::vector<StaticFile> files = build_table();
  return files;
}

const StaticFile* find_static_file(std::string_view path) {
  if (path == "/") path = "/index.html";
  for (const StaticFile& f : static_files())
    if (f.path == path) return &f;
  return nullptr;
}

}  // namespace tilegemm::explorer
