// Built-in device profiles. Every number says where it comes from. Sources:
//   [perf]     docs/PERF.md, 2026-11-29: one H200 (132 SMs, 60 MB L2); cuBLASLt and our kernels
//              measured there; HBM ≈ 4.3 TB/s measured as a large device-to-device copy.
//   [sheet]    NVIDIA datasheet figures as reproduced on public spec pages: H100/H200 SXM 132 SMs,
//              989 TFLOPS dense BF16 (132 SMs x 1.83 GHz x 4096 FLOP/clk/SM), HBM 3.35 / 4.8 TB/s,
//              L2 50 MB (H100) / 60 MB (H200); H100 PCIe / H800 PCIe: 114 SMs, 1,513 TFLOPS BF16
//              with sparsity = 756 dense, 2.0 TB/s HBM2e, 50 MB L2; H20: 78 SMs, 148 TFLOPS dense
//              BF16, 4.0 TB/s HBM3, 60 MB L2.
//   [hopper]   docs/HOPPER.md §8-9 and the CUDA device attributes read on the H200: 65536 registers
//              per SM, 233472 B smem per SM, 232448 B opt-in max per block.
//   [dg]       DeepGEMM's SM90 heuristic (deepseek-ai/DeepGEMM, the seed's model): BW_L2 =
//              min(64 * SMs, 8e6 / 1.3e3) B/cycle, BW_local = 128 * SMs B/cycle.
// Assumptions (not measured, to be calibrated by the autotuner):
//   - achievable HBM bandwidth = datasheet x 0.896 where not measured: the H200's measured copy /
//     datasheet ratio (4.3 / 4.8) [perf].
//   - fixed_us = 5: per-kernel ramp and tail. cuBLASLt's M = 1 suite rows [perf] run 5.7-14 us
//     longer than bytes / 4.3 TB/s; 5 us sits just under the smallest of those gaps. Most of it is
//     the bench's write flush, not the kernel: after a memset the timed kernel also writes the
//     flush's dirty L2 lines back, and with `bench --flush read` the weight-streaming shapes ran
//     4-8 us faster (docs/PERF.md, 2026-12-03 eleventh session; ~2.7 us left beyond 4.1 TB/s). The
//     constant models the default (write-flush) bench, which the tuner and the recorded tables use.
// Measured on the H200 in the bench's setting (docs/PERF.md, 2026-12-03), used for every profile:
//   - hbm_bytes_per_s = the copy rate (4.3 TB/s [perf]) x 3.75 / 4.3: what a GEMM streaming its operands gets in the
//     bench's default setting (a memset flush, whose dirty lines are written back while the kernel
//     streams). Measured on the H200 (docs/PERF.md, 2026-12-03 thirteenth session): the M = 1 and
//     M = 128 weight-streaming shapes of 235 MB ran at 3.75-3.78 TB/s beyond fixed_us; the
//     TMA-fill and repack rates stay scaled on the copy rate (measured against it).
//   - limit_norm_p = 16: a kernel near two throughput limits at once runs slower than either alone,
//     so the four limits (l2, local, hbm, tensor) combine as their 16-norm, not their maximum: two
//     equal limits cost 2^(1/16) = 1.044x either, one at 80 % of the other 0.2 %. Fitted
//     (scripts/fit_time_model.py) to 460 (shape, config) pairs at M = 1 ... 256 measured on the
//     H200 (docs/PERF.md, 2026-12-03 fourteenth session): at 8x10240x8192 the tiles whose per-SM
//     TMA term lies within 1 % of the HBM term (64x112: 44.4 of 44.8 us) took 56.4 us, the swap-AB
//     128x16 (31.3 of 44.8) 49.2; at 32x57344x8192 64x64 (247.3 of 251.7) 269.7 against 64x224's
//     230.2. With the maximum, 3.75 TB/s tied those and picked the slow ones; with the norm the
//     pairs' regret geomean is 0.9 % (1.3 % at 4.3 TB/s and the maximum), median error 4.1 % (9.2 %).
//   - partial_grid_clock_limit = 1980/1600, partial_grid_power_exponent = 3: a single wave of fewer
//     tiles than SMs leaves the others idle, and under the power cap the busy ones clock higher:
//     the tensor term is divided by min(1980/1600, f^(-1/3)), f = busy SMs / SMs (power ~ busy SMs
//     x clock^3 held at the cap, up to the unloaded clock). The clocks: measured on the H200 during a
//     long 8192^3 run, 1545-1620 MHz under the power cap, 1980 idle (docs/PERF.md, "Clocks during a
//     long 8192^3 run"). The exponent is the textbook dynamic-power one, not fitted; checked on the
//     H200's records (e3cd916's suite runs, bench/measurements): tensor-bound single waves were
//     predicted 14 % slow at f = 0.73 (4096x576x7168 NN and TN, 128x192: 61.4 us, measured 54.6 and
//     53.9; with the term 55.9) and 19 % at f = 0.48 (72x4096x4096 with C, 64x80 swap-AB: 17.9,
//     measured 15.1; with the term 17.5, its TMA feed then the larger limit), fuller single waves
//     3.5 % (median of 32), several waves 0 % (median of 68).
//   - ring_bytes = 144 KiB, ring_hbm_share = 0.105, ring_shallow_factor = 0.98: a 128-row tile
//     whose ring holds less than 144 KiB in flight ((stages - 1) stages), when 10.5 % or more of the
//     bytes its TMA loads come from HBM, runs its mainloop 2 % slower than with a deeper ring.
//     Measured on the H200 (docs/PERF.md, 2026-12-03 fourteenth session): the same tile with one
//     more stage (the epilogue staged one 64-column box at a time) ran 0.7-2.8 % faster on every
//     shape whose HBM share was 11.9-16.2 % (4096x576x7168 128x144 46.1 -> 45.2 us, 512x6144x4096
//     128x192 36.0 -> 35.0, 4096x640x8192 128x160 58.3 -> 56.6, 4096x768x4096, 512x10240x8192,
//     512x28672x4096, 1024x1536x8192 split 2) and moved -0.2..+0.6 % on the ten at 2.8-10.3 %
//     (2048x1536x7168, 1024x4608x7168, 4096x2112x7168, 4096x7168x16384, ...); where units are short
//     (4096x32768x512: 8 k-blocks) the narrower staging cost 2.8 %, hence the 32-k-block floor.
//     Odd-D shapes (the threads' copy-out): 2049x6001x4097 (10.6 %) 1.4-1.9 % faster in four runs,
//     seven others at 3-9 % -0.6..+0.7 %; the share is set between 10.3 and 10.6 %.
//   - c_tile_us = 1.08, c_tile_direct_us = 0.38 + c_direct_line_us = 0.054 per row (a row-major
//     direct tile's cost grows with the rows it reads: 3.8 us for 64 rows, measured 1.5-6.5 for the
//     six such tiles, whose units ran 16-112 k-blocks; swap-AB's column-major decode tiles, 1 ... 16
//     columns, 0.4),
//     c_reload_bytes_per_s_per_sm = 53.6e9 (0.53 of an SM's share of the streaming HBM rate),
//     c_slot_round_us = 0.38: what reading C costs beyond the HBM bytes the model already counts.
//     Fitted (scripts/fit_c_term.py reproduces it: non-negative least squares on the time with C
//     minus the time without, relative to the time) to 468 (shape, config) pairs measured both ways
//     on the H200 (docs/PERF.md, 2026-12-04 nineteenth session; the llm suite top 8, midm top 6,
//     llm fp32 top 6; bench/measurements/h200-2026-12-04-*): the regret of the model's picks among
//     them fell from 2.1 % to 1.2 % (the worst from 60 % to 31 %; it had been 128x32768x512, which
//     picked a 64x64 ping-pong tile whose C cost 11.6 us of 28), the median error from 4.6 % to
//     3.8 %. Those measurements include an L2 prefetch of C that tiles whose slots hold all of C no
//     longer make (twentieth session), so c_tile_us now overprices such tiles: refit pending.
//     A per-tile cost that does not shrink with a longer mainloop fitted better than one gated by
//     it; a term in the C bytes alone fitted about 0.5 x C's time at the HBM rate but moves no pick
//     (every config of a problem reads the same C), so it is left out.
//   - c_thread_box_us = 2.3: C that TMA cannot describe (the smem_stores epilogue), per 64 x 64
//     elements of C a consumer loads (cp.async; k-split kernels: their loads) and combines, the
//     two consumers of a ping-pong CTA side by side. Measured on the H200 (docs/PERF.md,
//     twenty-second session), the time with C minus without over the busiest CTA's stored tiles x
//     64 x 64 blocks of C per consumer (/ 2 with ping-pong), the planner's picks on build 8bfc3dc:
//     bf16 4001x3999x256 (128x128 ping-pong, 8 x 4 / 2) 35.0 us = 2.19 per block, 3001x5003x1027
//     and 5003x2999x777 (128x144 ping-pong, 7 x 6 / 2) 3.03, 2.96, 4001x3999x2001 2.30,
//     2049x6001x4097 (128x160, 5 x 3) 2.07; fp32 (32-column boxes: half a block each) 2.16, 2.30
//     (3001x5003x1027), 2.38 (2049x6001x4097); median 2.3. Forced configs at 4001x3999x256 bf16 on
//     the build before the straight path for inner boxes (epilogue.cuh) were all within 2.8-3.6
//     (128x128, its ping-pong, 128x256 stage128, 64x128, 128x144 ping-pong): a cost per block of C
//     whatever the tile. c_tile_us predicted C at a quarter of that. The loads a row at a time that
//     k-split kernels still make cost more: 5.3 per block at 4001x3999x256 fp32 128x128 ping-pong
//     on build aca7067, whose ping-pong fp32 kernels read C that way (119.8 us with C, ~35
//     without); no k-split kernel with such a C was measured, and they are charged the same 2.3.
// Measured on one H200 (2026-12-01, docs/PERF.md "planner calibration"), used for every profile
// (the same GH100 SM and TMA unit; the HBM-side rate scaled by each SKU's HBM bandwidth):
//   - tma_fill_bytes_per_s = 5.7e12 on the H200: M = 1 GEMMs whose tiles load 63 zero-filled A
//     rows per k-block ran at (HBM bytes + zero-filled bytes) / 5.7 TB/s (64x128 split 2 and 64x64
//     on 1x7168x16384: 61.6 and 82.6 us of streaming, predicted 61.4 and 81.8).
//   - tma_bytes_per_s_per_sm = 114e9: refitted (2026-12-02, seventh session, scripts/fit_time_model.py)
//     with the mainloop efficiency (cost_model.hpp) to 111 measured (shape, config) pairs; it was
//     95e9, fitted with the earlier efficiency to 477 pairs (build bab34e7). In-bounds streaming at
//     M = 128 measured 100-120 GB/s per SM (128x2112x7168 64x64: 1.8 MB per CTA in 18.4 us); 128x128
//     at 4096^3 (185.9 us) is bound by it. Tiles whose rows lie
//     mostly past the matrix edge go slower (64x128 unsplit on 1x7168x16384, 56 CTAs, 63 of 64 A
//     rows zero-filled: 78 GB/s), where the term is ~17% optimistic; M = 1 runs swap-AB instead.
//   - direct_store_bytes_per_cycle = 8.4: 128x240 with the direct epilogue took 4.1 us more per tile
//     than its mainloop (4096x24576x1536: 491.8 us vs 128x192's 410.6); 61440 B / 4.1 us at 1.83 GHz.
//   - direct_scalar_store_bytes_per_cycle = 2.6: the direct epilogue element by element (an odd
//     leading dimension of D: its (col, col + 1) pairs are not 4-B aligned). 2049x6001x4097 with
//     128x208 took 321.5 us where 2049x6000x4097 took 290.8 (build 92e9b6e, same run): 7.7 us more
//     per 53-KB tile over 4 waves, on top of the paired rate's 3.5 us.
//   - smem_store_bytes_per_cycle = 17: the smem_stores epilogue (a D that TMA cannot describe) copies
//     each staged box to D with the consumer's threads, not overlapped with the next mainloop. Its
//     cost per stored tile (128x256 bf16, 64 KB) measured against the aligned neighbour with the
//     TMA store (build 8b8ce5e/b7ff74a): 4001x3999x256 30.6 vs 19.6 us and 4000x3999x2000 106.5
//     vs 94.2 over 4 waves, 2048x6001x4096 143.2 vs 136.3 over 3: 2.3-3.1 us per tile, 12-15 B
//     per cycle per SM. With the copy's address arithmetic hoisted out of its steps (ninth
//     session, H200, same run as the build before): 128x256 stage128 at 4001x3999x256 30.6 ->
//     28.1 us over 4 waves, 128x128 31.9 -> 29.6 over 7.75: 0.3 us less per 32 KB, 17 B per cycle.
//   - cluster_factor = 0.985: 128x256 with a 2x1 cluster ran 1.1-1.4% slower than without at 4096^3
//     and 8192^3 (1392 vs 1377 us, 181.5 vs 179.0), 1x2 slower still; in M = 1 streaming 6-30%.
//     With one consumer (64-row tiles; one_consumer_cluster_factor_2x1 = 0.95, _1x2 = 0.87): 32
//     pairs of the same config with and without a cluster measured at M = 1 ... 256 (tune data,
//     docs/PERF.md 2026-12-03 thirteenth and fourteenth sessions): 2x1 (B multicast) 0-7 % slower,
//     median 5 % (128x7168x2048 64x112 13.3 vs 12.5 us); 1x2 (A multicast) 11-20 % slower, median
//     15 % (128x7168x16384 64x112 78.7-81.8 vs 68.2, 256x4096x7168 64x128 32.4-33.8 vs 29.2), but
//     for M = 8 (8x8192x8192 64x112, -3..+3 %).
//   - fixup_bytes_per_s_per_sm = 100e9 (assumption): the k-split fix-up's partial tiles, written
//     and read by one SM's consumer threads with 16-B accesses (sm90/gemm/fixup.cuh).
//   - fixup_latency_us = 2.0: what a unit whose tile is shared adds to its CTA beyond its bytes
//     (store, fence, count; piece 0: wait for the count, read the partials). Measured by taking
//     the fix-up apart on the H200 (build 8b8ce5e): against the same k-split with no fix-up at all,
//     the writers' store-fence-count cost 0.7-1.2 us, piece 0's wait ~1 us and its reads 2.2-2.7
//     us, one L2 round trip per partial; with the reads batched (build bab34e7) 1x576x7168 (64x16
//     swap-AB split 8) went 10.5 -> 7.7 us and 128x576x7168 (64x64 split 7) 11.8 -> 9.8. Fitted
//     with the other two constants above (2.0; 1.5-3.0 pick the same configs).
//   - cluster_fixup_latency_us = 1.4, cluster_fixup_bytes_per_s_per_sm = 200e9 (assumption): the
//     fix-up of a k-split cluster (Config::cluster_k): slices 1.. send their partials into slice
//     0's shared memory with st.async, one-way, and slice 0 waits on its own barrier, so no
//     store-fence-count and no L2 round trip are on the path. Measured on the H200 (build 09c5a2f
//     + the cluster fix-up, 2026-12-03): swap-AB 64x16 / 64x32 splits of 2, 4 and 8 whose clusters
//     all fit ran 0.3-0.9 us faster than the same splits through the workspace (1x576x7168 split 4
//     9.5 -> 8.6, split 8 7.5 -> 7.2; 1x1536x4096 split 2 10.1 -> 9.5); 1.4 makes the model's
//     difference ~0.7 us.
//   - unsectored_row_factor = 2.0: an operand whose rows do not start on 32-B sector boundaries
//     (K = 5000: rows 10000 B apart, an odd multiple of 16 B) is read by TMA at about half speed.
//     Measured on the H200 (build bb4cb2c, operands read in place, 128x256 / 128x192): 4096x4096xK
//     with K = 4008, 4024, 4040, 4056 (rows 16 B off a sector) took 270-278 us where K = 4000,
//     4016, 4032, 4048, 4064 and 4096 (rows on 32-B, 64-B or 128-B boundaries) took 175-181 us:
//     only sector alignment matters, not 128-B lines. Against the aligned TMA term per k-block:
//     4096^2 1.07 vs 0.52 us, 2048x2048x5000 1.20 vs 0.52, 3000^3 0.89 vs 0.43 (2.0-2.3x).
//     Those maps used 256-B L2 promotion; since such rows' maps use 128 B (tensor_map.cpp) they
//     read faster (3000^3 in place 126.1 -> 107.8 us, docs/PERF.md twenty-third session), and the
//     model with 2.0 predicts the in-place picks measured since at 107.4 (3000^3, measured 107.8),
//     73.8 (2000x2000x5000, 81.7) and 30.1 us (1000x1000x5000, 31.4): not overpriced, so kept
//     until the 4096^2 x K points are re-measured with 128 B.
//   - oob_row_factor = 2.4: a tile row past the matrix edge, which TMA zero-fills, costs the per-SM
//     feed 2.4 in-bounds rows. Measured on the H200 (builds a4b9fc9, 92e9b6e): 1x7168x16384 with
//     64x128 unsplit (56 CTAs of 256 k-blocks, 63 of the 64 A rows past M = 1) took 80.0 us of
//     streaming: 256 x (1 + 63 x 2.4 + 128) lines of 128 B at 114 GB/s per SM is 80.5 us, where
//     counting the zero-filled rows as in-bounds ones gives 55.2 (its split-2 and 64x64 runs, 62.1
//     and 81.9 us, are bound by the fill term and stay so).
//   - l2_line_touch_bytes_per_s = 16.9e12 (132 line touches per ns): operands whose rows are on
//     sectors but off 128-B lines (K-major bf16 with K % 64 = 16, 32, 48: K = 2000, 2016, 1040) are
//     read about 1.3-1.5x slower by the narrow tiles, whose L2 bytes per FLOP are highest, and not
//     by 128x256 (docs/PERF.md, thirty-third session). Measured on the H100 (build f77b052 + 128-B
//     L2 promotion for such maps, `tune --ld-pad`): 4096x4096x2000 128x128 ping-pong 126.5 us where
//     K = 2048 or K = 2000 with ld 2048 took 97.0 / 100.3; it is a limit of the whole GPU, not of
//     one SM: 1024x1024x16016 (64 tiles, 64 SMs) ran as fast as x16064, 1024x2048x16016 (128
//     tiles) 1.52x slower. Over 4096^2 x {2000, 2016}, 2048^2 x 16016 and 3000x5000x1040 with
//     128x128 / 128x176 ping-pong and 128x256, such lines went at 58-74 per ns (lines over the time
//     less fixed_us): each touches two L2 lines, so 132 touches per ns, 128 B each. Whole lines never
//     meet this limit first: the per-SM feed caps them at 132 x 114e9 / 128 = 118 per ns.
//   - tile_floor_us = 0.34, tile_floor_row_us = 0.0044: the least time a TMA-store tile holds its
//     CTA (0.62 us for 64-row tiles, 0.90 for 128-row ones), whatever its K. Measured on the H100
//     (build d646559, docs/PERF.md thirty-third session), K = 64 with 2048-8192 x 2048-6144 (D
//     written once, HBM-bound): past the best config's time, 64x64 ping-pong tiles cost 0.26-0.28
//     us each per CTA, 128x64 ones 0.14-0.19, 64x128 and wider ones 0.04-0.09, so 64x64 and 128x64
//     ran 1.2-1.7x slower than 128x128 ping-pong where the model priced them equal (HBM-bound, the
//     same bytes): 4096x6144x64 31.3 and 22.6 us against 19.2. Per tile, the floor above
//     reproduces 4096x6144x64 (47 and 24 tiles per CTA: 29.1 and 21.6 us plus ~2 us of ramp),
//     8192x2048x64 and 4096x2048x64 within 1 us; wider tiles stay HBM-bound under it.
//   - short_k_norm_p = 6, short_k_full_blocks = 2, short_k_blocks = 8: with K of a few k-blocks a
//     tile's loads, math and store barely overlap, so its limits add more than the norm above lets
//     them: below 8 k-blocks every limit and the tiles' floor enter a norm with no 3/4 floor, of
//     p = 6 up to 2 k-blocks (K <= 128), rising linearly to limit_norm_p at 8 (K = 512). Measured
//     on the H100 (docs/PERF.md, thirty-fourth session; bench/measurements/h100-*), `tune` records
//     at K = 64-300 on the kernels of d646559 / 970bb95: fitted on 20 shapes of 2048-8192 x
//     2048-6144 x {64, 128, 256}, the regret of the pick among each shape's measured configs went
//     6.8 % -> 2.7 % there and 10.8 % -> 0.9 %, 8.7 % -> 3.0 % on 9 and 4 held-out shapes; over
//     the 22 of those shapes where the planner's old and new picks were both measured, 7.5 % ->
//     2.6 %, none slower. At K <= 192 the model had priced 64-row ping-pong tiles ahead of 128x128
//     ping-pong on near-ties of the HBM term, measured 6-21 % the other way. p = 5-6 fit alike; at
//     K >= 512 (every suite shape but the odd suite's) nothing changes.
//   - repack_bytes_per_s = 3.3e12: the operand repack (sm90/gemm/pack.cuh) read + written bytes;
//     2049x6001x4097's repacks measured ~40 us for ~130 MB (build b7ff74a). repack_launch_us = 2.0
//     (assumption): what one more small kernel adds.
#include "plan/device_profile.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace tilegemm::plan {

