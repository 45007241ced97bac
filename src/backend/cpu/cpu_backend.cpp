// The CPU backend's dispatch table and its genotype and random operations (dense ones:
// cpu_dense.cpp). The table is filled once per backend instance from the requested level;
// nothing here is process-global except the detected CPU features.
#include "backend/cpu/cpu_backend.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include "backend/checks.hpp"
#include "backend/cpu/gram_int_neon.hpp"
#include "backend/cpu/pair_count_neon.hpp"
#include "strata/core/cpu_pin.hpp"

namespace strata::backend::cpu {
namespace {

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

std::optional<KernelTable> make_table(CpuIsa isa) {
  KernelTable k;
  k.isa = isa;
  k.add_scalar_f64 = add_scalar_f64_for(isa);
  k.decode = &decode_portable();
  k.f32 = gram_f32_portable();
  k.i16 = gram_i16_portable();
  k.pairs = &pair_counts_portable();
  k.row_reduce = row_reduce_portable;
  k.weighted_gram = weighted_gram_portable;
  k.weighted_gram_rows = weighted_gram_rows_portable;
  k.linear_predictor = linear_predictor_portable;
  k.logistic_gram = logistic_gram_portable;
  k.gram_panels = gram_panels_portable;
  k.gram_panels_f64 = gram_panels_f64_portable;
  k.gram_sparse_f64 = gram_sparse_f64_portable;
  k.gram_u8s8 = gram_u8s8_portable;
  k.pack_u8s8 = pack_u8s8_portable;
  // x86-64's baseline (SSE2) has `pmaddwd`: the int16 route beats the portable float32 kernels
  // there (randomized PCA 10,000 × 20,000, 2 threads: see NOTES, session 18).
  if (isa == CpuIsa::Portable) {
    if (const GramI16Kernels* i16 = gram_i16_sse2()) k.i16 = *i16, k.fast_i16 = true;
    return k;
  }
  if (isa == CpuIsa::Neon) {
    if (!(k.pairs = pair_counts_neon())) return std::nullopt;
    // The integer Gram kernels need the dot products (ARMv8.2; every Neoverse and Apple core):
    // with them the int16 operator runs 16 multiply-adds an instruction to float32's 4.
    if (const GramI16Kernels* i16 = gram_i16_neon()) k.i16 = *i16, k.fast_i16 = true;
    if (GramU8S8Fn g = gram_u8s8_neon(); g && pack_u8s8_neon()) k.gram_u8s8 = g, k.pack_u8s8 = pack_u8s8_neon();
    return k;
  }
  // AVX2 pair counts for every x86 level (VPOPCNTDQ's kernel replaces them below): AVX-512 CPUs
  // without VPOPCNTDQ (Skylake-SP, Cascade Lake) would otherwise run the ~16× slower POPCNT loop.
  if (const PairCountKernels* p = pair_counts_avx2()) {
    k.pairs = p;
  } else if (const PairCountKernels* q = pair_counts_popcnt()) {
    k.pairs = q;
  }
  if (GramPanelsFn f = gram_panels_avx2()) k.gram_panels = f;
  if (GramPanelsF64Fn f = gram_panels_f64_avx2()) k.gram_panels_f64 = f;
  if (GramSparseF64Fn f = gram_sparse_f64_avx2()) k.gram_sparse_f64 = f;
  k.skinny = skinny_gemm_avx2();  // the AVX-512 levels replace it below
  if (WeightedGramRowsFn f = weighted_gram_rows_avx2()) k.weighted_gram_rows = f;
  if (random::isa_available(random::Isa::Avx2)) k.random = random::Isa::Avx2;
  if (const GramI16Kernels* i16 = gram_i16_avx2()) k.i16 = *i16;  // VNNI and AMX replace it below
  if (isa == CpuIsa::Avx2 || isa == CpuIsa::Avx2Vnni) {
    if (!(k.decode = decode_avx2())) return std::nullopt;
    if (const GramF32Kernels* f32 = gram_f32_avx2()) k.f32 = *f32;
    if (isa == CpuIsa::Avx2Vnni) {
      const GramI16Kernels* i16 = gram_i16_avx_vnni();
      if (!i16) return std::nullopt;
      k.i16 = *i16;
    }
    // With AVX2 the int16 products beat float32 (PCA 10,000 × 100,000: 11.3 vs 13.5 s); with
    // AVX-512 but no VNNI float32 wins (6.8 vs 11.2 s), so only these levels call them fast.
    k.fast_i16 = gram_i16_avx2() != nullptr;
    // The exact-integer GRM products with AVX-VNNI only: its 256-bit kernel beat the float32
    // panels (exact PCA 2,000 x 20,000, 1 thread: ~840 vs ~950 ms CPU); plain AVX2's three
    // multiplies per 32 byte products lost to them (~1,380 vs ~930 ms).
    if (GramU8S8Fn g = gram_u8s8_avx_vnni(); g && isa == CpuIsa::Avx2Vnni && pack_u8s8_avx2())
      k.gram_u8s8 = g, k.pack_u8s8 = pack_u8s8_avx2();
    return k;
  }
  // VPOPCNTDQ came after AVX-512 F: without it the AVX-512 levels keep the AVX2 kernel.
  if (const PairCountKernels* p = pair_counts_avx512()) k.pairs = p;
  if (RowReduceFn r = row_reduce_avx512()) k.row_reduce = r;
  if (WeightedGramFn f = weighted_gram_avx512()) k.weighted_gram = f;
  if (WeightedGramRowsFn f = weighted_gram_rows_avx512()) k.weighted_gram_rows = f;
  if (LinearPredictorFn f = linear_predictor_avx512()) k.linear_predictor = f;
  if (LogisticGramFn f = logistic_gram_avx512()) k.logistic_gram = f;
  k.skinny = skinny_gemm_avx512();
  if (GramPanelsFn f = gram_panels_avx512()) k.gram_panels = f;
  if (GramPanelsF64Fn f = gram_panels_f64_avx512()) k.gram_panels_f64 = f;
  if (GramSparseF64Fn f = gram_sparse_f64_avx512()) k.gram_sparse_f64 = f;
  // Avx512 and Avx512Vnni
  const GramF32Kernels* f32 = gram_f32_avx512();
  if (!(k.decode = decode_avx512()) || !f32) return std::nullopt;
  k.f32 = *f32;
  if (random::isa_available(random::Isa::Avx512)) k.random = random::Isa::Avx512;
  if (isa == CpuIsa::Avx512Vnni || isa == CpuIsa::Avx512Amx) {
    const GramI16Kernels* i16 = isa == CpuIsa::Avx512Amx ? gram_i16_amx() : gram_i16_vnni();
    if (!i16) return std::nullopt;
    k.i16 = *i16;
    k.fast_i16 = true;
    // The integer GRM kernel and its packer go together (the packer also needs VBMI).
    if (GramU8S8Fn g = gram_u8s8_vnni(); g && pack_u8s8_vnni()) k.gram_u8s8 = g, k.pack_u8s8 = pack_u8s8_vnni();
    if (GramU8S8Fn g = gram_u8s8_amx(); g && isa == CpuIsa::Avx512Amx && k.gram_u8s8 != gram_u8s8_portable)
      k.gram_u8s8 = g;
  }
  return k;
}

template <class T, class RowFn>
Status decode_impl(CodesView codes, const T* luts, MatrixView<T> out, RowFn row) {
  if (out.rows != codes.rows || out.cols != codes.samples || codes.rows < 0 || codes.samples < 0)
    return Status::Invalid("decode: output ", out.rows, " x ", out.cols, " for ", codes.rows, " x ", codes.samples,
                           " codes");
  if (out.layout == Layout::RowMajor) {
    for (int64_t i = 0; i < codes.rows; ++i) row(codes.row(i), codes.samples, luts + 4 * i, out.data + i * out.ld);
    return Status::OK();
  }
  // Column-major output: decode a row contiguously, then scatter it down the columns.
  std::vector<T> tmp(static_cast<size_t>(codes.samples));
  for (int64_t i = 0; i < codes.rows; ++i) {
    row(codes.row(i), codes.samples, luts + 4 * i, tmp.data());
    for (int64_t j = 0; j < codes.samples; ++j) out.data[i + j * out.ld] = tmp[static_cast<size_t>(j)];
  }
  return Status::OK();
}

}  // namespace

namespace {
// Every level's table as this CPU allows it, regardless of STRATA_CPU.
const KernelTable* table_of(int level) {
  static const std::optional<KernelTable> tables[] = {make_table(CpuIsa::Portable), make_table(CpuIsa::Avx2),
                                                      make_table(CpuIsa::Avx2Vnni),
                                                      make_table(CpuIsa::Avx512), make_table(CpuIsa::Avx512Vnni),
                                                      make_table(CpuIsa::Avx512Amx), make_table(CpuIsa::Neon)};
  static_assert(std::size(tables) == kCpuLevelCount);
  const auto& t = tables[level];
  return t ? &*t : nullptr;
}
int level_of(CpuIsa isa) { return static_cast<int>(isa) - static_cast<int>(CpuIsa::Portable); }
}  // namespace

const KernelTable* kernel_table(CpuIsa isa) {
  if (isa == CpuIsa::Best) return nullptr;
  if (level_of(isa) > cpu_pin().max_level) return nullptr;  // above STRATA_CPU: as if the CPU lacked it
  return table_of(level_of(isa));
}

CpuIsa detected_isa() {
  for (int level = kCpuLevelCount - 1; level > 0; --level)
    if (table_of(level)) return static_cast<CpuIsa>(level + static_cast<int>(CpuIsa::Portable));
  return CpuIsa::Portable;
}

std::string CpuBackend::name() const { return std::string("cpu-") + cpu_isa_name(k_.isa); }

Status CpuBackend::decode(CodesView codes, const float* luts, MatrixView<float> out) const {
  return decode_impl(codes, luts, out, k_.decode->row_f32);
}
Status CpuBackend::decode(CodesView codes, const double* luts, MatrixView<double> out) const {
  return decode_impl(codes, luts, out, k_.decode->row_f64);
}

Status CpuBackend::count_codes(CodesView codes, int64_t* counts) const {
  for (int64_t i = 0; i < codes.rows; ++i) k_.decode->count(codes.row(i), codes.samples, counts + 4 * i);
  return Status::OK();
}

Status CpuBackend::codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                               float* y) const {
  k_.f32.times(codes.data, codes.stride, luts, codes.rows, round_up(codes.samples, 16), qt, ldq, w, y);
  return Status::OK();
}

