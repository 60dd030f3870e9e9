// SHA-256 (FIPS 180-4, "Secure Hash Standard", section 6.2), for the JIT cache: the cache key of a
// kernel and the checksum of a cache file. Not constant-time; nothing here is secret.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tilegemm::jit {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // Pads and returns the digest; the object must not be updated afterwards.
  Digest finish();

 private:
  void compress(const uint8_t* block);  // one 64-byte block (FIPS 180-4 section 6.2.2)

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

Digest sha256(std::span<const uint8_t> bytes);
Digest sha256(std::string_view text);

// Lower-case hex, 64 characters.
std::string to_hex(const Digest& digest);

}  // namespace tilegemm::jit
