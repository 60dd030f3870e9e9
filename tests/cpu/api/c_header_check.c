/* Compiled as C99 (-x c -std=c99 -pedantic-errors -Werror) by src/api/CMakeLists.txt on every
 * build of the library: include/tilegemm/tilegemm.h must stay a valid C header. Not linked; it
 * only has to compile, so it touches every type, constant and function the header declares. */
#include "tilegemm/tilegemm.h"

tg_status c_header_check(void* a_ptr, void* b_ptr, void* d_ptr, void* stream);

tg_status c_header_check(void* a_ptr, void* b_ptr, void* d_ptr, void* stream) {
  char message[256];
  tg_matrix a, b;
  tg_mut_matrix d;
  tg_dtype in = TG_DTYPE_BF16;
  tg_major row = TG_ROW_MAJOR;
  tg_status status;

  a.ptr = a_ptr; a.rows = 128; a.cols = 64; a.ld = 64; a.dtype = in; a.major = TG_MAJOR_K;
  b.ptr = b_ptr; b.rows = 256; b.cols = 64; b.ld = 128; b.dtype = in; b.major = TG_MAJOR_MN;
  d.ptr = d_ptr; d.rows = 128; d.cols = 256; d.ld = 256; d.dtype = TG_DTYPE_FP32; d.major = row;
  (void)TG_DTYPE_FP8_E4M3; (void)TG_COL_MAJOR;

  status = tg_validate(&a, &b, NULL, &d, 1.0f, 0.0f, message, sizeof message);
  if (status == TG_STATUS_OK) status = tg_check_device(message, sizeof message);
  if (status == TG_STATUS_OK)
    status = tg_gemm(&a, &b, NULL, &d, 1.0f, 0.0f, stream, message, sizeof message);
  switch (status) {
    case TG_STATUS_OK: case TG_STATUS_INVALID_ARGUMENT: case TG_STATUS_UNSUPPORTED:
    case TG_STATUS_NO_DEVICE: case TG_STATUS_CUDA_ERROR: case TG_STATUS_INTERNAL_ERROR: break;
  }
  if (tg_version()[0] == '\0') return TG_STATUS_INTERNAL_ERROR;
  return tg_status_name(status)[0] == 'o' ? TG_STATUS_OK : status;
}

/* include/tilegemm/tp.h, the tensor-parallel calls, also C99. */
#include "tilegemm/tp.h"

tg_status c_header_check_tp(void* comm, void* a_ptr, void* b_ptr, void* d_ptr, void* stream);

tg_status c_header_check_tp(void* comm, void* a_ptr, void* b_ptr, void* d_ptr, void* stream) {
  char message[256];
  tg_matrix a, b;
  tg_mut_matrix d;
  tg_tp_overlap overlap;
  tg_status status;
  a.ptr = a_ptr; a.rows = 128; a.cols = 64; a.ld = 64; a.dtype = TG_DTYPE_BF16; a.major = TG_MAJOR_K;
  b.ptr = b_ptr; b.rows = 256; b.cols = 64; b.ld = 64; b.dtype = TG_DTYPE_BF16; b.major = TG_MAJOR_K;
  d.ptr = d_ptr; d.rows = 256; d.cols = 256; d.ld = 256; d.dtype = TG_DTYPE_BF16; d.major = TG_ROW_MAJOR;
  overlap.enabled = 1;
  overlap.reserved_sms = 0;
  status = tg_tp_all_gather_gemm(comm, 256, &a, NULL, &b, NULL, &d, 1.0f, 0.0f, stream, overlap, message,
                                 sizeof message);
  if (status == TG_STATUS_OK)
    status = tg_tp_gemm_reduce_scatter(comm, &a, &b, NULL, &d, TG_DTYPE_FP32, 1.0f, 0.0f, stream, overlap,
                                       message, sizeof message);
  if (status == TG_STATUS_OK) status = tg_tp_synchronize(comm, stream, 60.0, message, sizeof message);
  return status;
}