Status CpuBackend::codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y,
                                 int64_t w, float* zt, int64_t ldz) const {
  k_.f32.t_times(codes.data, codes.stride, luts, codes.rows, n0, len, y, w, zt, ldz);
  return Status::OK();
}

Status CpuBackend::codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p,
                                   const uint8_t* packed) const {
  k_.i16.times(codes.data, codes.stride, codes.rows, round_up(codes.samples, 32), qt, ldq, w, p, packed);
  return Status::OK();
}

Result<std::vector<uint8_t>> CpuBackend::pack_times_i16(const int16_t* qt, int64_t ldq, int64_t w,
                                                        int64_t n32) const {
  return k_.i16.pack ? k_.i16.pack(qt, ldq, w, n32) : std::vector<uint8_t>{};
}

Status CpuBackend::codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz,
                                     const uint8_t* packed) const {
  k_.i16.t_times(codes.data, codes.stride, codes.rows, round_up(codes.samples, 16), wpairs, w, zt, ldz, packed);
  return Status::OK();
}

Result<std::vector<uint8_t>> CpuBackend::pack_t_times_i16(const int16_t* wpairs, int64_t rows, int64_t w) const {
  return k_.i16.pack_t ? k_.i16.pack_t(wpairs, rows, w) : std::vector<uint8_t>{};
}

