// The fuzz problem generator and placements (fuzz_problem.hpp).
#include "bench/fuzz_problem.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "api/matrix_layout.hpp"
#include "core/layout_names.hpp"

namespace tilegemm::bench {
namespace {

// splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", OOPSLA 2014):
// a counter hash, so problem i's stream is seeded by (seed, i) without drawing problems 0..i-1.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng(uint64_t seed, uint64_t index) : state_(mix64(seed ^ 0x6a09e667f3bcc909ull) ^ mix64(index + 0x3c6ef372fe94f82bull)) {}
  uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ull); }
  // Uniform in [lo, hi] (hi - lo small next to 2^64; the modulo bias is far below anything a test
  // of this generator could see).
  int64_t in(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  bool chance(double p) { return unit() < p; }

 private:
  uint64_t state_;
};

// One dimension in [1, limit]: half the time an edge value, else uniform or log-uniform.
int64_t draw_dim(Rng& rng, int64_t limit) {
  const double r = rng.unit();
  if (r < 0.5) {
    const std::vector<int64_t> edges = edge_dims(limit);
    return edges[static_cast<size_t>(rng.in(0, static_cast<int64_t>(edges.size()) - 1))];
  }
  if (r < 0.75) return rng.in(1, limit);
  const double v = std::exp(rng.unit() * std::log(static_cast<double>(limit) + 1.0));
  return std::clamp<int64_t>(static_cast<int64_t>(v), 1, limit);
}

// A multiple of 1/64 in [-2, 2); zero becomes 1 (never a zero alpha: its result is all zeros).
float draw_scale(Rng& rng) {
  static constexpr float kCommon[] = {1.0f, -1.0f, 0.5f, 2.0f, -0.25f};
  if (rng.chance(0.5)) return kCommon[rng.in(0, 4)];
  const int64_t q = rng.in(-128, 127);
  return q == 0 ? 1.0f : static_cast<float>(q) / 64.0f;
}

// ld = line + pad: packed, padded by a multiple of 8, or padded by 1..40 (often not a multiple of 8).
int64_t draw_ld(Rng& rng, int64_t line) {
  const double r = rng.unit();
  if (r < 0.4) return line;
  if (r < 0.7) return line + 8 * rng.in(1, 8);
  return line + rng.in(1, 40);
}

// Pointer offset in elements: 0; 1..15 (bf16) / 1..7 (fp32) elements, which breaks 16-byte
// alignment unless it happens to be a multiple of 16 bytes; or 1..4 whole 16-byte chunks.
int64_t draw_offset(Rng& rng, DType dtype) {
  const int64_t per_16b = 16 / dtype_bytes(dtype);
  const double r = rng.unit();
  if (r < 0.5) return 0;
  if (r < 0.75) return rng.in(1, 2 * per_16b - 1);
  return per_16b * rng.in(1, 4);
}

Major draw_major(Rng& rng) { return rng.chance(0.5) ? Major::k_major : Major::mn_major; }

int64_t line_of(int64_t rows, int64_t cols, Major major) { return major == Major::k_major ? cols : rows; }

}  // namespace

const char* c_mode_name(CMode mode) {
  switch (mode) {
    case CMode::none: return "none";
    case CMode::separate: return "separate";
    case CMode::in_place: return "in_place";
    case CMode::unread: return "unread";
  }
  return "unknown";
}

std::vector<int64_t> edge_dims(int64_t max_dim) {
  std::vector<int64_t> v;
  for (int64_t x : {int64_t{1}, int64_t{2}, int64_t{3}})
    if (x <= max_dim) v.push_back(x);
  for (int64_t p = 8; p - 1 <= max_dim; p *= 2)
    for (int64_t x : {p - 1, p, p + 1})
      if (x <= max_dim && x > 3) v.push_back(x);
  if (max_dim >= 1) v.push_back(max_dim);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

FuzzProblem draw_problem(uint64_t seed, int64_t index, const FuzzOptions& o) {
  Rng rng(seed, static_cast<uint64_t>(index));
  FuzzProblem p;
  p.index = index;
  p.data_seed = rng.next();
  const int64_t max_dim = std::max<int64_t>(1, o.max_dim);
  const int64_t max_macs = std::max<int64_t>(1, o.max_macs);
  int64_t dims[3] = {draw_dim(rng, max_dim), draw_dim(rng, max_dim), draw_dim(rng, max_dim)};
  // NOTES: the cap redraws the largest dimension below max_macs / (the other two), so problems stay
  // bounded while every dimension still reaches max_dim (with the other two small).
  const auto macs = [&] { return static_cast<double>(dims[0]) * static_cast<double>(dims[1]) * static_cast<double>(dims[2]); };
  if (macs() > static_cast<double>(max_macs)) {
    const int big = static_cast<int>(std::max_element(dims, dims + 3) - dims);
    const double others = macs() / static_cast<double>(dims[big]);
    const int64_t limit = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(max_macs) / others));
    dims[big] = draw_dim(rng, std::min(limit, max_dim));
  }
  p.m = dims[0];
  p.n = dims[1];
  p.k = dims[2];

  if (o.layouts.empty()) {
    p.a_major = draw_major(rng);
    p.b_major = draw_major(rng);
  } else {
    const auto& l = o.layouts[static_cast<size_t>(rng.in(0, static_cast<int64_t>(o.layouts.size()) - 1))];
    p.a_major = l.first;
    p.b_major = l.second;
  }
  p.d_major = rng.chance(0.7) ? row_major : col_major;
  p.out = rng.chance(0.5) ? DType::bf16 : DType::fp32;
  const double c = rng.unit();
  p.c_mode = c < 0.35 ? CMode::none : c < 0.65 ? CMode::separate : c < 0.85 ? CMode::in_place : CMode::unread;
  p.alpha = draw_scale(rng);
  p.beta = p.c_mode == CMode::separate || p.c_mode == CMode::in_place ? draw_scale(rng) : 0.0f;

  p.lda = draw_ld(rng, line_of(p.m, p.k, p.a_major));
  p.ldb = draw_ld(rng, line_of(p.n, p.k, p.b_major));
  p.ldd = draw_ld(rng, line_of(p.m, p.n, p.d_major));
  p.off_a = draw_offset(rng, DType::bf16);
  p.off_b = draw_offset(rng, DType::bf16);
  p.off_d = draw_offset(rng, p.out);
  if (p.c_mode == CMode::separate || p.c_mode == CMode::unread) {
    p.c_major = rng.chance(0.5) ? row_major : col_major;
    p.ldc = draw_ld(rng, line_of(p.m, p.n, p.c_major));
    p.off_c = draw_offset(rng, p.out);
  } else if (p.c_mode == CMode::in_place) {
    p.c_major = p.d_major;
    p.ldc = p.ldd;
    p.off_c = p.off_d;
  }
  return p;
}

