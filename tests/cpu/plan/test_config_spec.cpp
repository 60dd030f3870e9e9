// --config parsing, layout names, and the device profile table.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"

namespace tilegemm::plan {
namespace {

TEST(ConfigSpec, ParsesEveryItem) {
  const ParsedConfigSpec r =
      parse_config_spec("128x256,stages=4,cluster=1x2,mapping=grouped-n:16,static,splitk=2");
  ASSERT_TRUE(r.ok()) << r.error;
  const Config& c = r.spec.config;
  EXPECT_EQ(c.bm, 128);
  EXPECT_EQ(c.bn, 256);
  EXPECT_EQ(c.stages, 4);
  EXPECT_TRUE(r.spec.stages_given);
  EXPECT_EQ(c.cluster_m, 1);
  EXPECT_EQ(c.cluster_n, 2);
  EXPECT_EQ(c.mapping.kind, sched::MappingKind::grouped_n);
  EXPECT_EQ(c.mapping.group, 16);
  EXPECT_FALSE(c.persistent);
  EXPECT_EQ(c.split_k, 2);
  const ParsedConfigSpec st = parse_config_spec("128x256,stage=64,pingpong");
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_EQ(st.spec.config.stage_cols, 64);
  EXPECT_TRUE(st.spec.config.pingpong);
  EXPECT_EQ(st.spec.config.acc_sets, 0);  // the planner's choice
  EXPECT_EQ(parse_config_spec("64x16,accsets=1").spec.config.acc_sets, 1);
  // A spec's config before the planner completes it (no staging width chosen yet) prints back as a
  // spec that parses: no "stage=0".
  for (const char* text : {"128x128,pingpong", "128x256,stage=64", "64x16,swapab,splitk=4"}) {
    const std::string back = config_spec_text(parse_config_spec(text).spec.config);
    EXPECT_EQ(back.find("stage=0"), std::string::npos) << back;
    const ParsedConfigSpec again = parse_config_spec(back);
    ASSERT_TRUE(again.ok()) << again.error;
    EXPECT_EQ(again.spec.config.stage_cols, parse_config_spec(text).spec.config.stage_cols) << text;
  }
}

TEST(ConfigSpec, DsmMakesTheSplitACluster) {
  // `dsm`: the slices of a split-K are one thread-block cluster (Config::cluster_k = split_k).
  ParsedConfigSpec r = parse_config_spec("64x16,swapab,splitk=4,dsm");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.spec.config.cluster_k, 4);
  EXPECT_TRUE(r.spec.config.stream_k);
  r.spec.config.epilogue = Epilogue::direct;  // what the planner completes for swap-AB
  EXPECT_EQ(sm90::check_kernel_config(r.spec.config), sm90::ConfigRule::ok);
  EXPECT_NE(config_spec_text(r.spec.config).find(",splitk=4,dsm"), std::string::npos);
  EXPECT_EQ(parse_config_spec(config_spec_text(r.spec.config)).spec.config.cluster_k, 4);  // round trip
  EXPECT_NE(describe(r.spec.config).find("splitK=4 dsm"), std::string::npos);
  // The order of the items does not matter; the split must be 2..8 (the portable cluster size).
  EXPECT_EQ(parse_config_spec("64x16,dsm,splitk=8").spec.config.cluster_k, 8);
  for (const char* bad : {"64x16,dsm", "64x16,splitk=12,dsm", "64x16,streamk,dsm", "64x16,splitk=2,dsm=1"}) {
    const ParsedConfigSpec e = parse_config_spec(bad);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.error.find("dsm"), std::string::npos) << e.error;
  }
  // The template's rule: cluster_k only with split-K of the same count, at most 8.
  Config c;
  c.epilogue = Epilogue::direct;
  c.cluster_k = 2;
  EXPECT_EQ(sm90::check_kernel_config(c), sm90::ConfigRule::cluster_k);
  c.stream_k = true;
  c.split_k = 3;
  EXPECT_EQ(sm90::check_kernel_config(c), sm90::ConfigRule::cluster_k);
  c.split_k = 2;
  EXPECT_EQ(sm90::check_kernel_config(c), sm90::ConfigRule::ok);
  EXPECT_EQ(sm90::kernel_code_config(c).split_k, 2);  // the code keeps the cluster's slice count
  EXPECT_EQ(c.launch_cluster_size(), 2);
}

