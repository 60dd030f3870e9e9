/* tilegemm C API (C99). The same operation and rules as the C++ API in tilegemm.hpp:
 *
 *   D[M, N] = alpha * A[M, K] . B[N, K]^T + beta * C[M, N]      (FP32 accumulation)
 *
 * A is logically [M, K], B [N, K], C and D [M, N]. A matrix is a device pointer, its logical
 * rows and cols, a leading dimension ld in elements, a dtype and a major:
 *   TG_MAJOR_K  (== TG_ROW_MAJOR): element (r, c) at ptr[r * ld + c]
 *   TG_MAJOR_MN (== TG_COL_MAJOR): element (r, c) at ptr[c * ld + r]
 * "NT" (A and B K-major) is the common LLM layout. See docs/API.md for every validation rule.
 *
 * Functions return TG_STATUS_OK or an error code; on error, when error_message is not NULL and
 * error_message_size > 0, a NUL-terminated message naming the argument, its value and the broken
 * rule is written there (truncated to fit). No function throws or aborts.
 */
#ifndef TILEGEMM_H
#define TILEGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tg_dtype {
  TG_DTYPE_BF16 = 0,
  TG_DTYPE_FP32 = 1,
  TG_DTYPE_FP8_E4M3 = 2 /* reserved: not supported yet */
} tg_dtype;

typedef enum tg_major {
  TG_MAJOR_K = 0,
  TG_MAJOR_MN = 1,
  TG_ROW_MAJOR = 0, /* for C and D [M, N]: N contiguous */
  TG_COL_MAJOR = 1  /* for C and D [M, N]: M contiguous */
} tg_major;

/* The fixed-width dtype and major fields keep the struct layout independent of how a compiler
 * sizes enums; they hold tg_dtype and tg_major values. */
typedef struct tg_matrix {
  const void* ptr; /* device pointer, only read (A, B, C) */
  int64_t rows;    /* first logical dimension: M for A, N for B, M for C/D */
  int64_t cols;    /* second logical dimension: K for A/B, N for C/D */
  int64_t ld;      /* leading dimension in elements */
  int32_t dtype;   /* tg_dtype */
  int32_t major;   /* tg_major */
} tg_matrix;

/* The output D: the same fields and layout as tg_matrix, with a pointer the library writes
 * through. */
typedef struct tg_mut_matrix {
  void* ptr;       /* device pointer, written through */
  int64_t rows;    /* M */
  int64_t cols;    /* N */
  int64_t ld;      /* leading dimension in elements */
  int32_t dtype;   /* tg_dtype */
  int32_t major;   /* tg_major */
} tg_mut_matrix;

typedef enum tg_status {
  TG_STATUS_OK = 0,
  TG_STATUS_INVALID_ARGUMENT = 1, /* a rule about the arguments is broken */
  TG_STATUS_UNSUPPORTED = 2,      /* a valid request this build cannot do (e.g. fp8 today) */
  TG_STATUS_NO_DEVICE = 3,        /* no CUDA device, or not compute capability 9.0 */
  TG_STATUS_CUDA_ERROR = 4,       /* a CUDA call failed */
  TG_STATUS_INTERNAL_ERROR = 5    /* the library failed in an unexpected way (e.g. out of memory) */
} tg_status;

/* Validates, checks the device, then enqueues the GEMM on `stream` (a cudaStream_t; NULL is the
 * default stream). c_or_null may be NULL when beta == 0. C is read only when beta != 0; C may be
 * the same matrix as D (same ptr, ld, major, dtype) but may not otherwise overlap it.
 * Empty problems: M or N == 0 does nothing; K == 0 writes D = beta * C, or D = 0 without C. */
tg_status tg_gemm(const tg_matrix* a, const tg_matrix* b, const tg_matrix* c_or_null,
                  const tg_mut_matrix* d, float alpha, float beta, void* stream, char* error_message,
                  size_t error_message_size);

/* Only the argument rules of tg_gemm; makes no CUDA call. */
tg_status tg_validate(const tg_matrix* a, const tg_matrix* b, const tg_matrix* c_or_null,
                      const tg_mut_matrix* d, float alpha, float beta, char* error_message,
                      size_t error_message_size);

/* TG_STATUS_OK when the current CUDA device is compute capability 9.0, else TG_STATUS_NO_DEVICE. */
tg_status tg_check_device(char* error_message, size_t error_message_size);

/* The library's version, "MAJOR.MINOR.PATCH" (the CMake project version it was built as).
 * Never NULL. Bindings that mirror the structs above (python/tilegemm) check it at load time. */
const char* tg_version(void);

/* "ok", "invalid_argument", ...; "unknown" for a value outside tg_status. Never NULL. */
const char* tg_status_name(tg_status status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEGEMM_H */