Placement placement(const MatrixRef& m, int64_t offset) {
  const int64_t first = kGuardElements + offset;
  return {first, first + layout::span_elements(m) + kGuardElements};
}

namespace {

MatrixRef shape_of(int64_t rows, int64_t cols, int64_t ld, DType dtype, Major major) {
  return MatrixRef{nullptr, rows, cols, ld, dtype, major};
}

bool has_own_c(const FuzzProblem& p) { return p.c_mode == CMode::separate || p.c_mode == CMode::unread; }

const void* at(const void* base, const Placement& pl, DType dtype) {
  return static_cast<const unsigned char*>(base) + pl.first * dtype_bytes(dtype);
}

}  // namespace

FuzzPlacements fuzz_placements(const FuzzProblem& p) {
  FuzzPlacements pl;
  pl.a = placement(shape_of(p.m, p.k, p.lda, DType::bf16, p.a_major), p.off_a);
  pl.b = placement(shape_of(p.n, p.k, p.ldb, DType::bf16, p.b_major), p.off_b);
  pl.d = placement(shape_of(p.m, p.n, p.ldd, p.out, p.d_major), p.off_d);
  if (has_own_c(p)) pl.c = placement(shape_of(p.m, p.n, p.ldc, p.out, p.c_major), p.off_c);
  return pl;
}

GemmArgs fuzz_args(const FuzzProblem& p, void* a_base, void* b_base, void* c_base, void* d_base,
                   MatrixRef* c_storage) {
  const FuzzPlacements pl = fuzz_placements(p);
  GemmArgs g;
  g.a = MatrixRef{at(a_base, pl.a, DType::bf16), p.m, p.k, p.lda, DType::bf16, p.a_major};
  g.b = MatrixRef{at(b_base, pl.b, DType::bf16), p.n, p.k, p.ldb, DType::bf16, p.b_major};
  g.d = MutMatrixRef{const_cast<void*>(at(d_base, pl.d, p.out)), p.m, p.n, p.ldd, p.out, p.d_major};
  g.alpha = p.alpha;
  g.beta = p.beta;
  if (p.c_mode == CMode::in_place) {
    *c_storage = g.d;
    g.c = c_storage;
  } else if (has_own_c(p)) {
    *c_storage = MatrixRef{at(c_base, pl.c, p.out), p.m, p.n, p.ldc, p.out, p.c_major};
    g.c = c_storage;
  }
  return g;
}

std::string describe(const FuzzProblem& p) {
  std::string s = fmt::format("{}x{}x{} {} {} D:{} lda {} ldb {} ldd {}", p.m, p.n, p.k, layout_name(p.a_major, p.b_major),
                              to_string(p.out), p.d_major == row_major ? "row" : "col", p.lda, p.ldb, p.ldd);
  if (p.c_mode == CMode::none) {
    s += " | no C";
  } else if (p.c_mode == CMode::in_place) {
    s += " | C in_place (C is D)";
  } else {
    s += fmt::format(" | C {} {} ldc {}", c_mode_name(p.c_mode), p.c_major == row_major ? "row" : "col", p.ldc);
  }
  s += fmt::format(" | alpha {} beta {} | offsets a {} b {}", p.alpha, p.beta, p.off_a, p.off_b);
  if (p.c_mode == CMode::separate || p.c_mode == CMode::unread) s += fmt::format(" c {}", p.off_c);
  s += fmt::format(" d {}", p.off_d);
  return s;
}

std::string explain_command(const FuzzProblem& p) {
  std::string s = fmt::format("tilegemm explain {} {} {} --layout {} --out {} --d-major {} --lda {} --ldb {} --ldd {}",
                              p.m, p.n, p.k, layout_name(p.a_major, p.b_major), to_string(p.out),
                              p.d_major == row_major ? "row" : "col", p.lda, p.ldb, p.ldd);
  if (p.c_mode == CMode::in_place) {
    s += fmt::format(" --beta {} --in-place", p.beta);
  } else if (p.c_mode != CMode::none) {
    s += fmt::format(" --beta {} --c-major {} --ldc {} --offset-c {}", p.beta, p.c_major == row_major ? "row" : "col",
                     p.ldc, p.off_c);
  }
  if (p.alpha != 1.0f) s += fmt::format(" --alpha {}", p.alpha);
  s += fmt::format(" --offset-a {} --offset-b {} --offset-d {}", p.off_a, p.off_b, p.off_d);
  return s;
}

}  // namespace tilegemm::bench
