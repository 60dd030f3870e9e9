// The tuning cache (plan/tuning_cache.hpp): the file round-trips, entries are keyed by device and
// problem, a broken file or entry is reported and never used, the stored config is re-checked for
// the problem, and a write is atomic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"
#include "plan_test_util.hpp"

namespace tilegemm::plan {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("tilegemm-tuning-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

TuningDevice h200_device() { return TuningDevice{"NVIDIA H200", 132, 13000, "0.9.0+kernel.0123456789ab"}; }

const DeviceProfile& h200() {
  static const DeviceProfile p = *find_builtin_profile("h200");
  return p;
}

// An entry for `p` whose best is the plan's `rank`-th candidate (0 = the model's pick).
TuningEntry entry_for(const Problem& p, size_t rank, const TuningDevice& d = h200_device()) {
  const Plan plan = make_plan(p, h200());
  EXPECT_GT(plan.ranked.size(), rank);
  TuningEntry e;
  e.device = d;
  e.problem = p;
  e.best = {config_spec_text(plan.ranked[rank].config), 100.0 + rank, plan.ranked[rank].time.predicted_us};
  e.model = {config_spec_text(plan.chosen().config), 110.0, plan.chosen().time.predicted_us};
  e.label = describe(plan.ranked[rank].config);
  e.date = "2026-12-05T10:11:12Z";
  return e;
}

void write(const std::string& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

TEST(TuningCache, RoundTripsThroughItsFile) {
  TempDir dir;
  TuningCache cache;
  const Problem a = test::nt_problem(4096, 4096, 4096);
  Problem b = test::nt_problem(128, 7168, 2048, DType::fp32, /*accumulate=*/true);
  b.a_major = Major::mn_major;
  b.d_tma = false;
  cache.put(entry_for(a, 1));
  cache.put(entry_for(b, 2));
  const std::string file = dir.file("sub/dir/tuning.json");  // missing directories are created
  ASSERT_TRUE(cache.save(file).ok());
  std::vector<std::string> warnings;
  const TuningCache back = TuningCache::load(file, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(back.entries().size(), 2u);
  EXPECT_EQ(back.to_json(), cache.to_json());
  const TuningEntry* e = back.find(h200_device(), b);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->best.config, cache.entries()[1].best.config);
  EXPECT_EQ(e->best.measured_us, 102.0);
  EXPECT_EQ(e->model.measured_us, 110.0);
  EXPECT_EQ(e->problem.a_major, Major::mn_major);
  EXPECT_EQ(e->problem.out, DType::fp32);
  EXPECT_TRUE(e->problem.accumulate);
  EXPECT_FALSE(e->problem.d_tma);
  EXPECT_EQ(e->date, "2026-12-05T10:11:12Z");
}

TEST(TuningCache, AMissingFileIsAnEmptyCacheWithoutWarnings) {
  std::vector<std::string> warnings;
  const TuningCache c = TuningCache::load("/nonexistent/tilegemm/tuning.json", &warnings);
  EXPECT_TRUE(c.entries().empty());
  EXPECT_TRUE(warnings.empty());
}

TEST(TuningCache, PutReplacesTheSameKey) {
  TuningCache cache;
  const Problem p = test::nt_problem(4096, 4096, 4096);
  cache.put(entry_for(p, 1));
  cache.put(entry_for(p, 2));
  ASSERT_EQ(cache.entries().size(), 1u);
  EXPECT_EQ(cache.find(h200_device(), p)->best.measured_us, 102.0);
}

// Every field of the device key and every field of the problem key separates entries.
TEST(TuningCache, KeyedByDeviceAndProblem) {
  TuningCache cache;
  const Problem p = test::nt_problem(4096, 4096, 4096);
  cache.put(entry_for(p, 1));
  const TuningDevice d = h200_device();
  ASSERT_NE(cache.find(d, p), nullptr);
  std::vector<TuningDevice> others(4, d);
  others[0].gpu = "NVIDIA H100 80GB HBM3";
  others[1].sm_count = 114;
  others[2].driver_version = 13010;
  others[3].library_version = "0.9.0+kernel.ba9876543210";
  for (const TuningDevice& o : others) {
    SCOPED_TRACE(o.label());
    EXPECT_EQ(cache.find(o, p), nullptr);
    const TunedLookup l = lookup_tuned(cache, o, p, h200());
    EXPECT_EQ(l.kind, TunedLookup::Kind::stale);
    EXPECT_NE(l.reason.find(d.label()), std::string::npos) << l.reason;  // names where it was measured
  }
  std::vector<Problem> near(8, p);
  near[0].m = 4095;
  near[1].k = 4032;
  near[2].a_major = Major::mn_major;
  near[3].b_major = Major::mn_major;
  near[4].out = DType::fp32;
  near[5].accumulate = true;
  near[6].d_tma = false;
  near[7].cd_pairs = false;
  for (const Problem& q : near) {
    SCOPED_TRACE(tuning_problem_key(q));
    EXPECT_NE(tuning_problem_key(q), tuning_problem_key(p));
    EXPECT_EQ(lookup_tuned(cache, d, q, h200()).kind, TunedLookup::Kind::none);
  }
  Problem padded = p;  // leading dimensions are not part of the key (the planner does not read them)
  padded.lda = padded.ldb = padded.ldd = 4104;
  EXPECT_EQ(lookup_tuned(cache, d, padded, h200()).kind, TunedLookup::Kind::hit);
}

TEST(TuningCache, AHitIsTheStoredConfigCompletedForTheProblem) {
  TuningCache cache;
  const Problem p = test::nt_problem(128, 7168, 2048);
  const Plan plan = make_plan(p, h200());
  cache.put(entry_for(p, 3));
  const TunedLookup l = lookup_tuned(cache, h200_device(), p, h200());
  ASSERT_TRUE(l.hit()) << l.reason;
  EXPECT_EQ(describe(l.candidate.config), describe(plan.ranked[3].config));
  EXPECT_EQ(l.candidate.time.predicted_us, plan.ranked[3].time.predicted_us);
}

TEST(TuningCache, ABrokenFileIsIgnoredWithAWarning) {
  TempDir dir;
  const std::string file = dir.file("tuning.json");
  for (const std::string& text : {std::string("{\"schema\": \"tilegemm.tuning/1\", \"entries\": ["),  // cut short
                                  std::string("not json at all"), std::string("{\"entries\": []}"),
                                  std::string("{\"schema\": \"tilegemm.tuning/9\", \"entries\": []}"),
                                  std::string("[1, 2, 3]")}) {
    SCOPED_TRACE(text);
    write(file, text);
    std::vector<std::string> warnings;
    const TuningCache c = TuningCache::load(file, &warnings);
    EXPECT_TRUE(c.entries().empty());
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(file), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("tilegemm.tuning/1"), std::string::npos) << warnings[0];
  }
}

TEST(TuningCache, ABrokenEntryIsDroppedAndNamedTheOthersKept) {
  TuningCache good;
  good.put(entry_for(test::nt_problem(4096, 4096, 4096), 1));
  good.put(entry_for(test::nt_problem(1, 7168, 2048), 1));
  std::string text = good.to_json();
  const size_t at = text.find("\"sm_count\": 132");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "\"sm_count\": \"many\"");  // the first entry's device: a string, not a number
  std::vector<std::string> warnings;
  const TuningCache c = TuningCache::parse(text, "test.json", &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("entry 0"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("sm_count"), std::string::npos) << warnings[0];
  ASSERT_EQ(c.entries().size(), 1u);
  EXPECT_EQ(c.entries()[0].problem.m, 1);
}

TEST(TuningCache, AnInfeasibleOrUnparsableConfigIsIgnored) {
  TuningCache cache;
  const Problem p = test::nt_problem(64, 4096, 4096);  // one m-block: a 2x1 cluster has no peer
  TuningEntry e = entry_for(p, 0);
  e.best.config = "128x256,stages=4,cluster=2x1,mapping=grouped-m:8,persistent";
  cache.put(e);
  TunedLookup l = lookup_tuned(cache, h200_device(), p, h200());
  EXPECT_EQ(l.kind, TunedLookup::Kind::infeasible);
  EXPECT_NE(l.reason.find("cluster.pairs"), std::string::npos) << l.reason;
  e.best.config = "128x256,stages=16,cluster=1x1,mapping=grouped-m:8,persistent";  // 16 stages do not fit
  cache.put(e);
  l = lookup_tuned(cache, h200_device(), p, h200());
  EXPECT_EQ(l.kind, TunedLookup::Kind::infeasible);
  EXPECT_NE(l.reason.find("smem.fit"), std::string::npos) << l.reason;
  e.best.config = "128x250";
  cache.put(e);
  l = lookup_tuned(cache, h200_device(), p, h200());
  EXPECT_EQ(l.kind, TunedLookup::Kind::unparsable);
  EXPECT_NE(l.reason.find("BN=250"), std::string::npos) << l.reason;
}

// Readers never see part of a file: while one thread rewrites the cache with two different
// contents, every read parses cleanly to one of them; no temp file is left behind.
TEST(TuningCache, SavesAreAtomic) {
  TempDir dir;
  const std::string file = dir.file("tuning.json");
  TuningCache small, large;
  small.put(entry_for(test::nt_problem(4096, 4096, 4096), 1));
  for (const auto& s : test::kSuite) large.put(entry_for(test::nt_problem(s.m, s.n, s.k), 0));
  ASSERT_TRUE(small.save(file).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) EXPECT_TRUE((i % 2 ? small : large).save(file).ok());
    stop = true;
  });
  int reads = 0;
  while (!stop) {
    std::vector<std::string> warnings;
    const TuningCache c = TuningCache::load(file, &warnings);
    ASSERT_TRUE(warnings.empty()) << warnings.front();
    ASSERT_TRUE(c.entries().size() == small.entries().size() || c.entries().size() == large.entries().size());
    ++reads;
  }
  writer.join();
  EXPECT_GT(reads, 0);
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir.path)) files += f.path().filename() == "tuning.json" ? 1 : 100;
  EXPECT_EQ(files, 1) << "temp files left in " << dir.path;
}

TEST(TuningCache, AFailedSaveNamesThePathAndLeavesNoFile) {
  TempDir dir;
  write(dir.file("plain"), "a file, not a directory");
  TuningCache cache;
  cache.put(entry_for(test::nt_problem(4096, 4096, 4096), 1));
  const std::string file = dir.file("plain/tuning.json");
  const Status s = cache.save(file);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find(file), std::string::npos) << s.message;
  EXPECT_FALSE(fs::exists(file));
}

TEST(TuningCache, DatesAreUtcIso8601) {
  const std::string d = utc_now_iso8601();
  ASSERT_EQ(d.size(), 20u) << d;
  EXPECT_EQ(d[4], '-');
  EXPECT_EQ(d[10], 'T');
  EXPECT_EQ(d.back(), 'Z');
  EXPECT_GE(d.substr(0, 4), "2024");
}

}  // namespace
}  // namespace tilegemm::plan
