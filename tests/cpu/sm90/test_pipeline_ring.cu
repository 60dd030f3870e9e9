// A host model of the smem ring (ladder steps 5-9 and the production kernel), run under random
// interleavings.
//
// The barriers follow PTX §9.7.13.15 (docs/HOPPER.md §6): a phase completes when its pending
// arrivals and its tx-count both reach 0; a waiter names a parity and sees only the parity of the
// last completed phase (a fresh barrier answers wait(1) at once). The producers and consumers step
// through the k-blocks with the kernels' own RingState (sm90/pipeline.cuh). Copies are in flight between
// issue and landing and land in any order; with a 2-CTA cluster each producer multicasts half of
// the shared operand into both CTAs and the empty barriers count both CTAs' consumer warps.
// Checked on every interleaving:
//   - no copy lands in a stage while a consumer warp of that CTA may still read the old k-block;
//   - every consumer reads exactly the k-block it expects, completely landed (parity never aliases);
//   - nothing deadlocks, and every barrier completes one phase per pass.
// A .cu file because pipeline.cuh holds device code too; only RingState is used here.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sm90/pipeline.cuh"

namespace tilegemm::sm90 {
namespace {

struct Mbarrier {
  int expected = 0, pending = 0, tx = 0;
  int completed = 0;  // phases completed; a waiter can only see completed & 1
  std::string* error = nullptr;
  void init(int count, std::string* err) {
    expected = pending = count;
    tx = completed = 0;
    error = err;
  }
  void complete_if_done() {
    if (pending == 0 && tx == 0) {
      ++completed;
      pending = expected;
    }
  }
  void arrive() {
    if (pending <= 0 && error->empty()) *error = "more arrivals than the barrier expects";
    --pending;
    complete_if_done();
  }
  void arrive_expect_tx(int bytes) {
    tx += bytes;
    arrive();
  }
  void complete_tx(int bytes) {
    tx -= bytes;  // may go negative: a peer's multicast can land before the local expect_tx
    complete_if_done();
  }
  bool try_wait_parity(uint32_t parity) const { return uint32_t(completed & 1) != parity; }
};

struct RingConfig {
  int cluster = 1;          // CTAs per cluster (1 or 2)
  int warps_per_cta = 8;    // consumer warps; lane 0 of each arrives on empty
  int blocks_per_tile = 5;  // k-blocks per output tile
  int tiles = 3;            // tiles in a row (persistent CTA)
  bool release_late = false;  // wait<1> style: release stage kb after reading kb + 1; wait<0> at tile end
  int a_bytes = 16384, b_bytes = 32768;
  // Ping-pong consumers: the warps form two consumers (warps_per_cta / 2 each); tile t is consumer
  // t % 2's alone, the other passes over its k-blocks (RingState::advance_by), and a stage's empty
  // barrier counts only the warps of the consumer whose tile it holds.
  // A consumer starts on its tile only once the other's warps have all passed their last full
  // wait of the tile before (the turn barriers, kernel.cuh).
  bool pingpong = false;
  // Deliberate bugs, for the tests that show the model has teeth.
  bool bug_producer_waits_phase = false;  // empty wait with `phase` instead of `phase ^ 1`
  bool bug_consumer_flips_parity = false; // full wait with `phase ^ 1` instead of `phase`
  int bug_empty_count = 0;                // != 0: empty barriers expect this many arrivals
  bool bug_pingpong_no_skip = false;      // ping-pong consumer steps over the other's blocks one short
  bool bug_pingpong_no_turn = false;      // ping-pong consumers start their tiles without the turn barriers
};

struct Copy {
  int dst_cta, stage, block, bytes;
};

struct StageContent {
  int block = -1;     // k-block whose bytes are (being) written here
  int bytes = 0;      // bytes of it landed so far
  int released = 0;   // consumer warps of this CTA done with it
};

template <int kStages>
std::string simulate(const RingConfig& cfg, uint32_t seed) {
  std::string error;
  const int blocks = cfg.blocks_per_tile * cfg.tiles;
  const int stage_bytes = cfg.a_bytes + cfg.b_bytes;
  const int nc = cfg.cluster;
  std::vector<std::vector<Mbarrier>> full(nc, std::vector<Mbarrier>(kStages)), empty = full;
  std::vector<std::vector<StageContent>> content(nc, std::vector<StageContent>(kStages));
  const int releasers = cfg.pingpong ? cfg.warps_per_cta / 2 : cfg.warps_per_cta;  // warps reading a stage per CTA
  for (int c = 0; c < nc; ++c)
    for (int s = 0; s < kStages; ++s) {
      full[c][s].init(1, &error);
      empty[c][s].init(cfg.bug_empty_count ? cfg.bug_empty_count : nc * releasers, &error);
    }

  struct Producer {
    RingState<kStages> ring;
    int next = 0;
  };
  struct Consumer {
    int cta = 0;
    int group = 0;  // ping-pong: which consumer this warp belongs to
    RingState<kStages> ring;
    int next = 0;
    int held = -1;  // stage read but not yet released (release_late)
  };
  // Ping-pong turn barriers: turn[c][g] completes when the other consumer's warps have passed the
  // last full wait of a tile.
  std::vector<std::vector<Mbarrier>> turn(nc, std::vector<Mbarrier>(2));
  for (auto& t : turn)
    for (auto& b : t) b.init(cfg.warps_per_cta / 2, &error);
  auto turn_open = [&](int cta, int group, int tile) {
    const int other_before = (tile + 1) / 2;  // the other consumer's tiles before this one (kernel.cuh)
    return cfg.bug_pingpong_no_turn || other_before == 0 ||
           turn[cta][group].try_wait_parity(uint32_t(other_before - 1) & 1u);
  };
  std::vector<Producer> producers(nc);
  std::vector<Consumer> consumers;
  for (int c = 0; c < nc; ++c)
    for (int w = 0; w < cfg.warps_per_cta; ++w) consumers.push_back(Consumer{c, w / (cfg.warps_per_cta / 2)});
  // Ping-pong: between tiles, a warp passes over every tile of the other consumer at once.
  auto skip_others = [&](Consumer& q) {
    if (!cfg.pingpong || q.held >= 0) return;
    while (q.next < blocks && q.next % cfg.blocks_per_tile == 0 && (q.next / cfg.blocks_per_tile) % 2 != q.group) {
      q.ring.advance_by(cfg.bug_pingpong_no_skip ? cfg.blocks_per_tile - 1 : cfg.blocks_per_tile);
      q.next += cfg.blocks_per_tile;
    }
  };
  std::vector<Copy> in_flight;

  auto release = [&](int cta, int s) {
    content[cta][s].released++;
    for (int d = 0; d < nc; ++d) empty[d][s].arrive();  // local + remote arrive (mapa)
  };
  auto producer_parity = [&](const Producer& p) {
    return cfg.bug_producer_waits_phase ? p.ring.phase : p.ring.empty_parity();
  };
  auto consumer_parity = [&](const Consumer& q) {
    return cfg.bug_consumer_flips_parity ? q.ring.phase ^ 1u : q.ring.full_parity();
  };

  std::mt19937 rng(seed);
  enum Kind { kProduce, kLand, kConsume, kTileEnd };
  struct Action {
    Kind kind;
    int index;
  };
  std::vector<Action> enabled;
  for (int guard = 0; guard < 1000000 && error.empty(); ++guard) {
    enabled.clear();
    for (int c = 0; c < nc; ++c) {
      const Producer& p = producers[c];
      if (p.next < blocks && empty[c][p.ring.stage].try_wait_parity(producer_parity(p)))
        enabled.push_back({kProduce, c});
    }
    for (int i = 0; i < int(in_flight.size()); ++i) enabled.push_back({kLand, i});
    for (int i = 0; i < int(consumers.size()); ++i) {
      skip_others(consumers[i]);
      const Consumer& q = consumers[i];
      const bool tile_done = q.next > 0 && q.next % cfg.blocks_per_tile == 0;
      if (q.held >= 0 && (tile_done || q.next == blocks)) enabled.push_back({kTileEnd, i});
      else if (q.next < blocks && full[q.cta][q.ring.stage].try_wait_parity(consumer_parity(q)) &&
               (!cfg.pingpong || q.next % cfg.blocks_per_tile != 0 ||
                turn_open(q.cta, q.group, q.next / cfg.blocks_per_tile)))
        enabled.push_back({kConsume, i});
    }
    if (enabled.empty()) break;
    const Action act = enabled[std::uniform_int_distribution<int>(0, int(enabled.size()) - 1)(rng)];

    if (act.kind == kProduce) {  // wait empty passed: arm full, start the copies
      Producer& p = producers[act.index];
      const int c = act.index, s = p.ring.stage;
      full[c][s].arrive_expect_tx(stage_bytes);  // every CTA expects the whole stage
      in_flight.push_back({c, s, p.next, cfg.a_bytes});
      for (int d = 0; d < nc; ++d) in_flight.push_back({d, s, p.next, cfg.b_bytes / nc});  // multicast half
      p.ring.advance();
      ++p.next;
    } else if (act.kind == kLand) {  // a copy writes its bytes and completes tx on the dst's full
      const Copy cp = in_flight[act.index];
      in_flight.erase(in_flight.begin() + act.index);
      StageContent& sc = content[cp.dst_cta][cp.stage];
      if (cp.block != sc.block) {
        if (cp.block < sc.block) {
          error = "a copy of k-block " + std::to_string(cp.block) + " landed after k-block " +
                  std::to_string(sc.block) + " in stage " + std::to_string(cp.stage);
          break;
        }
        if (sc.block >= 0 && (sc.bytes != stage_bytes || sc.released != releasers)) {
          error = "k-block " + std::to_string(cp.block) + " overwrites stage " + std::to_string(cp.stage) +
                  " of CTA " + std::to_string(cp.dst_cta) + " while k-block " + std::to_string(sc.block) +
                  " is released by only " + std::to_string(sc.released) + " of " +
                  std::to_string(releasers) + " warps";
          break;
        }
        sc = StageContent{cp.block, 0, 0};
      }
      sc.bytes += cp.bytes;
      full[cp.dst_cta][cp.stage].complete_tx(cp.bytes);
    } else if (act.kind == kConsume) {  // wait full passed: the stage must hold this k-block, whole
      Consumer& q = consumers[act.index];
      const int s = q.ring.stage;
      const StageContent& sc = content[q.cta][s];
      if (sc.block != q.next || sc.bytes != stage_bytes) {
        error = "a warp of CTA " + std::to_string(q.cta) + " read stage " + std::to_string(s) + " for k-block " +
                std::to_string(q.next) + " but it holds k-block " + std::to_string(sc.block) + " with " +
                std::to_string(sc.bytes) + " of " + std::to_string(stage_bytes) + " bytes";
        break;
      }
      if (cfg.release_late) {
        if (q.held >= 0) release(q.cta, q.held);  // wgmma of the previous k-block retired (wait<1>)
        q.held = s;
      } else {
        release(q.cta, s);  // wait<0>
      }
      q.ring.advance();
      ++q.next;
      if (cfg.pingpong && q.next % cfg.blocks_per_tile == 0) turn[q.cta][1 - q.group].arrive();  // its last wait
    } else {  // tile end: wait<0>, release the last stage
      Consumer& q = consumers[act.index];
      release(q.cta, q.held);
      q.held = -1;
    }
  }
  if (!error.empty()) return error;

  bool finished = in_flight.empty();
  for (const Producer& p : producers) finished = finished && p.next == blocks;
  for (Consumer& q : consumers) {
    skip_others(q);
    finished = finished && q.next == blocks && q.held < 0;
  }
  if (!finished) return "deadlock: no producer, copy or consumer can make progress";
  for (int c = 0; c < nc; ++c)
    for (int s = 0; s < kStages; ++s) {
      const int passes = blocks / kStages + (s < blocks % kStages ? 1 : 0);
      if (full[c][s].completed != passes || empty[c][s].completed != passes)
        return "stage " + std::to_string(s) + " completed " + std::to_string(full[c][s].completed) + " full and " +
               std::to_string(empty[c][s].completed) + " empty phases, expected " + std::to_string(passes);
    }
  return {};
}

template <int kStages>
void expect_all_interleavings_safe(RingConfig cfg, int seeds) {
  for (uint32_t seed = 1; seed <= uint32_t(seeds); ++seed) {
    const std::string e = simulate<kStages>(cfg, seed);
    ASSERT_EQ(e, "") << kStages << " stages, cluster " << cfg.cluster << ", release_late " << cfg.release_late
                     << ", seed " << seed;
  }
}

// Ladder steps 5-7: one CTA, wait<0> release (4-stage rings).
TEST(RingModel, OneCtaReleaseAfterWait0) {
  RingConfig cfg;
  expect_all_interleavings_safe<3>(cfg, 300);
  expect_all_interleavings_safe<4>(cfg, 300);  // steps 5-7
  expect_all_interleavings_safe<7>(cfg, 300);
}

// Step 8: 2-CTA cluster, multicast halves, cluster-wide release.
TEST(RingModel, ClusterOf2MulticastReleaseAfterWait0) {
  RingConfig cfg;
  cfg.cluster = 2;
  expect_all_interleavings_safe<4>(cfg, 300);  // step 8
  expect_all_interleavings_safe<7>(cfg, 300);
}

// Step 9 and the production kernel: cluster + wait<1> (release the previous stage, hold one),
// tiles of odd length so the ring position never lines up with tile starts.
TEST(RingModel, ClusterOf2ReleaseAfterWait1) {
  RingConfig cfg;
  cfg.cluster = 2;
  cfg.release_late = true;
  cfg.blocks_per_tile = 7;
  expect_all_interleavings_safe<4>(cfg, 300);  // step 9, production 128x256
  expect_all_interleavings_safe<3>(cfg, 300);
  expect_all_interleavings_safe<6>(cfg, 300);  // production 128x128
}

TEST(RingModel, SingleBlockTilesAndShortRings) {
  RingConfig cfg;
  cfg.blocks_per_tile = 1;
  cfg.tiles = 9;
  cfg.release_late = true;
  expect_all_interleavings_safe<2>(cfg, 200);
  cfg.cluster = 2;
  expect_all_interleavings_safe<2>(cfg, 200);
}

// Ping-pong consumers (Config::pingpong): tiles alternate between two consumers of 4 warps, each
// passing over the other's k-blocks with RingState::advance_by; an odd number of tiles, tile
// lengths that do not divide the ring, and single-block tiles.
TEST(RingModel, PingpongConsumersPassOverEachOthersBlocks) {
  RingConfig cfg;
  cfg.pingpong = true;
  cfg.release_late = true;
  cfg.blocks_per_tile = 7;
  cfg.tiles = 5;
  expect_all_interleavings_safe<4>(cfg, 300);
  expect_all_interleavings_safe<3>(cfg, 300);
  cfg.cluster = 2;
  expect_all_interleavings_safe<5>(cfg, 300);
  cfg.blocks_per_tile = 1;
  cfg.tiles = 9;
  expect_all_interleavings_safe<4>(cfg, 300);
  cfg.cluster = 1;
  cfg.blocks_per_tile = 3;
  expect_all_interleavings_safe<6>(cfg, 300);
}

TEST(RingModel, RingStateAdvanceByIsRepeatedAdvance) {
  for (int n = 0; n < 40; ++n)
    for (int start = 0; start < 12; ++start) {
      RingState<5> a, b;
      for (int i = 0; i < start; ++i) a.advance(), b.advance();
      for (int i = 0; i < n; ++i) a.advance();
      b.advance_by(n);
      ASSERT_EQ(a.stage, b.stage) << start << " + " << n;
      ASSERT_EQ(a.phase, b.phase) << start << " + " << n;
    }
}

// The model has teeth: each classic bug from docs/HOPPER.md §12 is caught.
TEST(RingModel, ProducerStartingOnTheWrongParityDeadlocks) {
  RingConfig cfg;
  cfg.bug_producer_waits_phase = true;
  EXPECT_NE(simulate<4>(cfg, 1).find("deadlock"), std::string::npos);
}

TEST(RingModel, ConsumerOnTheWrongParityReadsAnIncompleteStage) {
  RingConfig cfg;
  cfg.bug_consumer_flips_parity = true;
  EXPECT_NE(simulate<4>(cfg, 1).find("read stage"), std::string::npos);
}

TEST(RingModel, EmptyCountWithoutThePeersConsumersOverwritesALiveStage) {
  RingConfig cfg;
  cfg.cluster = 2;
  cfg.bug_empty_count = cfg.warps_per_cta;  // forgot the peer CTA's warps: phases complete early
  int caught = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    const std::string e = simulate<4>(cfg, seed);
    if (!e.empty()) ++caught;
  }
  EXPECT_GT(caught, 0) << "no interleaving exposed the missing peer arrivals";
}

TEST(RingModel, PingpongWithTheCooperativeEmptyCountDeadlocks) {
  RingConfig cfg;
  cfg.pingpong = true;
  cfg.release_late = true;
  cfg.bug_empty_count = cfg.warps_per_cta;  // both consumers' warps: the other never arrives
  EXPECT_NE(simulate<4>(cfg, 1).find("deadlock"), std::string::npos);
}

TEST(RingModel, PingpongWithoutTurnsReadsAnotherTilesBlock) {
  // Without the turn barriers, the consumer that passes over a tile of more k-blocks than stages
  // waits on a stage two phases ahead and its parity wait returns on an old phase.
  RingConfig cfg;
  cfg.pingpong = true;
  cfg.release_late = true;
  cfg.blocks_per_tile = 9;
  cfg.bug_pingpong_no_turn = true;
  int caught = 0;
  for (uint32_t seed = 1; seed <= 50; ++seed)
    if (simulate<4>(cfg, seed).find("read stage") != std::string::npos) ++caught;
  EXPECT_GT(caught, 0);
}

TEST(RingModel, PingpongSkippingOneBlockShortIsCaught) {
  RingConfig cfg;
  cfg.pingpong = true;
  cfg.release_late = true;
  cfg.bug_pingpong_no_skip = true;
  EXPECT_NE(simulate<4>(cfg, 1), "");
}

}  // namespace
}  // namespace tilegemm::sm90
