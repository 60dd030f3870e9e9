// ELF64 header fields from the System V ABI (gABI, "ELF Header"); the CUDA values from LLVM's
// llvm/include/llvm/BinaryFormat/ELF.h: EM_CUDA = 190, ELFOSABI_CUDA = 51 and 65 (0x41), and the
// SM number in e_flags: the low byte (EF_CUDA_SM) for ELF ABI version 7, bits 8-15
// (EF_CUDA_SM_MASK = 0xff00, EF_CUDA_SM_OFFSET = 8) for ABI version 8, which NVRTC 13.0 writes.
#include "jit/cubin_elf.hpp"

#include <cstring>

namespace tilegemm::jit {
namespace {

constexpr size_t kElf64HeaderBytes = 64;
constexpr size_t kElf64SectionHeaderBytes = 64;
constexpr uint16_t kEmCuda = 190;
constexpr uint32_t kShtNobits = 8;  // a section that occupies no file bytes (.bss, .nv.shared.*)

template <typename T>
T read_le(std::span<const uint8_t> b, size_t offset) {  // caller checked the bounds
  T v{};
  std::memcpy(&v, b.data() + offset, sizeof(T));  // x86-64 and aarch64 hosts are little-endian
  return v;
}

// [offset, offset + count * entry) inside the file?
bool table_fits(uint64_t offset, uint64_t count, uint64_t entry, uint64_t file_bytes) {
  if (count == 0) return true;
  if (offset > file_bytes || entry == 0) return false;
  return count <= (file_bytes - offset) / entry;
}

}  // namespace

std::string check_cubin_elf(std::span<const uint8_t> cubin, int expected_sm, CubinHeader* out) {
  const auto n = std::to_string(cubin.size());
  if (cubin.size() < kElf64HeaderBytes)
    return "size = " + n + " bytes: shorter than an ELF64 header (64 bytes)";
  if (cubin[0] != 0x7f || cubin[1] != 'E' || cubin[2] != 'L' || cubin[3] != 'F')
    return "magic = " + std::to_string(cubin[0]) + "," + std::to_string(cubin[1]) + "," +
           std::to_string(cubin[2]) + "," + std::to_string(cubin[3]) + ": not \\x7fELF";
  if (cubin[4] != 2) return "EI_CLASS = " + std::to_string(cubin[4]) + ": not ELFCLASS64 (2)";
  if (cubin[5] != 1) return "EI_DATA = " + std::to_string(cubin[5]) + ": not little-endian (1)";
  if (cubin[7] != 51 && cubin[7] != 65)
    return "EI_OSABI = " + std::to_string(cubin[7]) + ": not ELFOSABI_CUDA (51 or 65)";
  const uint16_t machine = read_le<uint16_t>(cubin, 18);
  if (machine != kEmCuda) return "e_machine = " + std::to_string(machine) + ": not EM_CUDA (190)";

  CubinHeader h;
  h.abi_version = cubin[8];
  h.e_flags = read_le<uint32_t>(cubin, 48);
  h.sm = h.abi_version >= 8 ? static_cast<int>((h.e_flags >> 8) & 0xff) : static_cast<int>(h.e_flags & 0xff);
  if (out != nullptr) *out = h;
  if (expected_sm > 0 && h.sm != expected_sm)
    return "e_flags = " + std::to_string(h.e_flags) + " (ELF ABI " + std::to_string(h.abi_version) +
           "): built for sm_" + std::to_string(h.sm) + ", expected sm_" + std::to_string(expected_sm);

  const uint64_t phoff = read_le<uint64_t>(cubin, 32), shoff = read_le<uint64_t>(cubin, 40);
  const uint16_t phentsize = read_le<uint16_t>(cubin, 54), phnum = read_le<uint16_t>(cubin, 56);
  const uint16_t shentsize = read_le<uint16_t>(cubin, 58), shnum = read_le<uint16_t>(cubin, 60);
  if (shnum == 0) return "e_shnum = 0: a cubin has sections";
  if (!table_fits(shoff, shnum, shentsize, cubin.size()))
    return "section headers (offset " + std::to_string(shoff) + ", " + std::to_string(shnum) + " x " +
           std::to_string(shentsize) + " bytes) end beyond the file (" + n + " bytes): truncated";
  if (!table_fits(phoff, phnum, phentsize, cubin.size()))
    return "program headers (offset " + std::to_string(phoff) + ", " + std::to_string(phnum) + " x " +
           std::to_string(phentsize) + " bytes) end beyond the file (" + n + " bytes): truncated";
  if (shentsize < kElf64SectionHeaderBytes)
    return "e_shentsize = " + std::to_string(shentsize) + ": smaller than an ELF64 section header (64)";
  for (uint16_t i = 0; i < shnum; ++i) {  // every section's bytes lie in the file
    const uint64_t sh = shoff + uint64_t(i) * shentsize;
    const uint32_t type = read_le<uint32_t>(cubin, sh + 4);
    const uint64_t offset = read_le<uint64_t>(cubin, sh + 24), size = read_le<uint64_t>(cubin, sh + 32);
    if (type != kShtNobits && !table_fits(offset, size, 1, cubin.size()))
      return "section " + std::to_string(i) + " (offset " + std::to_string(offset) + ", " + std::to_string(size) +
             " bytes) ends beyond the file (" + n + " bytes): truncated";
  }
  return {};
}

}  // namespace tilegemm::jit
