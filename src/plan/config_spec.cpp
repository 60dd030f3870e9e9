// Text forms of planner values (config_spec.hpp).
#include "plan/config_spec.hpp"

#include "schedule/mapping_names.hpp"

#include <charconv>
#include <string>
#include <utility>

namespace tilegemm::plan {

namespace {

using sched::MappingKind;

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// "AxB" -> two ints.
bool parse_pair(std::string_view s, int& a, int& b) {
  const size_t x = s.find('x');
  return x != std::string_view::npos && parse_int(s.substr(0, x), a) && parse_int(s.substr(x + 1), b);
}

}  // namespace

ParsedConfigSpec parse_config_spec(std::string_view text, std::string_view option) {
  ParsedConfigSpec r;
  Config& c = r.spec.config;
  const std::string opt(option);
  const std::string whole(text);
  auto fail = [&](const std::string& what) {
    r.error = opt + " \"" + whole + "\": " + what;
    return r;
  };
  std::string_view rest = text;
  auto next_item = [&rest]() {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    return item;
  };
  const std::string_view tile = next_item();
  if (!parse_pair(tile, c.bm, c.bn))
    return fail("the first item \"" + std::string(tile) + "\" must be the tile BMxBN, e.g. 128x256");
  // (The kernel template's rules, sm90::check_kernel_config's first two, named before the rest.)
  if (!sm90::tile_m_ok(c.bm))
    return fail("BM=" + std::to_string(c.bm) + " must be 64, 128 or 256 (one consumer warpgroup per 64 rows, or two of 128)");
  if (!sm90::tile_n_ok(c.bn))
    return fail("BN=" + std::to_string(c.bn) + " must be a multiple of 8 in [8, 256] (wgmma N)");
  bool mapping_given = false, group_given = false, dsm = false, runs = false;
  const bool has_items = text.find(',') != std::string_view::npos;
  while (has_items) {
    const std::string_view item = next_item();
    if (item.empty()) return fail("empty item (two commas in a row, or a trailing comma)");
    const size_t eq = item.find('=');
    const std::string key(item.substr(0, eq));
    const std::string_view value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    const std::string val(value);
    int v = 0;
    if (key == "stages") {
      if (!parse_int(value, v) || v < 3 || v > sm90::kMaxStages)
        return fail("stages=" + val + " must be an integer in [3, " + std::to_string(sm90::kMaxStages) + "]");
      c.stages = v;
      r.spec.stages_given = true;
    } else if (key == "stage") {
      // The staged epilogues' width (columns staged at once); the kernel template's rule
      // (whole 128-B boxes dividing the tile's) is checked with the rest of the config.
      if (!parse_int(value, v) || v < 16 || v > 256 || v % 16 != 0)
        return fail("stage=" + val + " must be a multiple of 16 in [16, 256] (columns staged at once)");
      c.stage_cols = v;
    } else if (key == "cluster") {
      int cm = 0, cn = 0;
      if (!parse_pair(value, cm, cn) || !((cm == 1 && cn == 1) || (cm == 2 && cn == 1) || (cm == 1 && cn == 2)))
        return fail("cluster=" + val + " must be 1x1, 2x1 (multicast B) or 1x2 (multicast A)");
      c.cluster_m = cm;
      c.cluster_n = cn;
    } else if (key == "group") {
      if (!parse_int(value, v) || v < 1 || v > 64) return fail("group=" + val + " must be an integer in [1, 64]");
      c.mapping.group = v;
      group_given = true;
    } else if (key == "mapping") {
      // One parser for mapping names (schedule/mapping_names.hpp). The spec also accepts '_' for
      // '-' and leaves G / the box out (then the current group, default 8, and box 2x2 apply).
      std::string name = val.substr(0, val.find(':'));
      for (char& ch : name) ch = ch == '_' ? '-' : ch;
      std::string canonical = name + (val.find(':') == std::string::npos ? "" : val.substr(val.find(':')));
      if (val.find(':') == std::string::npos) {
        // append() rather than operator+ chains: GCC 12 warns falsely (-Wrestrict) on the latter.
        if (name == "grouped-m" || name == "grouped-n") canonical.append(":").append(std::to_string(c.mapping.group));
        if (name == "box")
          canonical.append(":").append(std::to_string(c.mapping.box_m)).append("x").append(std::to_string(c.mapping.box_n));
      }
      const sched::Parsed<sched::Mapping> m = sched::parse_mapping(canonical, "mapping");
      if (!m.ok()) return fail(m.error);
      const bool grouped = m.value.kind == MappingKind::grouped_m || m.value.kind == MappingKind::grouped_n;
      if (grouped && (m.value.group < 1 || m.value.group > 64))
        return fail("mapping=" + val + ": G must be an integer in [1, 64]");
      if (grouped && val.find(':') != std::string::npos) group_given = true;
      c.mapping = m.value;
      mapping_given = true;
    } else if (key == "persistent" || key == "static") {
      if (!value.empty()) return fail(key + " is a flag and takes no value");
      c.persistent = key == "persistent";
    } else if (key == "bake") {
      if (!value.empty()) return fail("bake is a flag and takes no value");
      c.fixed_n = c.fixed_k = kBakeFromProblem;  // N and K of the problem become constants of the kernel
    } else if (key == "splitk") {
      if (!parse_int(value, v) || v < 1 || v > sm90::kMaxSplitK)
        return fail("splitk=" + val + " must be an integer in [1, " + std::to_string(sm90::kMaxSplitK) + "]");
      c.split_k = v;
      c.stream_k = v > 1;  // split-K runs on the k-split kernel (in-kernel fix-up)
    } else if (key == "swapab") {
      if (!value.empty()) return fail("swapab is a flag and takes no value");
      c.d_col_major = true;
    } else if (key == "accsets") {
      if (!parse_int(value, v) || (v != 1 && v != 2))
        return fail("accsets=" + val + " must be 1 or 2 (accumulator sets per 64-row block)");
      c.acc_sets = v;
    } else if (key == "pingpong") {
      if (!value.empty()) return fail("pingpong is a flag and takes no value");
      c.pingpong = true;
    } else if (key == "streamk") {
      if (!value.empty()) return fail("streamk is a flag and takes no value");
      c.stream_k = true;
      c.split_k = 1;
    } else if (key == "runs") {
      if (!value.empty()) return fail("runs is a flag and takes no value");
      runs = true;
    } else if (key == "dsm") {
      if (!value.empty()) return fail("dsm is a flag and takes no value");
      dsm = true;
    } else {
      return fail("unknown item \"" + std::string(item) +
                  "\" (known: stages=, stage=, cluster=, mapping=, group=, persistent, static, splitk=, streamk, runs, dsm, swapab, pingpong, accsets=, bake)");
    }
    if (rest.empty()) break;
  }
  if (runs) {
    // Stream-K over runs of tiles (schedule/stream_k.hpp): a way to share k-blocks, so stream-K only.
    if (!c.stream_k || c.split_k != 1) return fail("runs shares stream-K's k-blocks by runs of tiles: it needs streamk");
    c.sk_runs = true;
  }
  if (dsm) {
    // The slices of a tile as one cluster: split-K only, at most the portable cluster size.
    if (c.split_k < 2 || c.split_k > sm90::kMaxClusterK)
      return fail("dsm sums the slices of a split-K in one thread-block cluster: it needs splitk= in [2, " +
                  std::to_string(sm90::kMaxClusterK) + "]");
    c.cluster_k = c.split_k;
  }
  if (!mapping_given) c.mapping.kind = c.cluster_n == 2 ? MappingKind::grouped_n : MappingKind::grouped_m;
  if (!group_given) c.mapping.group = 8;
  return r;
}

std::string config_spec_text(const Config& c) {
  // append() rather than operator+ chains: GCC 12 warns falsely (-Wrestrict) on the latter.
  std::string s = std::to_string(c.bm);
  s.append("x").append(std::to_string(c.bn)).append(",stages=").append(std::to_string(c.stages));
  s.append(",cluster=").append(std::to_string(c.cluster_m)).append("x").append(std::to_string(c.cluster_n));
  s.append(",mapping=").append(sched::mapping_name(c.mapping)).append(c.persistent ? ",persistent" : ",static");
  if (c.d_col_major) s.append(",swapab");
  if (c.pingpong) s.append(",pingpong");
  // (Only for tiles that may have two: the planner's choice for them depends on the problem.)
  if (c.acc_sets != 0 && sm90::auto_acc_sets(c) == 2) s.append(",accsets=").append(std::to_string(c.acc_sets));
  if (c.stream_k) {
    if (c.split_k > 1) {
      s.append(",splitk=").append(std::to_string(c.split_k));
      if (c.cluster_k > 1) s.append(",dsm");
    } else {
      s.append(",streamk");
      if (c.sk_runs) s.append(",runs");
    }
  }
  // (stage_cols 0: a config not yet completed, whose staging width the planner will choose.)
  if (sm90::partly_staged(c) && c.stage_cols > 0) s.append(",stage=").append(std::to_string(c.stage_cols));
  if (c.fixed_n != 0 || c.fixed_k != 0) s.append(",bake");  // N and K of the problem, completed again
  return s;
}

const char* multicast_name(Multicast m) {
  return m == Multicast::a ? "a" : m == Multicast::b ? "b" : "none";
}

const char* mapping_kind_name(MappingKind k) { return sched::mapping_kind_id(k); }

std::string mapping_label(const sched::Mapping& m) {
  // append() rather than operator+ chains: GCC 12 warns falsely (-Wrestrict) on the latter.
  std::string s = mapping_kind_name(m.kind);
  if (m.kind == MappingKind::grouped_m || m.kind == MappingKind::grouped_n) {
    s.append(" G=").append(std::to_string(m.group));
  } else if (m.kind == MappingKind::box) {
    s.append(" ").append(std::to_string(m.box_m)).append("x").append(std::to_string(m.box_n));
  }
  return s;
}

std::string describe(const Config& c) {
  std::string s;
  s.append(std::to_string(c.bm)).append("x").append(std::to_string(c.bn)).append("x").append(std::to_string(c.bk));
  s.append(" s").append(std::to_string(c.stages));
  s.append(" c").append(std::to_string(c.cluster_m)).append("x").append(std::to_string(c.cluster_n));
  const Multicast mc = multicast_of(c);
  if (mc != Multicast::none) s.append(mc == Multicast::a ? "(A)" : "(B)");
  s.append(" ").append(mapping_label(c.mapping)).append(c.persistent ? " persistent" : " static");
  if (c.d_col_major) s.append(" swapAB");
  if (c.pingpong) s.append(" pingpong");
  if (c.acc_sets == 2) s.append(" acc2");
  if (c.epilogue == Epilogue::direct) s.append(" direct");
  if (c.epilogue == Epilogue::smem_stores) s.append(" smem_stores");
  if (sm90::partly_staged(c)) s.append(" stage").append(std::to_string(c.stage_cols));
  // An MN-major operand of the kernel stored in chunks narrower than 64 (sm90/swizzle.hpp): " mn16(B)".
  for (const auto& [chunk, op] : {std::pair{sm90::a_mn_chunk(c), "(A)"}, std::pair{sm90::b_mn_chunk(c), "(B)"}})
    if (chunk != 0 && chunk < 64) s.append(" mn").append(std::to_string(chunk)).append(op);
  if (c.stream_k) {
    if (c.split_k > 1) {
      s.append(" splitK=").append(std::to_string(c.split_k));
      if (c.cluster_k > 1) s.append(" dsm");
    } else {
      s.append(" streamK");
      if (c.sk_runs) s.append(" runs");
    }
  }
  if (c.out_dtype == DType::fp32) s.append(" fp32");
  if (c.with_c) s.append(" +C");
  if (c.epilogue == Epilogue::direct && !c.cd_pairs) s.append(" scalar");
  if (c.fixed_n > 0 || c.fixed_k > 0)
    s.append(" N=").append(std::to_string(c.fixed_n)).append(",K=").append(std::to_string(c.fixed_k)).append(" baked");
  if (c.trace) s.append(" trace");
  return s;
}

}  // namespace tilegemm::plan
