// TG_HD marks functions that both the kernels (nvcc/NVRTC) and the host code (g++) compile:
// tile mappings, smem layout sizes, swizzle math. One fact, one place.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TG_HD __host__ __device__
#define TG_DEVICE __device__
#else
#define TG_HD
#define TG_DEVICE
#endif
