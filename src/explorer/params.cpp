#include "explorer/params.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

#include <fmt/format.h>

namespace tilegemm::explorer {

namespace {

// Values are echoed inside error messages: keep them printable and short.
std::string shown(std::string_view v) {
  std::string s;
  for (char c : v.substr(0, 40)) s += (c >= 0x20 && c < 0x7f && c != '"') ? c : '?';
  if (v.size() > 40) s += "...";
  return s;
}

template <typename Names>
std::string joined(const Names& names, const char* sep) {
  std::string s;
  for (std::string_view n : names) s += (s.empty() ? "" : sep) + std::string(n);
  return s;
}

}  // namespace

ParamReader::ParamReader(const QueryParams& params, const std::vector<std::string_view>& allowed)
    : params_(params) {
  if (params.size() > kMaxParams) {
    fail("", fmt::format("{} query parameters: at most {} are accepted", params.size(), kMaxParams));
    return;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& [name, value] = params[i];
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      fail(name, fmt::format("unknown parameter \"{}\": this endpoint takes {}", shown(name),
                             joined(allowed, ", ")));
      return;
    }
    for (size_t j = 0; j < i; ++j)
      if (params[j].first == name) {
        fail(name, fmt::format("parameter {} is given twice: give it once", name));
        return;
      }
    if (value.size() > kMaxValueLength) {
      fail(name, fmt::format("parameter {} is {} characters long: values are at most {}", name,
                             value.size(), kMaxValueLength));
      return;
    }
  }
}

const std::string* ParamReader::find(std::string_view name) const {
  for (const auto& [n, v] : params_)
    if (n == name) return &v;
  return nullptr;
}

void ParamReader::fail(std::string parameter, std::string message) {
  if (!error_) error_ = ParamError{std::move(parameter), std::move(message)};
}

std::string ParamReader::text(std::string_view name, std::string_view fallback) {
  const std::string* v = find(name);
  return v ? *v : std::string(fallback);
}

int64_t ParamReader::integer(std::string_view name, int64_t fallback, int64_t lo, int64_t hi) {
  const std::string* v = find(name);
  if (!v || error_) return fallback;
  int64_t x = 0;
  const char* end = v->data() + v->size();
  const auto [ptr, ec] = std::from_chars(v->data(), end, x);
  if (v->empty() || ec != std::errc() || ptr != end || x < lo || x > hi) {
    fail(std::string(name), fmt::format("parameter {} = \"{}\": must be a whole number from {} to {}",
                                        name, shown(*v), lo, hi));
    return fallback;
  }
  return x;
}

double ParamReader::number(std::string_view name, double fallback, double lo, double hi) {
  const std::string* v = find(name);
  if (!v || error_) return fallback;
  double x = 0;
  const char* end = v->data() + v->size();
  const auto [ptr, ec] = std::from_chars(v->data(), end, x, std::chars_format::fixed);
  if (v->empty() || ec != std::errc() || ptr != end || !std::isfinite(x) || x < lo || x > hi) {
    fail(std::string(name),
         fmt::format("parameter {} = \"{}\": must be a decimal number from {} to {}", name, shown(*v), lo, hi));
    return fallback;
  }
  return x;
}

bool ParamReader::flag(std::string_view name, bool fallback) {
  const std::string* v = find(name);
  if (!v || error_) return fallback;
  if (*v == "1" || *v == "true") return true;
  if (*v == "0" || *v == "false") return false;
  fail(std::string(name), fmt::format("parameter {} = \"{}\": must be 1, 0, true or false", name, shown(*v)));
  return fallback;
}

std::string ParamReader::choice(std::string_view name, std::string_view fallback,
                                std::initializer_list<std::string_view> choices) {
  const std::string* v = find(name);
  if (!v || error_) return std::string(fallback);
  if (std::find(choices.begin(), choices.end(), *v) != choices.end()) return *v;
  fail(std::string(name),
       fmt::format("parameter {} = \"{}\": must be one of {}", name, shown(*v), joined(choices, ", ")));
  return std::string(fallback);
}

}  // namespace tilegemm::explorer
