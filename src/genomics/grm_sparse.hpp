#pragma once
// The float64 GRM's sparse route from hard calls (genomics/grm.cpp, Backend::gram_sparse_f64).
// Per variant a sample's standardized value is x = x_ref + c·d: x_ref the major homozygote's
// value, d = ±s the step towards the minor allele, c its copies (0, 1, 2; a missing call takes
// c = −x_ref/d, so x = 0). Then Σ_k x_ak x_bk = u_b + Σ_{k: c_ak ≠ 0} c_ak·y_kb with y = d·x and
// u_b = Σ_k x_ref,k·x_bk: only a's calls carrying the minor allele cost a multiply-add.
#include <cstdint>
#include <vector>

namespace strata::genomics::grm_sparse {

/// One variant's tables.
struct SparseVariant {
  double y[4] = {0, 0, 0, 0};   ///< per code: d·x (the column samples' panel)
  double xr[4] = {0, 0, 0, 0};  ///< per code: x_ref·x (the column samples' centring sum u)
  /// Per code: the row list part it joins (bit p: part p — c = 1, c = 2, missing), 0 none.
  uint8_t part[4] = {0, 0, 0, 0};
  double missing_coef = 0.0;    ///< −x_ref/d: a missing call's x = x_ref + that·d = 0
};
constexpr int kParts = 3;

/// The tables of a variant of ALT frequency f whose standardized values per code (0, 1, 2 ALT
/// copies, 3 missing) are lut (make_standardize_lut's): all zero for a monomorphic or unobserved
/// variant (its x is 0).
SparseVariant make_sparse_variant(double f, const double lut[4]);

/// One run's lists (Backend::SparseRowLists' layout, rows of `slot` bytes).
struct SparseRun {
  uint8_t* entries = nullptr;  ///< sample i's list at entries + i·slot
  uint8_t* counts = nullptr;   ///< kParts per sample
  double* u = nullptr;         ///< per sample: Σ_k x_ref,k·x_ik, in variant order
  double* coef = nullptr;      ///< slot values: per variant of the run its missing_coef (0 past count)
  int64_t slot = 0;            ///< entries per sample slot: the run's most variants (≤ 256)
};

/// Builds a run of `count` ≤ run.slot variants (tables sv[0..count), packed 2-bit code rows
/// `stride` bytes apart) for samples [0, n): each sample's list — its c = 1 variants, then
/// c = 2, then missing, each part in variant order — the part lengths and u (samples n..npad
/// get empty lists and u = 0). `missing`, when not null, points at `count` lists: variant k's
/// missing samples (ascending) are appended to missing[k].
void build_sparse_run(const SparseVariant* sv, const uint8_t* codes, int64_t stride, int64_t count, int64_t n,
                      int64_t npad, const SparseRun& run, std::vector<int32_t>* missing);

/// acc (a rows × cols tile at (row0, col0), ldacc = cols) += 1 for each of its pairs (i, j)
/// that both miss a variant of `missing` (per variant, its samples ascending); diagonal tiles
/// (row0 == col0) only j ≤ i. Exact integers: rare missing calls cost Σ missing² / 2 adds.
void add_missing_pairs(const std::vector<std::vector<int32_t>>& missing, int64_t row0, int64_t rows, int64_t col0,
                       int64_t cols, double* acc);

}  // namespace strata::genomics::grm_sparse
