#include "schedule/working_set.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tilegemm::sched {

int64_t GemmExtent::a_band_bytes(int m_block) const {
  const int64_t rows = std::min<int64_t>(block_m, m - int64_t{m_block} * block_m);
  return rows * k * element_bytes;
}

int64_t GemmExtent::b_band_bytes(int n_block) const {
  const int64_t cols = std::min<int64_t>(block_n, n - int64_t{n_block} * block_n);
  return cols * k * element_bytes;
}

namespace {

// The unique bands of one wave, found with "last wave that saw this band" stamps: O(tiles).
struct WaveBands {
  std::vector<int> a;  // m_blocks, in first-seen order
  std::vector<int> b;  // n_blocks
  int num_tiles = 0;
};

class BandCollector {
 public:
  explicit BandCollector(TileGrid grid)
      : a_stamp_(static_cast<size_t>(grid.num_m_blocks), -1),
        b_stamp_(static_cast<size_t>(grid.num_n_blocks), -1) {}

  void collect(const Schedule& s, int num_ctas, int wave, WaveBands& out) {
    out.a.clear();
    out.b.clear();
    out.num_tiles = 0;
    const int first = wave * num_ctas;
    const int last = std::min(num_slots(s), first + num_ctas);
    for (int slot = first; slot < last; ++slot) {
      const TileWork w = slot_work(s, slot);
      if (!w.has_tile) continue;
      ++out.num_tiles;
      if (a_stamp_[w.tile.m_block] != wave) {
        a_stamp_[w.tile.m_block] = wave;
        out.a.push_back(w.tile.m_block);
      }
      if (b_stamp_[w.tile.n_block] != wave) {
        b_stamp_[w.tile.n_block] = wave;
        out.b.push_back(w.tile.n_block);
      }
    }
  }

 private:
  std::vector<int> a_stamp_, b_stamp_;
};

WaveStats stats_of(const Schedule& s, const GemmExtent& e, const WaveBands& bands, int wave, int num_ctas) {
  WaveStats st;
  st.wave = wave;
  st.first_slot = wave * num_ctas;
  st.num_tiles = bands.num_tiles;
  st.unique_a_bands = static_cast<int>(bands.a.size());
  st.unique_b_bands = static_cast<int>(bands.b.size());
  for (int m : bands.a) st.a_bytes += e.a_band_bytes(m);
  for (int n : bands.b) st.b_bytes += e.b_band_bytes(n);
  const SharerGaps g = wave_sharer_gaps(s, num_ctas, wave);
  st.a_sharer_gap = g.a;
  st.b_sharer_gap = g.b;
  return st;
}

// LRU over band-slices with a byte capacity. Keys are dense (band * num_slices + slice), so the
// list lives in two index arrays; slot `keys` is the list head (most recent after it).
class SliceLru {
 public:
  SliceLru(int32_t keys, int64_t capacity_bytes)
      : head_(keys), prev_(keys + 1, -1), next_(keys + 1, -1), bytes_(keys, 0),
        capacity_(capacity_bytes) {
    prev_[head_] = next_[head_] = head_;
  }

  // Touches `key`; returns true on a miss (the slice had to come from HBM).
  bool access(int32_t key, int64_t bytes) {
    const bool miss = bytes_[key] == 0;
    if (!miss) {
      unlink(key);
    } else {
      bytes_[key] = bytes;
      used_ += bytes;
    }
    push_front(key);
    while (used_ > capacity_ && next_[head_] != head_) {  // evict the least recent
      const int32_t victim = prev_[head_];
      unlink(victim);
      used_ -= bytes_[victim];
      bytes_[victim] = 0;
    }
    return miss;
  }

 private:
  void unlink(int32_t k) {
    next_[prev_[k]] = next_[k];
    prev_[next_[k]] = prev_[k];
  }
  void push_front(int32_t k) {
    prev_[k] = head_;
    next_[k] = next_[head_];
    prev_[next_[head_]] = k;
    next_[head_] = k;
  }