Status CpuBackend::code_planes(CodesView codes, uint64_t* planes, int64_t words, int64_t word) const {
  k_.pairs->planes(codes.data, codes.stride, codes.rows, codes.samples, planes, words, word);
  return Status::OK();
}

using detail::check_pair_tile;

Status CpuBackend::pair_code_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                                    int64_t* counts) const {
  STRATA_RETURN_NOT_OK(check_pair_tile("pair_code_counts", planes, row0, rows, col0, cols));
  if (rows == 0 || cols == 0 || planes.words == 0) return Status::OK();
  k_.pairs->counts(planes.data, planes.words, row0, rows, col0, cols, counts);
  return Status::OK();
}

Status CpuBackend::pair_king_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                                    int64_t* counts) const {
  STRATA_RETURN_NOT_OK(check_pair_tile("pair_king_counts", planes, row0, rows, col0, cols));
  if (rows == 0 || cols == 0 || planes.words == 0) return Status::OK();
  k_.pairs->king(planes.data, planes.words, row0, rows, col0, cols, counts);
  return Status::OK();
}

Status CpuBackend::row_pair_reduce(RowReduce op, double p, MatrixView<const double> a, MatrixView<const double> b,
                                   MatrixView<double> out, int64_t* observed) const {
  if (a.layout != Layout::RowMajor || b.layout != Layout::RowMajor || out.layout != Layout::RowMajor ||
      a.cols != b.cols || out.rows != a.rows || out.cols != b.rows || a.ld < a.cols || b.ld < b.cols ||
      out.ld < out.cols || a.rows < 0 || b.rows < 0 || a.cols < 0)
    return Status::Invalid("row_pair_reduce: rows ", a.rows, " x ", a.cols, " against ", b.rows, " x ", b.cols,
                           " into ", out.rows, " x ", out.cols, " (all row-major, same coordinates)");
  k_.row_reduce(op, p, a.data, a.ld, a.rows, b.data, b.ld, b.rows, a.cols, out.data, out.ld, observed);
  return Status::OK();
}

