// Suite files and shape strings (suite.hpp).
#include "bench/suite.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <filesystem>
#include <fstream>

namespace tilegemm::bench {

namespace detail {
struct BuiltinSuite {
  const char* name;
  const char* text;
};
// Defined in the generated builtin_suites.cpp (src/bench/CMakeLists.txt).
extern const BuiltinSuite kBuiltinSuites[];
extern const size_t kBuiltinSuiteCount;
}  // namespace detail

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\v\f");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\v\f");
  return s.substr(first, last - first + 1);
}

// One dimension: a decimal integer in [1, kMaxSuiteDim]. Returns an empty string when fine.
std::string parse_dim(std::string_view token, int64_t* out) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  std::string why;
  if (end != token.data() + token.size() || (ec != std::errc{} && ec != std::errc::result_out_of_range))
    why = " is not a decimal integer";
  else if (ec == std::errc::result_out_of_range || v < 1 || v > kMaxSuiteDim)
    why = " is outside [1, " + std::to_string(kMaxSuiteDim) + "]";
  else {
    *out = v;
    return {};
  }
  std::string quoted(1, '\'');
  quoted.append(token);
  quoted.push_back('\'');
  return quoted + why;
}

// Splits on blanks; returns the tokens.
std::vector<std::string_view> split_blanks(std::string_view s) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) tokens.push_back(s.substr(start, i - start));
  }
  return tokens;
}

std::string suite_name_of(std::string_view source) {
  std::string_view base = source;
  if (const auto slash = base.find_last_of('/'); slash != std::string_view::npos) base = base.substr(slash + 1);
  if (base.size() > 4 && base.substr(base.size() - 4) == ".txt") base = base.substr(0, base.size() - 4);
  return std::string(base);
}

}  // namespace

std::optional<Suite> parse_suite(std::string_view text, std::string_view source, std::string* error) {
  Suite suite;
  suite.name = suite_name_of(source);
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view raw = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    std::string_view line = raw;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) {
      if (eol == text.size()) break;
      continue;
    }
    const auto fail = [&](const std::string& what) {
      if (error) *error = std::string(source) + ":" + std::to_string(line_no) + ": " + what + ": '" + std::string(trim(raw)) + "'";
      return std::nullopt;
    };
    const auto tokens = split_blanks(line);
    if (tokens.size() != 3)
      return fail("expected three numbers 'M N K', found " + std::to_string(tokens.size()) + " field(s)");
    Shape s;
    int64_t* dims[3] = {&s.m, &s.n, &s.k};
    for (int i = 0; i < 3; ++i)
      if (std::string why = parse_dim(tokens[i], dims[i]); !why.empty()) return fail(why);
    suite.shapes.push_back(s);
    if (eol == text.size()) break;
  }
  if (suite.shapes.empty()) {
    if (error) *error = std::string(source) + ": no shapes (every line is blank or a comment)";
    return std::nullopt;
  }
  return suite;
}

std::optional<Suite> load_suite(const std::string& name_or_path, std::string* error) {
  const auto fail = [&](const std::string& why) -> std::optional<Suite> {
    if (error) *error = "suite '" + name_or_path + "': " + why;
    return std::nullopt;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(name_or_path, ec))
    return fail("is a directory; a suite is a text file with one 'M N K' per line, or a builtin name");
  std::ifstream file(name_or_path, std::ios::binary);
  if (file) {
    // Read at most one byte past the bound: enough to know the file is too long.
    std::string text(kMaxSuiteBytes + 1, '\0');
    file.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(file.gcount()));
    if (text.size() > kMaxSuiteBytes)
      return fail("longer than " + std::to_string(kMaxSuiteBytes) +
                  " bytes (kMaxSuiteBytes); a suite is a short text file with one 'M N K' per line");
    if (file.bad()) return fail("cannot be read");
    return parse_suite(text, name_or_path, error);
  }
  if (const char* text = builtin_suite_text(name_or_path)) return parse_suite(text, name_or_path, error);
  if (error) {
    std::string names;
    for (const auto& n : builtin_suite_names()) names += (names.empty() ? "" : ", ") + n;
    *error = "suite '" + name_or_path + "': no such file, and not a builtin suite (" + names + ")";
  }
  return std::nullopt;
}

std::vector<std::string> builtin_suite_names() {
  std::vector<std::string> names;
  for (size_t i = 0; i < detail::kBuiltinSuiteCount; ++i) names.emplace_back(detail::kBuiltinSuites[i].name);
  return names;
}

const char* builtin_suite_text(std::string_view name) {
  for (size_t i = 0; i < detail::kBuiltinSuiteCount; ++i)
    if (name == detail::kBuiltinSuites[i].name) return detail::kBuiltinSuites[i].text;
  return nullptr;
}

std::optional<Shape> parse_shape(std::string_view text, std::string* error) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == 'x' || text[i] == 'X' || text[i] == ',') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  const auto fail = [&](const std::string& what) {
    if (error) *error = "shape '" + std::string(text) + "': " + what;
    return std::nullopt;
  };
  if (parts.size() != 3) return fail("expected MxNxK, e.g. 4096x4096x4096");
  Shape s;
  int64_t* dims[3] = {&s.m, &s.n, &s.k};
  for (int i = 0; i < 3; ++i)
    if (std::string why = parse_dim(trim(parts[i]), dims[i]); !why.empty()) return fail(why);
  return s;
}

std::optional<std::vector<Shape>> resolve_shapes(const std::vector<std::string>& shape_texts, const std::string& suite,
                                                 const std::string& fallback, std::string* suite_name,
                                                 std::string* error) {
  std::vector<Shape> shapes;
  if (!shape_texts.empty()) {
    for (const std::string& text : shape_texts) {
      auto s = parse_shape(text, error);
      if (!s) return std::nullopt;
      shapes.push_back(*s);
    }
    *suite_name = "shapes";
    return shapes;
  }
  const auto loaded = load_suite(suite.empty() ? fallback : suite, error);
  if (!loaded) return std::nullopt;
  *suite_name = loaded->name;
  return loaded->shapes;
}

Shape aligned_neighbour(const Shape& s) {
  const auto nearest8 = [](int64_t x) {
    const int64_t down = x / 8 * 8;
    const int64_t r = x - down <= 4 ? down : down + 8;
    return r < 8 ? int64_t{8} : r;
  };
  return Shape{nearest8(s.m), nearest8(s.n), nearest8(s.k)};
}

}  // namespace tilegemm::bench