  int32_t head_;
  std::vector<int32_t> prev_, next_;
  std::vector<int64_t> bytes_;  // 0 = not cached
  int64_t capacity_;
  int64_t used_ = 0;
};

// Bounds on the model's work, so `tilegemm map` stays interactive on any shape: the slice is
// doubled until (band visits x slices) and the key space fit.
constexpr int64_t kMaxSliceVisits = int64_t{1} << 24;
constexpr int64_t kMaxKeys = int64_t{1} << 21;

void estimate_hbm(const GemmExtent& e, const std::vector<WaveBands>& bands,
                  const WorkingSetOptions& opt, WorkingSetReport& rep) {
  const TileGrid grid = e.grid();
  int64_t band_visits = 0;
  for (const WaveBands& wb : bands) band_visits += static_cast<int64_t>(wb.a.size() + wb.b.size());
  int64_t k_slice = std::max(1, opt.k_slice);
  auto slices_of = [&](int64_t ks) { return std::max<int64_t>(1, (e.k + ks - 1) / ks); };
  while (k_slice < e.k && (band_visits * slices_of(k_slice) > kMaxSliceVisits ||
                           (grid.num_m_blocks + grid.num_n_blocks) * slices_of(k_slice) > kMaxKeys))
    k_slice *= 2;
  rep.k_slice = static_cast<int>(std::min<int64_t>(k_slice, std::max<int64_t>(e.k, 1)));
  const int64_t slices = slices_of(k_slice);

  SliceLru lru(static_cast<int32_t>((grid.num_m_blocks + grid.num_n_blocks) * slices), opt.l2_bytes);
  std::vector<char> a_seen(static_cast<size_t>(grid.num_m_blocks), 0);
  std::vector<char> b_seen(static_cast<size_t>(grid.num_n_blocks), 0);
  for (size_t w = 0; w < bands.size(); ++w) {
    WaveStats& st = rep.waves[w];
    for (int64_t s = 0; s < slices; ++s) {
      const int64_t k_len = std::min<int64_t>(k_slice, e.k - s * k_slice);
      for (int m : bands[w].a) {
        const int64_t bytes = std::min<int64_t>(e.block_m, e.m - int64_t{m} * e.block_m) * k_len * e.element_bytes;
        if (bytes > 0 && lru.access(static_cast<int32_t>(m * slices + s), bytes)) {
          st.hbm_bytes += bytes;
          if (a_seen[m]) st.reread_bytes += bytes;
        }
      }
      for (int n : bands[w].b) {
        const int64_t bytes = std::min<int64_t>(e.block_n, e.n - int64_t{n} * e.block_n) * k_len * e.element_bytes;
        if (bytes > 0 && lru.access(static_cast<int32_t>((grid.num_m_blocks + n) * slices + s), bytes)) {
          st.hbm_bytes += bytes;
          if (b_seen[n]) st.reread_bytes += bytes;
        }
      }
    }
    for (int m : bands[w].a) a_seen[m] = 1;
    for (int n : bands[w].b) b_seen[n] = 1;
    rep.hbm_bytes += st.hbm_bytes;
    rep.reread_bytes += st.reread_bytes;
  }
}

}  // namespace

SharerGaps wave_sharer_gaps(const Schedule& s, int num_ctas, int wave) {
  std::vector<std::pair<int, int>> a, b;  // (band, slot), slots ascending
  const int first = wave * num_ctas;
  const int last = std::min(num_slots(s), first + num_ctas);
  for (int slot = first; slot < last; ++slot) {
    const TileWork w = slot_work(s, slot);
    if (!w.has_tile) continue;
    a.emplace_back(w.tile.m_block, slot);
    b.emplace_back(w.tile.n_block, slot);
  }
  auto mean_gap = [](std::vector<std::pair<int, int>>& v) {
    std::stable_sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    int64_t sum = 0, gaps = 0;
    for (size_t i = 1; i < v.size(); ++i)
      if (v[i].first == v[i - 1].first) {
        sum += v[i].second - v[i - 1].second;
        ++gaps;
      }
    return gaps > 0 ? static_cast<double>(sum) / static_cast<double>(gaps) : 0.0;
  };
  return SharerGaps{mean_gap(a), mean_gap(b)};
}

WaveStats wave_working_set(const Schedule& s, const GemmExtent& e, int num_ctas, int wave) {
  BandCollector collector(s.grid);
  WaveBands bands;
  collector.collect(s, num_ctas, wave, bands);
  return stats_of(s, e, bands, wave, num_ctas);
}

WorkingSetReport analyze_working_set(const Schedule& s, const GemmExtent& e,
                                     const WorkingSetOptions& opt) {
  WorkingSetReport rep;
  rep.num_ctas = opt.num_ctas;
  rep.k_slice = opt.k_slice;
  rep.compulsory_bytes = (e.m + e.n) * e.k * e.element_bytes;
  const int waves = num_waves(s, opt.num_ctas);
  std::vector<WaveBands> bands(static_cast<size_t>(waves));
  BandCollector collector(s.grid);
  for (int w = 0; w < waves; ++w) {
    collector.collect(s, opt.num_ctas, w, bands[w]);
    rep.waves.push_back(stats_of(s, e, bands[w], w, opt.num_ctas));
    rep.touched_bytes += rep.waves.back().working_set_bytes();
  }
  for (int i = 0; i < num_slots(s); ++i) {
    const TileWork w = slot_work(s, i);
    if (w.has_tile) rep.cta_read_bytes += e.a_band_bytes(w.tile.m_block) + e.b_band_bytes(w.tile.n_block);
  }
  if (opt.estimate_hbm) estimate_hbm(e, bands, opt, rep);
  return rep;
}

}  // namespace tilegemm::sched
