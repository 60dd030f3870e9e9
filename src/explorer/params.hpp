// Query parameters of the explorer's JSON endpoints, read strictly (host only, no sockets).
//
// Every parameter is looked up by name in a list the endpoint declares; a name the endpoint does
// not know, a name given twice, an over-long value or a value that does not parse is an error
// whose message names the parameter, the value and the rule. The endpoints turn such an error
// into HTTP 400 (api.hpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilegemm::explorer {

// The query string as the HTTP layer decoded it, in request order (duplicates kept).
using QueryParams = std::vector<std::pair<std::string, std::string>>;

inline constexpr size_t kMaxParams = 32;        // parameters per request
inline constexpr size_t kMaxValueLength = 128;  // characters per value (a --config spec is < 80)

// One bad parameter: `parameter` is its name ("" when the problem is the request as a whole).
struct ParamError {
  std::string parameter;
  std::string message;
};

// Reads the parameters of one request. The first error found is kept; later reads return
// defaults, so a handler can read everything and check error() once at the end.
class ParamReader {
 public:
  // `allowed`: the parameter names this endpoint takes. Checks count, names, duplicates, lengths.
  ParamReader(const QueryParams& params, const std::vector<std::string_view>& allowed);

  bool has(std::string_view name) const { return find(name) != nullptr; }
  // The raw text, or `fallback` when absent.
  std::string text(std::string_view name, std::string_view fallback);
  // A whole decimal number in [lo, hi] ("-1" allowed when lo < 0; no '+', spaces, hex, exponent).
  int64_t integer(std::string_view name, int64_t fallback, int64_t lo, int64_t hi);
  // A finite decimal number in [lo, hi].
  double number(std::string_view name, double fallback, double lo, double hi);
  // 1 | 0 | true | false.
  bool flag(std::string_view name, bool fallback);
  // One of `choices` (exact, lower case).
  std::string choice(std::string_view name, std::string_view fallback,
                     std::initializer_list<std::string_view> choices);

  // Records an error found by the caller (e.g. a parser from schedule/ or plan/), unless one is
  // already recorded.
  void fail(std::string parameter, std::string message);
  const std::optional<ParamError>& error() const { return error_; }

 private:
  const std::string* find(std::string_view name) const;
  QueryParams params_;
  std::optional<ParamError> error_;
};

}  // namespace tilegemm::explorer