Status CpuBackend::weighted_gram(MatrixView<const double> x, const double* w, const double* v, MatrixView<double> h,
                                 double* g) const {
  if (x.layout != Layout::RowMajor || h.layout != Layout::RowMajor || x.ld < x.cols || h.rows != x.rows ||
      h.cols != x.rows || h.ld < h.cols || x.rows < 0 || x.cols < 0 || (v == nullptr) != (g == nullptr))
    return Status::Invalid("weighted_gram: ", x.rows, " x ", x.cols, " predictors into ", h.rows, " x ", h.cols,
                           " (row-major; v and g both given or both null)");
  k_.weighted_gram(x.data, x.ld, x.rows, x.cols, w, v, h.data, h.ld, g);
  return Status::OK();
}

Status CpuBackend::weighted_gram_rows(MatrixView<const double> x, const double* w, MatrixView<double> h) const {
  if (x.layout != Layout::RowMajor || h.layout != Layout::RowMajor || x.ld < x.cols || h.rows != x.cols ||
      h.cols != x.cols || h.ld < h.cols || x.rows < 0 || x.cols < 0)
    return Status::Invalid("weighted_gram_rows: ", x.rows, " x ", x.cols, " observations into ", h.rows, " x ",
                           h.cols, " (row-major)");
  k_.weighted_gram_rows(x.data, x.ld, x.rows, x.cols, w, h.data, h.ld);
  return Status::OK();
}

Status CpuBackend::linear_predictor(MatrixView<const double> x, const double* c, bool logistic, double* out) const {
  if (x.layout != Layout::RowMajor || x.ld < x.cols || x.rows < 0 || x.cols < 0)
    return Status::Invalid("linear_predictor: ", x.rows, " x ", x.cols, " predictors (row-major)");
  k_.linear_predictor(x.data, x.ld, x.rows, x.cols, c, logistic, out);
  return Status::OK();
}

Status CpuBackend::logistic_gram(MatrixView<const double> x, const double* c, const double* y, MatrixView<double> h,
                                 double* g) const {
  if (x.layout != Layout::RowMajor || h.layout != Layout::RowMajor || x.ld < x.cols || h.rows != x.rows ||
      h.cols != x.rows || h.ld < h.cols || x.rows < 0 || x.cols < 0)
    return Status::Invalid("logistic_gram: ", x.rows, " x ", x.cols, " predictors into ", h.rows, " x ", h.cols,
                           " (row-major)");
  k_.logistic_gram(x.data, x.ld, x.rows, x.cols, c, y, h.data, h.ld, g);
  return Status::OK();
}

Status CpuBackend::random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) const {
  random::fill(p, e0, step, n, out, k_.random);
  return Status::OK();
}

}  // namespace strata::backend::cpu

namespace strata::backend {

bool cpu_isa_available(CpuIsa isa) { return isa == CpuIsa::Best || cpu::kernel_table(isa) != nullptr; }

CpuIsa detected_cpu_isa() { return cpu::detected_isa(); }

std::string cpu_level_summary() {
  const CpuIsa best = best_cpu_isa(), detected = detected_cpu_isa();
  const CpuPin& pin = cpu_pin();
  std::string s = cpu_isa_name(best);
  if (pin.text.empty()) return s;
  s += std::string(" (STRATA_CPU=") + pin.text + (pin.valid ? "" : ", not a level") + "; this CPU runs up to " +
       cpu_isa_name(detected) + ")";
  return s;
}

CpuIsa best_cpu_isa() {
  for (CpuIsa isa : {CpuIsa::Avx512Amx, CpuIsa::Avx512Vnni, CpuIsa::Avx512, CpuIsa::Avx2Vnni, CpuIsa::Avx2, CpuIsa::Neon})
    if (cpu::kernel_table(isa)) return isa;
  return CpuIsa::Portable;
}

Result<BackendPtr> make_cpu_backend(CpuIsa isa) {
  if (isa == CpuIsa::Best) isa = best_cpu_isa();
  const cpu::KernelTable* k = cpu::kernel_table(isa);
  if (!k) {
    const CpuPin& pin = cpu_pin();
    if (!pin.text.empty() && cpu::level_of(isa) > pin.max_level)
      return Status::Unsupported("CPU backend: ", cpu_isa_name(isa), " kernels are above STRATA_CPU=", pin.text);
    return Status::Unsupported("CPU backend: this CPU does not run ", cpu_isa_name(isa), " kernels");
  }
  return BackendPtr(std::make_shared<cpu::CpuBackend>(*k));
}

const BackendPtr& cpu_backend() {
  static const BackendPtr be = make_cpu_backend(CpuIsa::Best).value();
  return be;
}

}  // namespace strata::backend
