#pragma once
// A Backend that hands every operation to another one. Backends that take over some
// operations (the CUDA backend over its CPU backend, test stand-ins) derive from it and
// override only those, so the rest of the interface keeps the inner backend's contracts.
#include <cstdint>
#include <string>
#include <utility>

#include "strata/backend/backend.hpp"

namespace strata::backend {

class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(BackendPtr inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }

  Status gemm(Trans ta, Trans tb, double alpha, MatrixView<const double> a, MatrixView<const double> b, double beta,
              MatrixView<double> c) const override {
    return inner_->gemm(ta, tb, alpha, a, b, beta, c);
  }
  Status gemm(Trans ta, Trans tb, float alpha, MatrixView<const float> a, MatrixView<const float> b, float beta,
              MatrixView<float> c) const override {
    return inner_->gemm(ta, tb, alpha, a, b, beta, c);
  }
  Status syrk(Uplo uplo, Trans ta, double alpha, MatrixView<const double> a, double beta,
              MatrixView<double> c) const override {
    return inner_->syrk(uplo, ta, alpha, a, beta, c);
  }
  Status trsm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
              MatrixView<double> b) const override {
    return inner_->trsm(side, uplo, ta, alpha, a, b);
  }
  Status trmm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
              MatrixView<double> b) const override {
    return inner_->trmm(side, uplo, ta, alpha, a, b);
  }
  Status potrf(Uplo uplo, MatrixView<double> a) const override { return inner_->potrf(uplo, a); }
  Status qr(MatrixView<const double> a, MatrixView<double> q, MatrixView<double> r) const override {
    return inner_->qr(a, q, r);
  }
  Status syev(MatrixView<double> a, double* w, bool vectors) const override { return inner_->syev(a, w, vectors); }
  Status syev_top(MatrixView<double> a, int64_t count, double* w, MatrixView<double> z) const override {
    return inner_->syev_top(a, count, w, z);
  }
  Result<double> trcon(Uplo uplo, MatrixView<const double> a) const override { return inner_->trcon(uplo, a); }
  Status svd(MatrixView<const double> a, MatrixView<double> u, double* s, MatrixView<double> vt) const override {
    return inner_->svd(a, u, s, vt);
  }
  Status decode(CodesView codes, const float* luts, MatrixView<float> out) const override {
    return inner_->decode(codes, luts, out);
  }
  Status decode(CodesView codes, const double* luts, MatrixView<double> out) const override {
    return inner_->decode(codes, luts, out);
  }
  Status count_codes(CodesView codes, int64_t* counts) const override { return inner_->count_codes(codes, counts); }
                     Status codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                                        float* y) const override {
    return inner_->codes_times(codes, luts, qt, ldq, w, y);
  }
  Status codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y, int64_t w,
                       float* zt, int64_t ldz) const override {
    return inner_->codes_t_times(codes, luts, n0, len, y, w, zt, ldz);
  }
  Status codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p,
                         const uint8_t* packed) const override {
    return inner_->codes_times_i16(codes, qt, ldq, w, p, packed);
  }
  Result<std::vector<uint8_t>> pack_times_i16(const int16_t* qt, int64_t ldq, int64_t w, int64_t n32) const override {
    return inner_->pack_times_i16(qt, ldq, w, n32);
  }
  Status codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz,
                           const uint8_t* packed) const override {
    return inner_->codes_t_times_i16(codes, wpairs, w, zt, ldz, packed);
  }
  Result<std::vector<uint8_t>> pack_t_times_i16(const int16_t* wpairs, int64_t rows, int64_t w) const override {
    return inner_->pack_t_times_i16(wpairs, rows, w);
  }
  bool fast_int16() const override { return inner_->fast_int16(); }
  Status ew_binary(EwOp op, ScalarType t, const void* a, bool a_scalar, const void* b, bool b_scalar, void* out,
                 int64_t n) const override {
    return inner_->ew_binary(op, t, a, a_scalar, b, b_scalar, out, n);
  }
  Status ew_unary(EwOp op, ScalarType t, const void* a, void* out, int64_t n) const override {
    return inner_->ew_unary(op, t, a, out, n);
  }
  Status ew_cast(ScalarType from, ScalarType to, const void* a, void* out, int64_t n) const override {
    return inner_->ew_cast(from, to, a, out, n);
  }
  Status accumulate_f32(const float* x, double* acc, int64_t n) const override {
    return inner_->accumulate_f32(x, acc, n);
  }
  Status gram_panels_f32(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode, double* acc,
                         int64_t ldacc) const override {
    return inner_->gram_panels_f32(a, b, kk, rows, cols, mode, acc, ldacc);
  }
  Status gram_panels_f64(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                         double* acc, int64_t ldacc) const override {
    return inner_->gram_panels_f64(a, b, kk, rows, cols, mode, acc, ldacc);
  }
  Status gram_sparse_f64(const SparseRowLists& l, const double* y, const double* u, int64_t kk, int64_t rows,
                         int64_t cols, int mode, double* acc, int64_t ldacc) const override {
    return inner_->gram_sparse_f64(l, y, u, kk, rows, cols, mode, acc, ldacc);
  }
  Status gram_panels_u8s8(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows, int64_t cols,
                          int mode, double scale, double* acc, int64_t ldacc) const override {
    return inner_->gram_panels_u8s8(codes, limbs, quads, rows, cols, mode, scale, acc, ldacc);
  }
  Status pack_u8s8(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n, uint8_t* codes,
                 int8_t* limbs, int64_t* rsum) const override {
    return inner_->pack_u8s8(rows, tables, quads, n, codes, limbs, rsum);
  }
  bool fast_u8s8() const override { return inner_->fast_u8s8(); }
  Status ew_where(ScalarType t, const void* cond, bool c_scalar, const void* a, bool a_scalar, const void* b,
                bool b_scalar, void* out, int64_t n) const override {
    return inner_->ew_where(t, cond, c_scalar, a, a_scalar, b, b_scalar, out, n);
  }
  Status reduce_tile(ReduceKind kind, const ReduceTile& tile, void* state) const override {
    return inner_->reduce_tile(kind, tile, state);
  }
  Status code_planes(CodesView codes, uint64_t* planes, int64_t words, int64_t word) const override {
    return inner_->code_planes(codes, planes, words, word);
  }
  Status pair_code_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override {
    return inner_->pair_code_counts(planes, row0, rows, col0, cols, counts);
  }
  Status pair_king_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                          int64_t* counts) const override {
    return inner_->pair_king_counts(planes, row0, rows, col0, cols, counts);
  }
  Status row_pair_reduce(RowReduce op, double p, MatrixView<const double> a, MatrixView<const double> b,
                         MatrixView<double> out, int64_t* observed) const override {
    return inner_->row_pair_reduce(op, p, a, b, out, observed);
  }
  Status weighted_gram(MatrixView<const double> x, const double* w, const double* v, MatrixView<double> h,
                       double* g) const override {
    return inner_->weighted_gram(x, w, v, h, g);
  }
  Status weighted_gram_rows(MatrixView<const double> x, const double* w, MatrixView<double> h) const override {
    return inner_->weighted_gram_rows(x, w, h);
  }
  Status linear_predictor(MatrixView<const double> x, const double* c, bool logistic, double* out) const override {
    return inner_->linear_predictor(x, c, logistic, out);
  }
  Status logistic_gram(MatrixView<const double> x, const double* c, const double* y, MatrixView<double> h,
                       double* g) const override {
    return inner_->logistic_gram(x, c, y, h, g);
  }
  Status random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) const override {
    return inner_->random_fill(p, e0, step, n, out);
  }

 protected:
  const BackendPtr& inner() const { return inner_; }

 private:
  BackendPtr inner_;
};

}  // namespace strata::backend
