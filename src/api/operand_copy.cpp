// The operand copies a GEMM kernel makes itself, host side (operand_copy.hpp).
#include "api/operand_copy.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "api/sm90_launch.hpp"
#include "core/math.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::detail {

KernelCopies kernel_copies(const Route& r, const plan::Config& c) {
  KernelCopies kc;
  if (r.path != Path::sm90 || c.d_col_major || c.cluster_size() != 1 || c.stream_k || c.cluster_k != 1) return kc;
  for (const Pack& pk : r.packs) {
    if (pk.transposes() || pk.elem_bytes != 2) continue;
    if (pk.operand == Pack::Operand::a && r.args.a.major == Major::k_major) kc.a = &pk;
    if (pk.operand == Pack::Operand::b && r.args.b.major == Major::k_major) kc.b = &pk;
  }
  return kc;
}

bool make_copy_plan(const KernelCopies& copies, const plan::Config& c, int64_t m, int64_t n, int64_t k, int ctas,
                    void* pack_workspace, uint32_t* sync, int64_t sync_words, sm90::CopyPlan* out, std::string* why) {
  sm90::CopyPlan cp;
  const sched::Schedule s = config_schedule(c, static_cast<int>(m), static_cast<int>(n));
  const int mb = s.grid.num_m_blocks, nb = s.grid.num_n_blocks;
  const int entries = (copies.a ? mb : 0) + (copies.b ? nb : 0);
  if (entries == 0) {
    *why = "nothing to copy";
    return false;
  }
  const int64_t slabs = ceil_div(ceil_div(k, int64_t{c.bk}), int64_t{sm90::kCopySlabKBlocks});
  const int64_t flag_words = int64_t(entries) * slabs;
  if (sm90::kCopySyncWords + flag_words > sync_words) {
    *why = std::to_string(flag_words) + " chunks to copy, more flags than the workspace's " +
           std::to_string(sync_words - sm90::kCopySyncWords);
    return false;
  }
  // Row blocks in the order the tiles first read them: slot order, wave = slot / ctas.
  std::vector<std::pair<uint16_t, int>> list;  // (entry, wave of first use)
  std::vector<char> seen_a(copies.a ? mb : 0, 0), seen_b(copies.b ? nb : 0, 0);
  const int slots = sched::num_slots(s);
  const int wave_ctas = std::max(1, ctas);
  for (int slot = 0; slot < slots && static_cast<int>(list.size()) < entries; ++slot) {
    const sched::TileWork w = sched::slot_work(s, slot);
    if (!w.has_tile) continue;
    const int wave = slot / wave_ctas;
    if (copies.a && !seen_a[w.tile.m_block]) {
      seen_a[w.tile.m_block] = 1;
      list.emplace_back(static_cast<uint16_t>(w.tile.m_block), wave);
    }
    if (copies.b && !seen_b[w.tile.n_block]) {
      seen_b[w.tile.n_block] = 1;
      list.emplace_back(static_cast<uint16_t>(0x8000u | static_cast<unsigned>(w.tile.n_block)), wave);
    }
  }
  if (static_cast<int>(list.size()) != entries) {  // (every block has a tile: the mapping is a bijection)
    *why = "the tile order misses a row block";
    return false;
  }
  // The first wave's row blocks (and any below them) are copied before the kernel, at the whole
  // GPU's copy rate: every tile of that wave would otherwise wait for them at once.
  for (const auto& [e, wave] : list) {
    if (wave != 0) continue;
    const int block = e & 0x7fff;
    if (e & 0x8000u) {
      cp.b_ready = std::max(cp.b_ready, block + 1);
    } else {
      cp.a_ready = std::max(cp.a_ready, block + 1);
    }
  }
  std::vector<std::pair<uint16_t, int>> rest;
  for (const auto& entry : list)
    if ((entry.first & 0x7fff) >= ((entry.first & 0x8000u) ? cp.b_ready : cp.a_ready)) rest.push_back(entry);
  if (rest.empty()) {
    *why = "the first wave of tiles reads every row: all of the copies go before the kernel";
    return false;
  }
  if (rest.size() > size_t{sm90::kCopyMaxEntries}) {
    *why = std::to_string(rest.size()) + " row blocks to copy, more than the plan's " +
           std::to_string(sm90::kCopyMaxEntries);
    return false;
  }
  int groups = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    cp.order[i] = rest[i].first;
    if (i == 0 || (rest[i].second != rest[i - 1].second && groups < sm90::kCopyMaxGroups)) ++groups;
    cp.group_end[groups - 1] = static_cast<uint16_t>(i + 1);
  }
  cp.groups = groups;
  cp.entries = static_cast<int32_t>(rest.size());
  cp.slabs = static_cast<int32_t>(slabs);
  cp.a_blocks = copies.a ? mb : 0;
  cp.flags = static_cast<int32_t>(flag_words);
  cp.sync = sync;
  auto* ws = static_cast<uint8_t*>(pack_workspace);
  if (copies.a) {
    cp.a_src = copies.a->src;
    cp.a_dst = ws ? ws + copies.a->offset : nullptr;
    cp.a_src_row = copies.a->src_row;
    cp.a_ld = copies.a->ld;
  }
  if (copies.b) {
    cp.b_src = copies.b->src;
    cp.b_dst = ws ? ws + copies.b->offset : nullptr;
    cp.b_src_row = copies.b->src_row;
    cp.b_ld = copies.b->ld;
  }
  *out = cp;
  return true;
}