TEST(ConfigSpec, RunsAreAStreamKLaunchField) {
  // `runs`: stream-K over runs of tiles (Config::sk_runs), a launch field: the kernel's code is the
  // plain stream-K one, and only stream-K (not split-K, not unsplit) takes it.
  ParsedConfigSpec r = parse_config_spec("128x152,swapab,streamk,runs,mapping=grouped-n:8");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.spec.config.sk_runs);
  EXPECT_NE(config_spec_text(r.spec.config).find(",streamk,runs"), std::string::npos);
  EXPECT_TRUE(parse_config_spec(config_spec_text(r.spec.config)).spec.config.sk_runs);  // round trip
  EXPECT_NE(describe(r.spec.config).find("streamK runs"), std::string::npos);
  EXPECT_FALSE(sm90::kernel_code_config(r.spec.config).sk_runs);
  EXPECT_TRUE(parse_config_spec("128x128,runs,streamk").spec.config.sk_runs);  // any order
  for (const char* bad : {"128x128,runs", "128x128,splitk=2,runs", "128x128,streamk,runs=1"}) {
    const ParsedConfigSpec e = parse_config_spec(bad);
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.error.find("runs"), std::string::npos) << e.error;
  }
  Config c;
  c.epilogue = Epilogue::direct;
  c.sk_runs = true;
  EXPECT_EQ(sm90::check_kernel_config(c), sm90::ConfigRule::epilogue_split);
  c.stream_k = true;
  EXPECT_EQ(sm90::check_kernel_config(c), sm90::ConfigRule::ok);
  c.split_k = 2;
  EXPECT_EQ(sm90::check_kernel_config(c), sm90::ConfigRule::epilogue_split);
}

TEST(ConfigSpec, DefaultsFollowThePlannerRules) {
  const ParsedConfigSpec r = parse_config_spec("64x128,cluster=1x2");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.spec.stages_given);
  EXPECT_EQ(r.spec.config.mapping.kind, sched::MappingKind::grouped_n);  // A-multicast pairs
  EXPECT_EQ(r.spec.config.mapping.group, 8);
  EXPECT_TRUE(r.spec.config.persistent);
  const ParsedConfigSpec box = parse_config_spec("128x128,mapping=box:2x4");
  ASSERT_TRUE(box.ok()) << box.error;
  EXPECT_EQ(box.spec.config.mapping.box_n, 4);
}

