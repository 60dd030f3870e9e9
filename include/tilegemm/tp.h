/* tilegemm tensor parallelism, C API (C99): the functions of tp.hpp over tilegemm.h's structs, for
 * bindings (python/tilegemm/distributed.py). `comm` is an ncclComm_t of the current device from
 * any ncclCommInit* of the libnccl.so.2 in the process; see tp.hpp and docs/TENSOR_PARALLEL.md for
 * what each call computes and every rule. Each returns TG_STATUS_OK or a status with the message
 * (naming the argument and the rule) copied into error_message. */
#ifndef TILEGEMM_TP_H
#define TILEGEMM_TP_H

#include "tilegemm/tilegemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the collective and the GEMM share the GPU (tp::Overlap). */
typedef struct tg_tp_overlap {
  int32_t enabled;      /* 0: the collective first, then one GEMM (the baseline) */
  int32_t reserved_sms; /* SMs the GEMM leaves to the collective's kernels */
} tg_tp_overlap;

/* D [m, N] = alpha * all_gather(A) * B^T + beta * C; a_shard holds this rank's rows of A. */
tg_status tg_tp_all_gather_gemm(void* comm, int64_t m, const tg_matrix* a_shard,
                                const tg_mut_matrix* a_gathered_or_null, const tg_matrix* b,
                                const tg_matrix* c_or_null, const tg_mut_matrix* d, float alpha,
                                float beta, void* stream, tg_tp_overlap overlap, char* error_message,
                                size_t error_message_size);

/* D = this rank's rows of sum over ranks of alpha * A_r * B_r^T, + beta * C; partial_dtype is
 * TG_DTYPE_BF16 or TG_DTYPE_FP32 (the partials on the wire). */
tg_status tg_tp_gemm_reduce_scatter(void* comm, const tg_matrix* a, const tg_matrix* b,
                                    const tg_matrix* c_or_null, const tg_mut_matrix* d,
                                    int32_t partial_dtype, float alpha, float beta, void* stream,
                                    tg_tp_overlap overlap, char* error_message,
                                    size_t error_message_size);

/* Waits for `stream`, watching `comm`: an NCCL asynchronous error or timeout_s seconds abort the
 * communicator and return TG_STATUS_CUDA_ERROR. */
tg_status tg_tp_synchronize(void* comm, void* stream, double timeout_s, char* error_message,
                            size_t error_message_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEGEMM_TP_H */
