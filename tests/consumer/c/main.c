/* A consumer of the installed C API (tilegemm.h): tg_validate on a good and a bad argument set,
 * then tg_check_device. Without a GPU it prints the no_device line and exits 0; exit 1 only when
 * the library answers something other than what the API promises (docs/API.md). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tilegemm/tilegemm.h>

int main(void) {
  char message[512];
  /* tg_validate makes no CUDA call and reads no memory, so placeholder device addresses do.
   * A: [128, 64] K-major, B: [256, 64] K-major, D: [128, 256] row-major. */
  tg_matrix a = {(const void*)(uintptr_t)0x100000000u, 128, 64, 64, TG_DTYPE_BF16, TG_MAJOR_K};
  tg_matrix b = {(const void*)(uintptr_t)0x200000000u, 256, 64, 64, TG_DTYPE_BF16, TG_MAJOR_K};
  tg_mut_matrix d = {(void*)(uintptr_t)0x300000000u, 128, 256, 256, TG_DTYPE_BF16, TG_ROW_MAJOR};
  tg_status good, bad, device;

  printf("tilegemm %s\n", tg_version());
  good = tg_validate(&a, &b, NULL, &d, 1.0f, 0.0f, message, sizeof message);
  printf("tg_validate(good): %s\n", tg_status_name(good));

  a.ld = 31; /* shorter than a row of A (K = 64) */
  bad = tg_validate(&a, &b, NULL, &d, 1.0f, 0.0f, message, sizeof message);
  printf("tg_validate(bad): %s: %s\n", tg_status_name(bad), message);
  if (bad != TG_STATUS_INVALID_ARGUMENT || strstr(message, "a.ld = 31") == NULL) return 1;

  device = tg_check_device(message, sizeof message);
  printf("tg_check_device: %s%s%s\n", tg_status_name(device), device == TG_STATUS_OK ? "" : ": ", message);
  return good == TG_STATUS_OK && (device == TG_STATUS_OK || device == TG_STATUS_NO_DEVICE) ? 0 : 1;
}