TEST(ConfigSpec, ErrorsNameOptionValueAndRule) {
  struct Bad {
    const char* text;
    const char* expect;
  };
  const Bad cases[] = {
      {"128", "BMxBN"},
      {"96x128", "BM=96 must be 64, 128 or 256"},
      {"128x250", "BN=250 must be a multiple of 8"},
      {"128x100", "BN=100 must be a multiple of 8"},
      {"128x128,stages=2", "stages=2 must be an integer in [3, 16]"},
      {"128x128,cluster=2x2", "cluster=2x2 must be 1x1, 2x1"},
      {"128x128,mapping=spiral", "mapping 'spiral': unknown mapping; the mappings are"},
      {"128x128,splitk=0", "splitk=0"},
      {"128x128,warp=4", "unknown item \"warp=4\""},
      {"128x128,", "empty item"},
      {"128x128,stage=40", "stage=40 must be a multiple of 16"},
      {"64x64,accsets=3", "accsets=3 must be 1 or 2"},
  };
  for (const Bad& b : cases) {
    const ParsedConfigSpec r = parse_config_spec(b.text);
    EXPECT_FALSE(r.ok()) << b.text;
    EXPECT_NE(r.error.find("--config"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(b.text), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(b.expect), std::string::npos) << r.error;
  }
}

TEST(Layout, DeepGemmNames) {
  Major a{}, b{};
  ASSERT_TRUE(parse_layout("nt", &a, &b));
  EXPECT_EQ(a, Major::k_major);
  EXPECT_EQ(b, Major::k_major);
  ASSERT_TRUE(parse_layout("nn", &a, &b));
  EXPECT_EQ(b, Major::mn_major);
  ASSERT_TRUE(parse_layout("tn", &a, &b));
  EXPECT_EQ(a, Major::mn_major);
  EXPECT_EQ(b, Major::mn_major);  // tn = both MN-major
  ASSERT_TRUE(parse_layout("tt", &a, &b));
  EXPECT_EQ(a, Major::mn_major);
  EXPECT_EQ(b, Major::k_major);
  EXPECT_FALSE(parse_layout("xx", &a, &b));
  for (const char* name : {"nt", "nn", "tn", "tt"}) {
    ASSERT_TRUE(parse_layout(name, &a, &b));
    EXPECT_STREQ(layout_name(a, b), name);
  }
}

TEST(DeviceProfiles, BuiltInTable) {
  ASSERT_EQ(builtin_profiles().size(), 4u);
  EXPECT_EQ(builtin_profile_names(), "h200|h100|h20|h800");
  const DeviceProfile h200 = *find_builtin_profile("H200");  // case-insensitive
  EXPECT_EQ(h200.sm_count, 132);
  EXPECT_EQ(h200.l2_bytes, int64_t{60} << 20);
  EXPECT_NEAR(h200.hbm_bytes_per_s, 3.75e12, 1e3);  // streaming under the bench's flush, not a copy's 4.3
  EXPECT_NEAR(h200.tma_fill_bytes_per_s, 5.7e12, 1e3);  // measured against the copy rate, kept
  EXPECT_DOUBLE_EQ(h200.limit_norm_p, 16.0);
  EXPECT_DOUBLE_EQ(h200.tc_peak_flops, 989e12);
  EXPECT_DOUBLE_EQ(h200.l2_bytes_per_cycle, 6153);    // min(64 * 132, 6153)
  EXPECT_DOUBLE_EQ(h200.local_bytes_per_cycle, 16896);  // 128 * 132
  EXPECT_EQ(h200.smem_per_block_optin, 232448);
  EXPECT_EQ(find_builtin_profile("h100")->sm_count, 132);
  EXPECT_EQ(find_builtin_profile("h20")->sm_count, 78);
  EXPECT_DOUBLE_EQ(find_builtin_profile("h20")->l2_bytes_per_cycle, 64 * 78);  // under the cap
  EXPECT_EQ(find_builtin_profile("h800")->sm_count, 114);
  EXPECT_FALSE(find_builtin_profile("a100").has_value());
  for (const DeviceProfile& d : builtin_profiles()) {
    EXPECT_GT(d.clock_ghz, 1.0);
    EXPECT_LE(d.hbm_bytes_per_s, d.hbm_datasheet_bytes_per_s);
    EXPECT_LE(d.tc_flops_per_cycle_per_sm(), 4097.0);  // a full-rate Hopper SM: 4096 dense BF16 FLOP/clk
  }
}

cudaDeviceProp fake_prop(const char* name, int sms) {
  cudaDeviceProp prop{};
  std::strncpy(prop.name, name, sizeof(prop.name) - 1);
  prop.major = 9;
  prop.multiProcessorCount = sms;
  prop.l2CacheSize = 50 << 20;
  prop.sharedMemPerBlockOptin = 232448;
  prop.sharedMemPerMultiprocessor = 233472;
  prop.regsPerMultiprocessor = 65536;
  prop.memoryBusWidth = 5120;
  return prop;
}

TEST(DeviceProfiles, FromDevicePropMatchesTheSku) {
  // H100 SXM: 5120-bit HBM3 at 2619 MHz -> 2 * 2.619e9 * 640 B = 3.35 TB/s datasheet.
  const DeviceProfile p = profile_from_device_prop(fake_prop("NVIDIA H100 80GB HBM3", 132), 1980000, 2619000);
  EXPECT_EQ(p.name, "live");
  EXPECT_NE(p.source.find("h100"), std::string::npos) << p.source;
  EXPECT_EQ(p.sm_count, 132);
  EXPECT_DOUBLE_EQ(p.tc_peak_flops, 989e12);
  EXPECT_NEAR(p.hbm_datasheet_bytes_per_s, 3.352e12, 1e9);
  EXPECT_LT(p.hbm_bytes_per_s, p.hbm_datasheet_bytes_per_s);
  EXPECT_EQ(p.l2_bytes, 50 << 20);
  // An unknown Hopper: tensor peak from the clock, 4096 FLOP/clk/SM.
  const DeviceProfile u = profile_from_device_prop(fake_prop("NVIDIA GH999", 100), 1500000, 0);
  EXPECT_DOUBLE_EQ(u.tc_peak_flops, 4096.0 * 100 * 1.5e9);
  EXPECT_DOUBLE_EQ(u.l2_bytes_per_cycle, 6153);
}

TEST(DeviceProfiles, LiveQueryNeverThrows) {
  std::string why;
  const auto live = query_live_profile(0, &why);
  if (!live) EXPECT_FALSE(why.empty());  // on CI: "no CUDA device (...)"
}

}  // namespace
}  // namespace tilegemm::plan