CopyBytes copy_bytes(const KernelCopies& copies, const sm90::CopyPlan& cp, const plan::Config& c) {
  CopyBytes out;
  auto split = [&](const Pack* pk, int ready, int rows_per_block) {
    if (pk == nullptr) return;
    const int64_t before_rows = std::min<int64_t>(pk->rows, int64_t(ready) * rows_per_block);
    const double per_row = 2.0 * static_cast<double>(pk->ld) * pk->elem_bytes;  // read + written
    out.before += per_row * static_cast<double>(before_rows);
    out.inside += per_row * static_cast<double>(pk->rows - before_rows);
  };
  split(copies.a, cp.a_ready, c.bm);
  split(copies.b, cp.b_ready, c.bn);
  return out;
}

CopyDecision decide_copies(const Route& r, const plan::DeviceProfile& d, const plan::Config& c) {
  CopyDecision out;
  const KernelCopies kc = kernel_copies(r, c);
  if (!kc.any()) return out;
  plan::Config inside = c;
  inside.copy_operands = true;  // (its copy buffers may leave room for fewer stages)
  const plan::Candidate cand = plan::evaluate_config(r.problem, d, inside, /*stages_given=*/false);
  if (!cand.feasible()) return out;
  const int64_t m = r.args.d.rows, n = r.args.d.cols, k = r.args.a.cols;
  sm90::CopyPlan cp;
  std::string why;
  if (!make_copy_plan(kc, c, m, n, k, cand.grid, nullptr, nullptr, sm90::kKSplitCounters, &cp, &why)) return out;
  out.possible = true;
  const plan::Candidate as_planned = plan::evaluate_config(r.problem, d, c, /*stages_given=*/true);
  const double kernel_us = as_planned.feasible() ? as_planned.time.predicted_us : cand.time.predicted_us;
  out.bytes = copy_bytes(kc, cp, cand.config);
  out.placement = plan::place_copies(d, kernel_us, cand.time.predicted_us, out.bytes.before, out.bytes.inside);
  return out;
}

plan::Config with_copies(const Route& r, const plan::DeviceProfile& d, plan::Config c) {
  c.copy_operands = true;
  const plan::Candidate cand = plan::evaluate_config(r.problem, d, c, /*stages_given=*/false);
  return cand.feasible() ? cand.config : c;
}

}  // namespace tilegemm::detail
