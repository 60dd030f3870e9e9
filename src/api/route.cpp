// route(), launch_args() and problem_of() (route.hpp).
#include "api/route.hpp"

#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/math.hpp"
#include "sm90/gemm/config.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"

namespace tilegemm::detail {

namespace {

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

Major flipped(Major m) { return m == Major::k_major ? Major::mn_major : Major::k_major; }

// A stored matrix TMA can describe: leading dimension a multiple of 16 B, base 16-B aligned.
bool tma_describable(const MatrixRef& x) {
  return (x.ld * dtype_bytes(x.dtype)) % 16 == 0 && address(x.ptr) % 16 == 0;
}

// The lines of a stored matrix: its rows (row-major / K-major) or its columns.
int64_t line_count(const MatrixRef& x) { return x.major == Major::k_major ? x.rows : x.cols; }
int64_t line_length(const MatrixRef& x) { return x.major == Major::k_major ? x.cols : x.rows; }

// Rows (lines) on 32-B (L2 sector) boundaries: base and leading dimension (plan::Problem); a
// single line has only its base.
bool rows_on(const MatrixRef& x, unsigned long long boundary) {
  return lines_on_boundaries(boundary, address(x.ptr), static_cast<unsigned long long>(x.ld * dtype_bytes(x.dtype)),
                             line_count(x));
}
bool rows_sectored(const MatrixRef& x) { return rows_on(x, 32); }
// The same on 128-B (L2 line) boundaries.
bool rows_lined(const MatrixRef& x) { return rows_on(x, 128); }

// A planner comparison (plan::choose_row_repack, plan::choose_narrow_transpose) for a problem,
// remembered per (device profile, problem, what may be copied): route() runs on every call, the
// planner's comparison once per shape. `choose` computes it; `what` tells the calls apart.
template <class Choice, class Choose>
Choice cached_choice(const char* what, const plan::Problem& p, const plan::DeviceProfile& d, const plan::PlanOptions& o,
                     Choose choose) {
  static std::mutex mutex;
  static auto* seen = new std::unordered_map<std::string, Choice>;  // never destroyed
  const std::string key = std::string(what) + "|" + d.name + "|" + d.source + "|" + plan::tuning_problem_key(p) + "|" +
                          std::to_string(int(o.ranking)) + std::to_string(o.allow_split_k) +
                          std::to_string(o.allow_static) + std::to_string(o.allow_pingpong) +
                          std::to_string(o.narrow_mn_chunks);
  {
    std::lock_guard lock(mutex);
    if (auto it = seen->find(key); it != seen->end()) return it->second;
  }
  const Choice choice = choose();
  std::lock_guard lock(mutex);
  if (seen->size() >= 4096) seen->clear();  // bounded: a long-running caller with ever new shapes
  seen->emplace(key, choice);
  return choice;
}

// A copy's line of `length` elements of `elem_bytes`, padded to whole 128-B (L2) lines: its leading
// dimension (route()'s add_pack).
int64_t padded_line(int64_t length, int elem_bytes) { return round_up(length, int64_t{128 / elem_bytes}); }

// What copying `lines` lines of `length` elements costs in bytes: read as stored, written padded.
double copy_bytes(int64_t lines, int64_t length, DType dtype) {
  const int e = dtype_bytes(dtype);
  return static_cast<double>(lines) * static_cast<double>(length + padded_line(length, e)) * e;
}

std::string fmt_us(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", us);
  return buf;
}

std::string misalignment(const MatrixRef& x, const char* name) {
  const int e = dtype_bytes(x.dtype);
  if ((x.ld * e) % 16 != 0)
    return std::string(name) + ".ld = " + std::to_string(x.ld) + " is not a multiple of " + std::to_string(16 / e) +
           " elements (TMA strides are multiples of 16 B)";
  return std::string(name) + ".ptr is " + std::to_string(address(x.ptr) % 16) +
         " bytes past a 16-B boundary (TMA needs 16-B aligned bases)";
}

}  // namespace

const char* path_name(Path p) { return p == Path::sm90 ? "sm90" : "fallback"; }

const char* operand_name(Pack::Operand o) {
  switch (o) {
    case Pack::Operand::a: return "a";
    case Pack::Operand::b: return "b";
    case Pack::Operand::c: return "c";
  }
  return "?";
}

double packs_us(const std::vector<Pack>& packs, const plan::DeviceProfile& d, double* bytes) {
  double moved = 0;
  for (const Pack& pk : packs) moved += 2.0 * static_cast<double>(pk.bytes());
  if (bytes != nullptr) *bytes = moved;
  return packs.empty() ? 0.0 : plan::copy_us(d, moved, pack_launches(packs));
}

std::vector<PackLaunch> pack_launch_groups(const std::vector<Pack>& packs) {
  std::vector<PackLaunch> groups;
  for (int elem : {2, 4}) {
    PackLaunch g;
    g.elem_bytes = elem;
    for (const Pack& pk : packs)
      if (!pk.transposes() && pk.elem_bytes == elem) g.packs.push_back(&pk);
    if (!g.packs.empty()) groups.push_back(std::move(g));
  }
  for (const Pack& pk : packs)
    if (pk.transposes()) groups.push_back(PackLaunch{true, pk.elem_bytes, {&pk}});
  return groups;
}

plan::Problem problem_of(const GemmArgs& args) {
  plan::Problem p;
  p.m = args.d.rows;
  p.n = args.d.cols;
  p.k = args.a.cols;
  p.a_major = args.a.major;
  p.b_major = args.b.major;
  p.out = args.d.dtype;
  p.accumulate = args.c != nullptr && args.beta != 0.0f;
  p.lda = args.a.ld;
  p.ldb = args.b.ld;
  p.ldd = args.d.ld;
  const MatrixRef d = args.d;
  const int e = dtype_bytes(d.dtype);
  p.d_tma = tma_describable(d);
  p.a_rows_sectored = rows_sectored(args.a);
  p.b_rows_sectored = rows_sectored(args.b);
  p.a_rows_lined = rows_lined(args.a);
  p.b_rows_lined = rows_lined(args.b);
  p.cd_pairs = address(d.ptr) % (2 * e) == 0 && d.ld % 2 == 0;
  if (p.accumulate) {
    p.cd_pairs = p.cd_pairs && address(args.c->ptr) % (2 * e) == 0 && args.c->ld % 2 == 0;
    p.c_tma = tma_describable(*args.c);
    p.c_in_place = c_is_d(args);
  }
  return p;
}

GemmArgs placeholder_args(const plan::Problem& p, MatrixRef* c_storage) {
  // Matrix i at i * 2^41: validate() bounds every matrix's span below 2^40 bytes, so the
  // placeholders never overlap, whatever the shape (fixed addresses 256 MiB apart made explain
  // refuse large valid problems with "d overlaps a").
  const auto addr = [](uintptr_t i) { return reinterpret_cast<void*>(i << 41); };
  GemmArgs g;
  g.a = MatrixRef{addr(1), p.m, p.k, p.lda ? p.lda : (p.a_major == Major::k_major ? p.k : p.m), DType::bf16,
                  p.a_major};
  g.b = MatrixRef{addr(2), p.n, p.k, p.ldb ? p.ldb : (p.b_major == Major::k_major ? p.k : p.n), DType::bf16,
                  p.b_major};
  g.d = MutMatrixRef{addr(3), p.m, p.n, p.ldd ? p.ldd : p.n, p.out, row_major};
  if (p.accumulate) {
    *c_storage = g.d;
    if (!p.c_in_place) c_storage->ptr = addr(4);  // else C is D: same pointer and storage
    g.c = c_storage;
    g.beta = 1.0f;
  }
  return g;
}

GemmArgs canonical_args(const GemmArgs& in) {
  GemmArgs g = in;
  // A [M, K] or B [N, K] with one row: element (0, k) is at k (K-major, any ld) or at k * ld
  // (MN-major), so it is one contiguous line exactly when K-major, or MN-major with ld = 1.
  auto one_row = [](auto& x) {
    const bool contiguous = x.major == Major::k_major || x.ld == 1;
    if (x.rows != 1 || !contiguous || (x.major == Major::k_major && x.ld % 8 == 0)) return;
    x.major = Major::k_major;
    x.ld = round_up(x.cols > 0 ? x.cols : int64_t{1}, int64_t{8});
  };
  one_row(g.a);
  one_row(g.b);
  // D with one row, row-major: its ld is never stepped over.
  if (g.d.rows == 1 && g.d.major == row_major && g.d.ld % 8 != 0) g.d.ld = round_up(g.d.cols, int64_t{8});
  return g;
}

Route fallback_route(const GemmArgs& args, const std::string& why) {
  Route r;
  r.path = Path::fallback;
  r.reason = why;
  r.args = args;
  r.problem = problem_of(args);
  return r;
}

Route route(const GemmArgs& in, const plan::DeviceProfile* profile, ModelCopies copies) {
  Route r;
  r.args = canonical_args(in);
  GemmArgs& args = r.args;
  r.problem = problem_of(args);
  auto fallback = [&](const char* arg, const std::string& value, const std::string& rule) {
    r.path = Path::fallback;
    r.reason = std::string(arg) + " = " + value + ": the sm90 kernel needs " + rule;
    return r;
  };
  if (args.a.dtype != DType::bf16) return fallback("a.dtype", to_string(args.a.dtype), "bf16");
  if (args.b.dtype != DType::bf16) return fallback("b.dtype", to_string(args.b.dtype), "bf16");
  if (args.d.dtype != DType::bf16 && args.d.dtype != DType::fp32)
    return fallback("d.dtype", to_string(args.d.dtype), "bf16 or fp32 output");
  const int64_t m = args.d.rows, n = args.d.cols, k = args.a.cols;
  if (k < 1) return fallback("K", std::to_string(k), "K >= 1 (K = 0 is a pure epilogue, D = beta·C)");
  for (const auto& [name, extent] : {std::pair{"M", m}, std::pair{"N", n}, std::pair{"K", k}})
    if (extent > plan::kMaxKernelExtent)  // (plan/problem.hpp)
      return fallback(name, std::to_string(extent),
                      std::string(name) + " <= 2^31 - 1024 (int32 tile coordinates, a tile past the edge included)");
  if (args.c != nullptr && args.beta == 0.0f) args.c = nullptr;  // C is never read

  // A column-major D [M, N] is a row-major Dᵀ [N, M] with the same ld: Dᵀ = B·Aᵀ, the kernel's
  // problem with the operands swapped (each keeps its storage: B [N, K] is the new A, A the new B).
  if (args.d.major == col_major) {
    std::swap(args.a, args.b);
    args.d = MutMatrixRef{args.d.ptr, args.d.cols, args.d.rows, args.d.ld, args.d.dtype, row_major};
    if (args.c != nullptr) {
      const MatrixRef c = *args.c;
      r.c_view = MatrixRef{c.ptr, c.cols, c.rows, c.ld, c.dtype, flipped(c.major)};
      args.c = &r.c_view;
    }
    args = canonical_args(args);
    r.transposed = true;
    r.notes.push_back("column-major D: computed as the row-major Dᵀ [N, M] = B·Aᵀ (A and B swap roles)");
  }

  // An MN-major A or B with fewer than 64 rows along MN may be copied into K-major lines first
  // (plan::choose_narrow_transpose says when that pays); the copy also serves an operand TMA
  // cannot read in place. The comparison sees the other copies as route() makes them below.
  // The row repack's comparison (plan::choose_row_repack) for the problem `q` of these operands.
  auto row_repack = [&](const plan::Problem& q) {
    return cached_choice<plan::OperandCopies>("rows", q, *profile, copies.plan, [&] {
      return plan::choose_row_repack(q, *profile, copy_bytes(line_count(args.a), line_length(args.a), args.a.dtype),
                                     copy_bytes(line_count(args.b), line_length(args.b), args.b.dtype), copies.plan);
    });
  };
  bool transpose_a = false, transpose_b = false;
  std::string narrow_why;
  {
    auto narrow = [](const MatrixRef& x) { return x.major == Major::mn_major && x.rows < plan::kNarrowMnExtent; };
    if (profile != nullptr && copies.narrow_transposes && (narrow(args.a) || narrow(args.b))) {
      GemmArgs view = args;  // the operands as the kernel would read them without the transposes
      auto as_copied = [](MatrixRef& x, uintptr_t at) {
        if (tma_describable(x)) return;
        x.ptr = reinterpret_cast<const void*>(at);
        x.ld = padded_line(line_length(x), dtype_bytes(x.dtype));
      };
      as_copied(view.a, uintptr_t{1} << 41);
      as_copied(view.b, uintptr_t{2} << 41);
      const plan::Problem as_is = problem_of(view);
      auto transposed_bytes = [](const MatrixRef& x) { return copy_bytes(x.rows, x.cols, x.dtype); };  // K-major lines
      const bool na = narrow(args.a), nb = narrow(args.b);
      const plan::OperandCopies nt = cached_choice<plan::OperandCopies>(
          na && nb ? "narrow-ab" : na ? "narrow-a" : "narrow-b", as_is, *profile, copies.plan, [&] {
            return plan::choose_narrow_transpose(as_is, *profile, na, nb, transposed_bytes(args.a),
                                                 transposed_bytes(args.b), copies.plan);
          });
      // Read in place, an operand whose lines start inside sectors may still get the row repack
      // below: the copies must beat that too.
      double in_place_us = nt.as_is_us;
      std::string in_place = fmt_us(nt.as_is_us) + " as is";
      if (copies.row_repacks && (!as_is.a_lined() || !as_is.b_lined())) {
        const plan::OperandCopies rr = row_repack(as_is);
        if (rr.a || rr.b) {
          in_place_us = rr.chosen_us + rr.copy_us;
          in_place += " (" + fmt_us(rr.chosen_us) + " + " + fmt_us(rr.copy_us) + " with its rows repacked)";
        }
      }
      const bool pays = nt.chosen_us + nt.copy_us < in_place_us;
      transpose_a = pays && nt.a;
      transpose_b = pays && nt.b;
      narrow_why = "the time model predicts " + in_place + ", " + fmt_us(nt.chosen_us) + " K-major + " +
                   fmt_us(nt.copy_us) + " to copy";
    }
  }

  // Operands TMA cannot read in place are copied into aligned lines first.
  size_t offset = 0;
  auto add_pack = [&](Pack::Operand which, const MatrixRef& x, bool transpose, std::string why) {
    Pack pk;
    pk.operand = which;
    pk.src = x.ptr;
    pk.elem_bytes = dtype_bytes(x.dtype);
    if (!transpose) {
      pk.rows = line_count(x);
      pk.cols = line_length(x);
      pk.src_row = x.ld;
      pk.src_col = 1;
    } else {  // MN-major A or B [M or N, K] -> K-major; C [M, N] column-major -> row-major
      pk.rows = x.rows;
      pk.cols = x.cols;
      pk.src_row = 1;
      pk.src_col = x.ld;
    }
    // Lines padded to whole 128-B (L2 line) multiples, not just TMA's 16 B: every line then starts
    // on a line boundary, so a TMA box row (128 B of K) is one L2 line instead of straddling two.
    pk.ld = padded_line(pk.cols, pk.elem_bytes);
    pk.offset = offset;
    pk.why = std::move(why);
    offset = round_up(offset + pk.bytes(), size_t{256});
    r.notes.push_back(std::string(operand_name(which)) + " is repacked into an aligned workspace (" +
                      std::to_string(pk.bytes()) + " B" + (transpose ? ", transposed" : "") + "): " + pk.why);
    r.packs.push_back(std::move(pk));
  };
  auto narrow_note = [&](const MatrixRef& x, const char* name) {
    return std::string(name) + " is MN-major with " + std::to_string(x.rows) + " rows along " +
           (name[0] == 'a' ? "M" : "N") + " (< " + std::to_string(plan::kNarrowMnExtent) +
           (copies.plan.narrow_mn_chunks
                ? "): read in place, its tiles would be chunks of 16 or 32 elements along MN, but "
                : "): TMA reads and zero-fills every one of its K lines, and swap-AB cannot give it a narrow tile; ") +
           narrow_why;
  };
  if (transpose_a) add_pack(Pack::Operand::a, args.a, true, narrow_note(args.a, "a"));
  if (transpose_b) add_pack(Pack::Operand::b, args.b, true, narrow_note(args.b, "b"));
  if (!transpose_a && !tma_describable(args.a)) add_pack(Pack::Operand::a, args.a, false, misalignment(args.a, "a"));
  if (!transpose_b && !tma_describable(args.b)) add_pack(Pack::Operand::b, args.b, false, misalignment(args.b, "b"));
  // Operands TMA can read whose rows start off 128-B L2 lines (inside sectors, or on sectors but
  // between lines): repacked when the time model says so.
  const bool a_off = !transpose_a && tma_describable(args.a) && !rows_lined(args.a);
  const bool b_off = !transpose_b && tma_describable(args.b) && !rows_lined(args.b);
  if (profile != nullptr && copies.row_repacks && (a_off || b_off)) {
    MatrixRef c_as_is;
    const plan::Problem as_is = problem_of(launch_args(r, reinterpret_cast<void*>(uintptr_t{1} << 12), &c_as_is));
    const plan::OperandCopies rr = row_repack(as_is);
    auto why = [&](const MatrixRef& x, const char* name) {
      const bool in_sector = !rows_sectored(x);
      const int boundary = in_sector ? 32 : 128;
      return std::string(name) + "'s rows do not start on " + (in_sector ? "32-B sector" : "128-B L2 line") +
             " boundaries (" + name + ".ld = " + std::to_string(x.ld) + " elements, base " +
             std::to_string(address(x.ptr) % boundary) + " B past one): " +
             (in_sector ? "TMA reads such rows at about half speed"
                        : "each 128-B TMA box row spans two L2 lines, which L2 serves at about half the rate") +
             "; the time model predicts " + fmt_us(rr.as_is_us) + " as is, " + fmt_us(rr.chosen_us) + " repacked + " +
             fmt_us(rr.copy_us) + " to repack";
    };
    if (rr.a) add_pack(Pack::Operand::a, args.a, false, why(args.a, "a"));
    if (rr.b) add_pack(Pack::Operand::b, args.b, false, why(args.b, "b"));
  }
  if (args.c != nullptr && args.c->major != row_major)
    add_pack(Pack::Operand::c, *args.c, true,
             std::string("c is ") + (r.transposed ? "row-major but D column-major" : "column-major but D row-major") +
                 " (the epilogue reads C in D's order)");
  r.pack_bytes = offset;

  // The planner sees the operands the kernel reads: the copies where there are copies.
  MatrixRef c_planned;
  const GemmArgs planned = launch_args(r, reinterpret_cast<void*>(uintptr_t{1} << 12), &c_planned);
  r.problem = problem_of(planned);
  if (planned.a.cols != args.a.cols)
    r.notes.push_back("K runs to " + std::to_string(planned.a.cols) + " in the kernel: both copies are zero past K = " +
                      std::to_string(args.a.cols) + " (whole 128-B lines), so no k-block ends inside a TMA box");
  const char* pairs = r.problem.cd_pairs ? "" : ", element by element (not aligned to element pairs)";
  if (!r.problem.d_tma)
    r.notes.push_back(misalignment(planned.d, "d") +
                      ": D is written by the threads, not TMA (staged boxes row by row, or from registers)" + pairs);
  else if (r.problem.accumulate && !r.problem.c_tma)
    r.notes.push_back(misalignment(*planned.c, "c") + ": C is read by the threads, not TMA" + pairs);
  r.path = Path::sm90;
  return r;
}

GemmArgs launch_args(const Route& r, void* workspace, MatrixRef* c_storage) {
  GemmArgs g = r.args;
  bool a_copied = false, b_copied = false;
  for (const Pack& pk : r.packs) {
    a_copied = a_copied || pk.operand == Pack::Operand::a;
    b_copied = b_copied || pk.operand == Pack::Operand::b;
    void* copy = static_cast<uint8_t*>(workspace) + pk.offset;
    if (pk.operand == Pack::Operand::a) {
      g.a.ptr = copy;
      g.a.ld = pk.ld;
      if (pk.transposes()) g.a.major = Major::k_major;
    } else if (pk.operand == Pack::Operand::b) {
      g.b.ptr = copy;
      g.b.ld = pk.ld;
      if (pk.transposes()) g.b.major = Major::k_major;
    } else {
      *c_storage = MatrixRef{copy, pk.rows, pk.cols, pk.ld, g.c->dtype, row_major};
      g.c = c_storage;
    }
  }
  // Both operands copied into K-major lines: they are zero past K up to whole 128-B lines (pack.cuh),
  // so the kernel may run K up to the next multiple of BK = 64 elements — the extra products are
  // 0 x 0 — and no k-block ends inside a box. NOTES: measured on the H100 (docs/PERF.md,
  // thirty-third session), the kernels after such copies ran 4-12 % faster with K padded (the
  // planner's picks: 4001x3999x2001 141.1 -> 127.9 us, 3001x5003x1027 76.9 -> 71.9, 6007x1501x513
  // 33.1 -> 29.7, 7001x3001x2999 278.5 -> 267.3; 2049x6001x4097 and 1023x8191x2047 within 1 %),
  // most with the narrow tiles: a last k-block that TMA must cut off a 16-B boundary in the box
  // (odd K) is slow to fill.
  // (The k-blocks are as many — BK is sm90::kBlockK = 64 — so a k-split, and its workspace that
  // gemm() sizes from r.args, are the same.)
  static_assert(sm90::kBlockK == 64, "K is padded to whole k-blocks");
  if (a_copied && b_copied && g.a.major == Major::k_major && g.b.major == Major::k_major) {
    const int64_t k = round_up(g.a.cols, int64_t{sm90::kBlockK});
    if (k <= g.a.ld && k <= g.b.ld) g.a.cols = g.b.cols = k;
  }
  return g;
}

}  // namespace tilegemm::detail
