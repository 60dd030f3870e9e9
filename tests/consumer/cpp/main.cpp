// A consumer of the installed C++ API: validate() on a good and a bad argument set, then the
// device check, and tp.hpp's entry points (exported by the same library; a null communicator is
// refused before NCCL is looked for). Without a GPU it prints the no_device line and exits 0; exit 1 only when the
// library answers something other than what the API promises (docs/API.md).
#include <cstdint>
#include <cstdio>

#include <tilegemm/tilegemm.hpp>
#include <tilegemm/tp.hpp>

int main() {
  using namespace tilegemm;
  // validate() makes no CUDA call and reads no memory, so placeholder device addresses do.
  // A: [128, 64] K-major, B: [256, 64] K-major, D: [128, 256] row-major.
  const auto addr = [](uintptr_t v) { return reinterpret_cast<void*>(v); };
  GemmArgs args;
  args.a = {addr(uintptr_t{1} << 32), 128, 64, 64, DType::bf16, Major::k_major};
  args.b = {addr(uintptr_t{2} << 32), 256, 64, 64, DType::bf16, Major::k_major};
  args.d = {addr(uintptr_t{3} << 32), 128, 256, 256, DType::bf16, row_major};
  const Status good = validate(args);
  std::printf("validate(good): %s\n", to_string(good.code));

  args.a.ld = 31;  // shorter than a row of A (K = 64)
  const Status bad = validate(args);
  std::printf("validate(bad): %s: %s: %s\n", to_string(bad.code), bad.argument.c_str(), bad.message.c_str());

  const Status device = check_device();
  std::printf("check_device: %s%s%s\n", to_string(device.code), device.ok() ? "" : ": ", device.message.c_str());
  const tp::RowRange chunk = tp::chunk_rows(1001, 4, 3);
  const Status no_comm = tp::all_gather_gemm(nullptr, tp::AllGatherGemmArgs{});
  std::printf("tp: chunk 3 of 1001 rows / 4 = [%lld, %lld); no communicator: %s: %s\n",
              static_cast<long long>(chunk.begin), static_cast<long long>(chunk.end), no_comm.argument.c_str(),
              no_comm.message.c_str());
  const bool as_promised = good.ok() && bad.code == ErrorCode::invalid_argument && bad.argument == "a.ld" &&
                           (device.ok() || device.code == ErrorCode::no_device) && chunk.begin == 750 &&
                           chunk.end == 1001 && no_comm.code == ErrorCode::invalid_argument &&
                           no_comm.argument == "comm";
  return as_promised ? 0 : 1;
}
