// The project's own declarations of NCCL's C ABI (src/tp/nccl_library.hpp) against the toolkit's
// nccl.h, where one is installed; and the files the loader tries.
#include <gtest/gtest.h>

#include <type_traits>

#include "tp/nccl_library.hpp"

#if __has_include(<nccl.h>)
#include <nccl.h>
#define TILEGEMM_HAVE_NCCL_H 1
#endif

namespace tilegemm::tp::detail {
namespace {

#ifdef TILEGEMM_HAVE_NCCL_H
static_assert(sizeof(ncclResult_t) == sizeof(NcclResult));
static_assert(int(ncclSuccess) == kNcclSuccess);
static_assert(int(ncclInProgress) == kNcclInProgress);
static_assert(int(ncclUint8) == kNcclUint8);
static_assert(sizeof(ncclDataType_t) == sizeof(int));
static_assert(sizeof(ncclUniqueId) == sizeof(NcclUniqueId));
static_assert(sizeof(UniqueId) == sizeof(ncclUniqueId));
static_assert(std::is_same_v<ncclComm_t, ncclComm*>);  // tp.hpp's forward declaration is NCCL's type
#endif

TEST(NcclAbi, DeclarationsMatchTheToolkitHeader) {
#ifndef TILEGEMM_HAVE_NCCL_H
  GTEST_SKIP() << "no nccl.h on this machine: the static_asserts above did not run";
#endif
  SUCCEED();
}

TEST(NcclLibrary, CandidatesOverrideAloneElseSonameThenCudaRoots) {
  EXPECT_EQ(nccl_library_candidates("/opt/nccl/libnccl.so.2", "/cuda", nullptr),
            std::vector<std::string>{"/opt/nccl/libnccl.so.2"});
  const auto c = nccl_library_candidates(nullptr, "/cuda/", "");
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(c[0], "libnccl.so.2");
  EXPECT_EQ(c[1], "libnccl.so");
  EXPECT_EQ(c[2], "/cuda/lib64/libnccl.so.2");
  // /usr/local/cuda comes after the given root, and nothing is listed twice.
  EXPECT_NE(std::find(c.begin(), c.end(), "/usr/local/cuda/targets/x86_64-linux/lib/libnccl.so.2"), c.end());
  for (size_t i = 0; i < c.size(); ++i)
    for (size_t j = i + 1; j < c.size(); ++j) EXPECT_NE(c[i], c[j]);
}

TEST(NcclLibrary, AFileThatIsNotNcclIsNamedInTheReason) {
  NcclLibrary lib;
  std::string reason;
  EXPECT_FALSE(lib.load({"/nonexistent/libnccl.so.2"}, &reason));
  EXPECT_NE(reason.find("/nonexistent/libnccl.so.2"), std::string::npos) << reason;
  EXPECT_NE(reason.find("TILEGEMM_NCCL_LIBRARY"), std::string::npos) << reason;
}

}  // namespace
}  // namespace tilegemm::tp::detail
