// A cheap structural check of a cubin without a GPU: is it a 64-bit little-endian CUDA ELF for
// the expected SM, with its program and section header tables inside the file?
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tilegemm::jit {

struct CubinHeader {
  int abi_version = 0;    // e_ident[EI_ABIVERSION]
  int sm = 0;             // from e_flags: 90 for sm_90 and sm_90a (the "a" is not in e_flags)
  uint32_t e_flags = 0;
};

// Empty string when `cubin` passes; otherwise what is wrong ("e_machine = 62: not EM_CUDA (190)").
// `expected_sm` <= 0 accepts any SM.
std::string check_cubin_elf(std::span<const uint8_t> cubin, int expected_sm, CubinHeader* out = nullptr);

}  // namespace tilegemm::jit
