#include "schedule/mapping_names.hpp"

#include <charconv>

#include <fmt/format.h>

namespace tilegemm::sched {
namespace {

constexpr int kMaxTilesAlongAxis = 1 << 20;  // a group/box wider than this is surely a typo

// A whole number in [1, kMaxTilesAlongAxis], nothing else (no sign, no spaces, no suffix).
bool parse_count(std::string_view s, int& out) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size() && out >= 1 && out <= kMaxTilesAlongAxis;
}

// "AxB" -> a, b (both whole numbers >= 1).
bool parse_pair(std::string_view s, int& a, int& b) {
  const size_t x = s.find('x');
  return x != std::string_view::npos && parse_count(s.substr(0, x), a) &&
         parse_count(s.substr(x + 1), b);
}

// The CLI spelling of a kind: its id (mapping.hpp) with '-' for '_'.
std::string cli_name(MappingKind k) {
  std::string s = mapping_kind_id(k);
  for (char& c : s) c = c == '_' ? '-' : c;
  return s;
}

// The kind whose CLI name is `name` (callers have checked that one is).
MappingKind kind_of(std::string_view name) {
  for (MappingKind k : kMappingKinds)
    if (cli_name(k) == name) return k;
  return MappingKind::grouped_m;
}

constexpr std::string_view kMappingNames =
    "linear-n, linear-m, grouped-m:G, grouped-n:G, box:BMxBN, morton, hilbert";

}  // namespace

Parsed<Mapping> parse_mapping(std::string_view text, std::string_view option) {
  Parsed<Mapping> r;
  auto fail = [&](std::string_view rule) {
    r.error = fmt::format("{} '{}': {}", option, text, rule);
    return r;
  };
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const bool has_arg = colon != std::string_view::npos;
  const std::string_view arg = has_arg ? text.substr(colon + 1) : std::string_view{};
  Mapping& m = r.value;
  if (name == "linear-n" || name == "linear-m" || name == "morton" || name == "hilbert") {
    if (has_arg) return fail(fmt::format("{} takes no parameter (write just '{}')", name, name));
    m.kind = kind_of(name);
    return r;
  }
  if (name == "grouped-m" || name == "grouped-n") {
    m.kind = kind_of(name);
    if (!has_arg || !parse_count(arg, m.group))
      return fail(fmt::format("{}:G needs a group size G, a whole number from 1 to {} (e.g. {}:8)",
                              name, kMaxTilesAlongAxis, name));
    return r;
  }
  if (name == "box") {
    m.kind = MappingKind::box;
    if (!has_arg || !parse_pair(arg, m.box_m, m.box_n))
      return fail(fmt::format("box:BMxBN needs the box size in tiles, two whole numbers from 1 to {} "
                              "(e.g. box:4x8 = 4 m-blocks by 8 n-blocks)",
                              kMaxTilesAlongAxis));
    return r;
  }
  return fail(fmt::format("unknown mapping; the mappings are {}", kMappingNames));
}

Parsed<TileShape> parse_tile_shape(std::string_view text, std::string_view option) {
  Parsed<TileShape> r;
  if (!parse_pair(text, r.value.block_m, r.value.block_n) || r.value.block_m > 4096 ||
      r.value.block_n > 4096)
    r.error = fmt::format("{} '{}': the tile is BLOCK_MxBLOCK_N, two whole numbers from 1 to 4096 "
                          "(e.g. 128x128)",
                          option, text);
  return r;
}

Parsed<ClusterAxis> parse_cluster_axis(std::string_view text, std::string_view option) {
  Parsed<ClusterAxis> r;
  if (text == "none" || text == "1x1") {
    r.value = ClusterAxis::none;
  } else if (text == "n" || text == "1x2") {
    r.value = ClusterAxis::along_n;
  } else if (text == "m" || text == "2x1") {
    r.value = ClusterAxis::along_m;
  } else {
    r.error = fmt::format("{} '{}': the cluster is none (1x1), n (1x2: two CTAs along N share A) or "
                          "m (2x1: two CTAs along M share B)",
                          option, text);
  }
  return r;
}

std::string mapping_name(const Mapping& m) {
  switch (m.kind) {
    case MappingKind::grouped_m:
    case MappingKind::grouped_n: return fmt::format("{}:{}", cli_name(m.kind), m.group);
    case MappingKind::box: return fmt::format("box:{}x{}", m.box_m, m.box_n);
    case MappingKind::linear_n:
    case MappingKind::linear_m:
    case MappingKind::morton:
    case MappingKind::hilbert: return cli_name(m.kind);
  }
  return fmt::format("mapping#{}", static_cast<int>(m.kind));
}

std::string cluster_name(ClusterAxis axis) {
  switch (axis) {
    case ClusterAxis::none: return "none";
    case ClusterAxis::along_n: return "n";
    case ClusterAxis::along_m: return "m";
  }
  return "?";
}

}  // namespace tilegemm::sched