namespace {

constexpr double kMeasuredOverDatasheetHbm = 4.3 / 4.8;  // [perf] / [sheet]
constexpr double kStreamingOverCopy = 3.75 / 4.3;         // measured on the H200 (above)
constexpr int64_t kMiB = int64_t{1} << 20;

DeviceProfile make(std::string name, std::string description, int sms, double clock_ghz,
                   double tc_peak_tflops, double hbm_sheet_tbps, double hbm_eff_tbps, int64_t l2_mib) {
  DeviceProfile p;
  p.name = std::move(name);
  p.description = std::move(description);
  p.source = "built-in table";
  p.sm_count = sms;
  p.clock_ghz = clock_ghz;
  p.l2_bytes_per_cycle = seed_l2_bytes_per_cycle(sms);
  p.local_bytes_per_cycle = seed_local_bytes_per_cycle(sms);
  p.hbm_datasheet_bytes_per_s = hbm_sheet_tbps * 1e12;
  p.hbm_bytes_per_s = hbm_eff_tbps * 1e12 * kStreamingOverCopy;
  p.tc_peak_flops = tc_peak_tflops * 1e12;
  p.l2_bytes = l2_mib * kMiB;
  p.smem_per_block_optin = 232448;  // [hopper] (same GH100 SM in all four SKUs)
  p.smem_per_sm = 233472;           // [hopper]
  p.regs_per_sm = 65536;            // [hopper]
  p.fixed_us = 5.0;                 // assumption, see the file comment
  p.fixup_bytes_per_s_per_sm = 100e9;  // assumption
  p.fixup_latency_us = 2.0;            // measured on the H200 (above)
  p.cluster_fixup_latency_us = 1.4;    // measured on the H200 (above)
  p.cluster_fixup_bytes_per_s_per_sm = 200e9;  // assumption (above)
  p.tma_fill_bytes_per_s = 5.7e12 * hbm_eff_tbps / 4.3;  // measured on the H200 (above), scaled by HBM
  p.tma_bytes_per_s_per_sm = 114e9;                         // measured on the H200 (above)
  p.direct_store_bytes_per_cycle = 8.4;                     // measured on the H200 (above)
  p.smem_store_bytes_per_cycle = 17.0;                      // measured on the H200 (above)
  p.direct_scalar_store_bytes_per_cycle = 2.6;              // measured on the H200 (above)
  p.cluster_factor = 0.985;                                 // measured on the H200 (above)
  p.one_consumer_cluster_factor_2x1 = 0.95;                 // measured on the H200 (above)
  p.one_consumer_cluster_factor_1x2 = 0.87;                 // measured on the H200 (above)
  p.unsectored_row_factor = 2.0;                            // measured on the H200 (above)
  p.oob_row_factor = 2.4;                                   // measured on the H200 (above)
  p.l2_line_touch_bytes_per_s = 16.9e12;                    // measured on the H100 (above), same L2 on the H200
  p.tile_floor_us = 0.34;                                   // measured on the H100 (above)
  p.tile_floor_row_us = 0.0044;                             // measured on the H100 (above)
  p.repack_bytes_per_s = 3.3e12 * hbm_eff_tbps / 4.3;       // measured on the H200 (above), scaled by HBM
  p.repack_launch_us = 2.0;                                 // assumption
  p.limit_norm_p = 16.0;                                    // fitted on the H200 (above)
  p.short_k_norm_p = 6.0;                                   // fitted on the H100 (above)
  p.short_k_full_blocks = 2;                                // fitted on the H100 (above)
  p.short_k_blocks = 8;                                     // fitted on the H100 (above)
  p.ring_bytes = 144.0 * 1024;                              // measured on the H200 (above)
  p.ring_hbm_share = 0.105;                                 // measured on the H200 (above)
  p.ring_shallow_factor = 0.98;                             // measured on the H200 (above)
  p.partial_grid_clock_limit = 1980.0 / 1600.0;             // measured on the H200 (above)
  p.partial_grid_power_exponent = 3.0;                      // assumption, checked on the H200 (above)
  p.c_tile_us = 1.08;                                       // fitted on the H200 (above)
  p.c_tile_direct_us = 0.38;                                // fitted on the H200 (above)
  p.c_direct_line_us = 0.054;                               // fitted on the H200 (above)
  p.c_reload_bytes_per_s_per_sm = 53.6e9 * hbm_eff_tbps / 4.3;  // fitted on the H200 (above), scaled by HBM
  p.c_slot_round_us = 0.38;                                 // fitted on the H200 (above)
  p.c_thread_box_us = 2.3;                                  // measured on the H200 (above)
  return p;
}

std::vector<DeviceProfile> build_table() {
  std::vector<DeviceProfile> t;
  // H200 SXM: 132 SMs, 60 MB L2 [perf]; 989 TFLOPS, 4.8 TB/s datasheet [sheet], 4.3 TB/s measured
  // copy [perf]; same SM count and clocks as H100 SXM, so 1.83 GHz [sheet].
  t.push_back(make("h200", "NVIDIA H200 SXM (141 GB HBM3e)", 132, 1.83, 989.0, 4.8, 4.3, 60));
  // H100 SXM: 132 SMs, 1.83 GHz, 989 TFLOPS, 3.35 TB/s, 50 MB L2 [sheet]; achievable HBM assumed.
  t.push_back(make("h100", "NVIDIA H100 SXM (80 GB HBM3)", 132, 1.83, 989.0, 3.35,
                   3.35 * kMeasuredOverDatasheetHbm, 50));
  // H20: 78 SMs; 148 TFLOPS dense BF16, 4.0 TB/s, 60 MB L2 [sheet]. Its clock is not in the
  // sources read: 1.83 GHz assumed (UNVERIFIED). The tensor rate per SM is cut on this SKU
  // (148e12 / (78 x 1.83e9) ≈ 1037 FLOP/cycle/SM, about 1/4 of H100), so the peak is a table entry,
  // never derived from the clock.
  t.push_back(make("h20", "NVIDIA H20 (96 GB HBM3)", 78, 1.83, 148.0, 4.0,
                   4.0 * kMeasuredOverDatasheetHbm, 60));
  // H800 PCIe: 114 SMs [sheet]; 756 TFLOPS dense BF16, 2.0 TB/s HBM2e, 50 MB L2 [sheet].
  // Clock 1.62 GHz = 756e12 / (114 x 4096): the clock the datasheet peak implies (max boost is
  // higher, 1.755 GHz, but the power-limited PCIe board does not hold it under tensor load).
  t.push_back(make("h800", "NVIDIA H800 PCIe (80 GB HBM2e)", 114, 756e12 / (114 * 4096.0) / 1e9,
                   756.0, 2.0, 2.0 * kMeasuredOverDatasheetHbm, 50));
  return t;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

double seed_l2_bytes_per_cycle(int sm_count) {
  // [dg]: (int) min(64 * num_sms, 8e6 / 1.3e3) = min(64 * SMs, 6153): about 8 TB/s at 1.3 GHz.
  return std::min(64.0 * sm_count, static_cast<double>(static_cast<int>(8e6 / 1.3e3)));
}

double seed_local_bytes_per_cycle(int sm_count) { return 128.0 * sm_count; }  // [dg]

DeviceProfile with_sm_limit(const DeviceProfile& d, int sm_count) {
  if (sm_count <= 0 || sm_count >= d.sm_count) return d;
  DeviceProfile p = d;
  p.tc_peak_flops = d.tc_peak_flops * sm_count / d.sm_count;
  p.sm_count = sm_count;
  p.l2_bytes_per_cycle = seed_l2_bytes_per_cycle(sm_count);
  p.local_bytes_per_cycle = seed_local_bytes_per_cycle(sm_count);
  p.source = d.source + ", the kernel limited to " + std::to_string(sm_count) + " of its " +
             std::to_string(d.sm_count) + " SMs";
  return p;
}

const std::vector<DeviceProfile>& builtin_profiles() {
  static const std::vector<DeviceProfile> table = build_table();
  return table;
}

std::optional<DeviceProfile> find_builtin_profile(const std::string& name) {
  const std::string key = lower(name);
  for (const auto& p : builtin_profiles())
    if (p.name == key) return p;
  return std::nullopt;
}

std::string builtin_profile_names() {
  std::string s;
  for (const auto& p : builtin_profiles()) s += (s.empty() ? "" : "|") + p.name;
  return s;
}

}  // namespace tilegemm::plan
