// The embedded headers are the source files byte for byte, their digest is the one the manifest
// rule in embed_headers.cmake defines (recomputed here with the library's SHA-256, which also
// checks it against CMake's), and both ways of embedding (raw string, \xNN escapes) are in use.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "jit/embedded_headers.hpp"
#include "jit/sha256.hpp"

namespace tilegemm::jit {
namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(EmbeddedHeaders, TextsAreTheSourceFiles) {
  ASSERT_FALSE(embedded_headers().empty());
  for (const EmbeddedHeader& h : embedded_headers()) {
    // The include path of the embedding: src/, then include/ (the public types header).
    std::string file = read_bytes(std::string(TILEGEMM_SOURCE_DIR) + "/src/" + std::string(h.name));
    if (file.empty()) file = read_bytes(std::string(TILEGEMM_SOURCE_DIR) + "/include/" + std::string(h.name));
    ASSERT_FALSE(file.empty()) << h.name;
    EXPECT_EQ(std::string(h.text), file) << h.name;
  }
}

TEST(EmbeddedHeaders, DigestFollowsTheManifestRule) {
  std::string manifest;
  for (const EmbeddedHeader& h : embedded_headers())
    manifest += std::string(h.name) + "\n" + std::to_string(h.text.size()) + "\n" + to_hex(sha256(h.text)) + "\n";
  EXPECT_EQ(embedded_headers_digest(), to_hex(sha256(manifest)));
}

TEST(EmbeddedHeaders, BothEncodingsAreExercised) {
  bool with_delimiter = false, without = false;
  for (const EmbeddedHeader& h : embedded_headers())
    (h.text.find(")tg_embed\"") != std::string_view::npos ? with_delimiter : without) = true;
  EXPECT_TRUE(with_delimiter) << "probe_kernel.cuh should hold the delimiter (byte-escape path)";
  EXPECT_TRUE(without);
}

TEST(EmbeddedHeaders, NamesAreUniqueAndRelative) {
  const auto headers = embedded_headers();
  for (size_t i = 0; i < headers.size(); ++i) {
    EXPECT_NE(headers[i].name.front(), '/') << headers[i].name;
    for (size_t j = i + 1; j < headers.size(); ++j) EXPECT_NE(headers[i].name, headers[j].name);
  }
}

}  // namespace
}  // namespace tilegemm::jit
