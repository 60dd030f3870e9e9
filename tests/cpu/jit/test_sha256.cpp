// SHA-256 against the FIPS 180-4 examples (NIST "Cryptographic Standards and Guidelines: Examples
// with Intermediate Values", SHA-256) and the one-million-'a' vector, plus the property that
// feeding the message in pieces gives the same digest as feeding it at once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit/sha256.hpp"

namespace tilegemm::jit {
namespace {

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(to_hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(to_hex(sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnop"
                          "qrsmnopqrstnopqrstu")),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  Sha256 h;
  const std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) h.update(chunk);
  EXPECT_EQ(to_hex(h.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Every message length around the padding boundaries (55/56/64 bytes), split at every point.
TEST(Sha256, PiecewiseEqualsWhole) {
  std::string msg;
  for (int i = 0; i < 200; ++i) msg.push_back(static_cast<char>('A' + (i * 7) % 53));
  for (size_t len = 0; len <= 130; ++len) {
    const std::string m = msg.substr(0, len);
    const Digest whole = sha256(m);
    for (size_t cut = 0; cut <= len; cut += (len < 70 ? 1 : 13)) {
      Sha256 h;
      h.update(m.substr(0, cut));
      h.update(m.substr(cut));
      ASSERT_EQ(h.finish(), whole) << "length " << len << " cut at " << cut;
    }
  }
}

TEST(Sha256, DifferentInputsDiffer) {
  EXPECT_NE(sha256("abc"), sha256("abd"));
  EXPECT_NE(sha256(std::string(64, '\0')), sha256(std::string(65, '\0')));
}

}  // namespace
}  // namespace tilegemm::jit
