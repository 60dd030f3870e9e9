// Text forms of planner values (host only): the `--config` spec the user writes, layout names
// ("nt"), and the names the explain text and JSON print. Every parse error names the option, the
// value and the rule.
//
// --config grammar:  BMxBN[,key=value|flag]...
//   BM: 64, 128                     BN: multiple of 8 in [8, 256] (wgmma N)
//   stages=3..16                    (default: as many as fit)
//   stage=COLS                      (staged epilogues: columns staged at a time, whole 128-B boxes
//                                   dividing the tile's; default: the widest leaving room for
//                                   enough stages)
//   cluster=1x1|2x1|1x2             (cluster_m x cluster_n; default 1x1)
//   mapping=linear-n|linear-m|grouped-m[:G]|grouped-n[:G]|box[:MxN]|morton|hilbert
//                                   (default: grouped-n for cluster 1x2, else grouped-m)
//   group=G                         (1..64; default 8)
//   persistent | static             (default persistent)
//   splitk=1..32                    (default 1; > 1: every tile cut into that many k-slices,
//                                   summed in the kernel in slice order)
//   streamk                         (the last waves' k-blocks shared evenly by the persistent CTAs)
//   dsm                             (with splitk=2..8: the slices of a tile run as one thread-block
//                                   cluster and are summed in distributed shared memory)
//   swapab                          (Dᵀ = B·Aᵀ: BM tiles N, BN tiles M; D stored column-major)
//   pingpong                        (two consumer warpgroups computing whole tiles in turn)
//   accsets=1|2                     (accumulator sets per 64-row block: 2 alternates the k16 steps
//                                   between two; default: 2 for tiles of at most 32 accumulators
//                                   per thread when min(M, N) is below the device's ridge point)
//   bake                            (N and K of the problem compiled into the kernel as constants)
// Example: 128x256,stages=4,cluster=1x2,group=16
#pragma once

#include <string>
#include <string_view>

#include "core/layout_names.hpp"
#include "plan/config.hpp"

namespace tilegemm::plan {

// fixed_n / fixed_k of a spec with `bake`: the planner fills in the problem's N and K.
inline constexpr int kBakeFromProblem = -1;

struct ConfigSpec {
  Config config;              // tile, stages, cluster, mapping, persistent, split_k as given
  bool stages_given = false;  // false: the planner uses as many stages as fit
};

struct ParsedConfigSpec {
  ConfigSpec spec;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};
ParsedConfigSpec parse_config_spec(std::string_view text, std::string_view option = "--config");

// The spec text of a complete Config, every item written out: "128x256,stages=4,cluster=1x1,
// mapping=grouped-m:8,persistent" (+ ",splitk=S" [+ ",dsm"], + ",accsets=N" for tiles that may have two,
// + ",stage=COLS" when part of the tile is staged, + ",bake"). What the planner derives (epilogue,
// staging width, registers, operands, output, C) is left to evaluate_config, so for a Config the
// planner completed for problem p: evaluate_config(p, d, parse_config_spec(text).spec.config,
// /*stages_given=*/true).config == c (tests/cpu/plan/test_config_spec.cpp holds this for every
// ranked candidate of the suite). The tuning cache stores configs in this form.
std::string config_spec_text(const Config& c);

// Layout names ("nt", ...): core/layout_names.hpp.
using ::tilegemm::layout_name;
using ::tilegemm::parse_layout;

// Enum names ("k_major", "bf16"): tilegemm::to_string (include/tilegemm/tilegemm.hpp).
const char* multicast_name(Multicast m);  // "none" | "a" | "b"
const char* mapping_kind_name(sched::MappingKind k);  // "grouped_m", ... (the enum's names)
std::string mapping_label(const sched::Mapping& m);   // "grouped_m G=8", "box 2x2", "hilbert"

// One line: "128x256x64 s4 c1x2(A) grouped_n G=16 persistent" (+ " direct", " stage128",
// " splitK=2").
std::string describe(const Config& c);

}  // namespace tilegemm::plan
