#include "explorer/call_params.hpp"

#include <cctype>
#include <cstdint>
#include <utility>

namespace tilegemm::explorer {

namespace {
constexpr double kMaxScalar = 1e38;  // inside float's range
constexpr int64_t kMaxLd = int64_t{1} << 62;
constexpr int64_t kMaxOffset = int64_t{1} << 30;
}  // namespace

detail::CallOptions read_call_options(ParamReader& r, bool storage) {
  detail::CallOptions o;
  o.d_major = r.choice("d_major", "row", {"row", "col"});
  o.accumulate = r.flag("accumulate", false);
  if (r.has("beta")) o.beta = static_cast<float>(r.number("beta", 1.0, -kMaxScalar, kMaxScalar));
  o.alpha = static_cast<float>(r.number("alpha", 1.0, -kMaxScalar, kMaxScalar));
  if (r.has("c_dtype")) o.c_dtype = r.choice("c_dtype", "", {"bf16", "fp32"});
  o.in_place = r.flag("in_place", false);
  if (!storage) return o;
  if (r.has("c_major")) o.c_major = r.choice("c_major", "", {"row", "col"});
  o.lda = r.integer("lda", 0, 0, kMaxLd);
  o.ldb = r.integer("ldb", 0, 0, kMaxLd);
  o.ldc = r.integer("ldc", 0, 0, kMaxLd);
  o.ldd = r.integer("ldd", 0, 0, kMaxLd);
  o.offset_a = r.integer("offset_a", 0, 0, kMaxOffset);
  o.offset_b = r.integer("offset_b", 0, 0, kMaxOffset);
  o.offset_c = r.integer("offset_c", 0, 0, kMaxOffset);
  o.offset_d = r.integer("offset_d", 0, 0, kMaxOffset);
  return o;
}

std::string parameter_of(const Status& s, bool in_place) {
  const std::string& a = s.argument;
  if (a.empty()) return "";
  // validate(): "<matrix>[.<field>]"; in place, C's storage is D's.
  if (a.size() >= 1 && (a[0] == 'a' || a[0] == 'b' || a[0] == 'c' || a[0] == 'd') && (a.size() == 1 || a[1] == '.')) {
    const char matrix = (a[0] == 'c' && in_place) ? 'd' : a[0];
    const std::string field = a.size() > 2 ? a.substr(2) : "";
    if (field.empty() || field == "ld") return std::string("ld") + matrix;
    if (field == "ptr") return std::string("offset_") + matrix;
    if (field == "dtype") return matrix == 'c' ? "c_dtype" : matrix == 'd' ? "out" : "";
    return "";  // rows, cols, major: set by the explorer itself, never the user's
  }
  std::string lower;
  for (char c : a) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;  // "m", "alpha", "beta", "in_place", "lda", ...
}

std::string message_naming(const Status& s, const std::string& parameter) {
  if (parameter.empty() || s.message.find(parameter) != std::string::npos) return s.message;
  return "parameter " + parameter + ": " + s.message;
}

}  // namespace tilegemm::explorer
