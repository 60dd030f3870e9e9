// Fixed-width integers for headers that three compilers read: g++ (host), nvcc, and NVRTC (the
// JIT). NVRTC is given only the project's own embedded headers and no include path, so <cstdint>
// does not exist there; under __CUDACC_RTC__ the types are declared from the builtin widths
// (NVRTC's device ABI is LP64, as on the host: int is 32 bits, long long 64).
#pragma once

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
static_assert(sizeof(void*) == 8 && sizeof(long long) == 8 && sizeof(int) == 4, "LP64 device ABI");
#else
#include <cstdint>
#endif
