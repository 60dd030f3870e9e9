// The call options /api/plan and /api/trace/record take (the options of `tilegemm explain`:
// api/explain_call.hpp's CallOptions), read from query parameters, and the parameter a rule of the
// library names when it refuses a call (validate(): "d.ld" -> ldd, "c.ptr" -> offset_c).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "api/explain_call.hpp"
#include "explorer/params.hpp"

namespace tilegemm::explorer {

// The parameter names of the call options: all of them with `storage` (the leading dimensions,
// the pointer offsets and C's major), else only those that say what is computed (d_major, beta,
// accumulate, alpha, c_dtype, in_place).
inline constexpr std::string_view kCallParams[] = {"d_major", "accumulate", "beta", "alpha", "c_dtype", "in_place"};
inline constexpr std::string_view kStorageParams[] = {"c_major", "lda", "ldb", "ldc", "ldd",
                                                      "offset_a", "offset_b", "offset_c", "offset_d"};

// Reads the call options (those of kCallParams, and kStorageParams when `storage`). Ranges are the
// reader's: beta and alpha decimal numbers of magnitude <= 1e38, ld's 0 .. 2^62 (0: packed),
// offsets 0 .. 2^30 elements, the majors row | col, c_dtype bf16 | fp32.
detail::CallOptions read_call_options(ParamReader& r, bool storage);

// The explorer parameter a library Status names: validate()'s "a.ld" -> "lda", "d.dtype" -> "out",
// "c.ptr" -> "offset_c" (or "offset_d" in place), call_storage_of()'s keys as they are, the
// planner's "M" -> "m". Empty when no single parameter is at fault.
std::string parameter_of(const Status& s, bool in_place);

// s.message, led by "parameter P: " when it does not name P already.
std::string message_naming(const Status& s, const std::string& parameter);

}  // namespace tilegemm::explorer
