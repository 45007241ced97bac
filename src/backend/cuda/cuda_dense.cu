// Dense operations of the CUDA backend on cuBLAS and cuSOLVER. Views are host memory in any
// layout: each call packs its operands column-major (ld = rows), copies them to the device,
// runs the library call on the lane's stream and copies the result back into the view (the
// whole packed matrix, so triangles the call leaves alone come back as they were). cuBLAS runs
// in its default math mode (no TF32) and without atomics, so results are deterministic.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "backend/checks.hpp"
#include "backend/cuda/cuda_backend.cuh"

namespace strata::backend::cuda {
namespace {

int i32(int64_t x) { return static_cast<int>(std::max<int64_t>(1, x)); }  // leading dimensions ≥ 1
cublasOperation_t op_of(Trans t) { return t == Trans::Yes ? CUBLAS_OP_T : CUBLAS_OP_N; }
cublasFillMode_t fill_of(Uplo u) { return u == Uplo::Upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
cublasSideMode_t side_of(Side s) { return s == Side::Left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }

// cuSOLVER's info word: < 0 a rejected argument, > 0 the factorization's own failure.
Status solver_info(const char* op, cudaStream_t s, const DeviceBuffer& dinfo, const char* failure) {
  std::vector<int> info(1);
  STRATA_RETURN_NOT_OK(download(s, dinfo, info));
  if (info[0] < 0) return Status::Invalid(op, ": argument ", -info[0], " rejected by cuSOLVER");
  if (info[0] > 0) return Status::InvalidData(op, ": ", failure, " (info ", info[0], ")");
  return Status::OK();
}

template <class T>
Status gemm_impl(Lane& lane, Trans ta, Trans tb, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                 MatrixView<T> c) {
  int64_t m = 0, n = 0, k = 0;
  STRATA_RETURN_NOT_OK(detail::check_gemm(ta, tb, a, b, c, &m, &n, &k));
  if (m == 0 || n == 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  std::vector<T> hc = beta == T(0) ? std::vector<T>(static_cast<size_t>(m * n)) : pack<T>(c);  // β = 0: C not read
  DeviceBuffer da, db, dc;
  STRATA_RETURN_NOT_OK(upload(s, da, pack(a)));
  STRATA_RETURN_NOT_OK(upload(s, db, pack(b)));
  STRATA_RETURN_NOT_OK(upload(s, dc, hc));
  if constexpr (std::is_same_v<T, double>) {
    STRATA_CUBLAS_RETURN(cublasDgemm(lane.blas, op_of(ta), op_of(tb), i32(m), i32(n), i32(k), &alpha, da.as<T>(),
                                     i32(a.rows), db.as<T>(), i32(b.rows), &beta, dc.as<T>(), i32(m)));
  } else {
    STRATA_CUBLAS_RETURN(cublasSgemm(lane.blas, op_of(ta), op_of(tb), i32(m), i32(n), i32(k), &alpha, da.as<T>(),
                                     i32(a.rows), db.as<T>(), i32(b.rows), &beta, dc.as<T>(), i32(m)));
  }
  STRATA_RETURN_NOT_OK(download(s, dc, hc));
  unpack(hc, c);
  return Status::OK();
}

// trsm and trmm: op(a) against b from the left or right, a triangular (n × n).
Status triangle_call(Lane& lane, bool solve, Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
                     MatrixView<double> b) {
  STRATA_RETURN_NOT_OK(detail::check_triangle(solve ? "trsm" : "trmm", side, a, b));
  const int64_t n = a.rows;
  if (b.rows == 0 || b.cols == 0) return Status::OK();
  const cudaStream_t s = lane.stream[0];
  std::vector<double> hb = pack<double>(b);
  DeviceBuffer da, db, dout;
  STRATA_RETURN_NOT_OK(upload(s, da, pack(a)));
  STRATA_RETURN_NOT_OK(upload(s, db, hb));
  if (solve) {
    STRATA_CUBLAS_RETURN(cublasDtrsm(lane.blas, side_of(side), fill_of(uplo), op_of(ta), CUBLAS_DIAG_NON_UNIT,
                                     i32(b.rows), i32(b.cols), &alpha, da.as<double>(), i32(n), db.as<double>(),
                                     i32(b.rows)));
    STRATA_RETURN_NOT_OK(download(s, db, hb));
  } else {  // cuBLAS's trmm writes out of place
    STRATA_RETURN_NOT_OK(dout.allocate(sizeof(double) * hb.size(), s));
    STRATA_CUBLAS_RETURN(cublasDtrmm(lane.blas, side_of(side), fill_of(uplo), op_of(ta), CUBLAS_DIAG_NON_UNIT,
                                     i32(b.rows), i32(b.cols), &alpha, da.as<double>(), i32(n), db.as<double>(),
                                     i32(b.rows), dout.as<double>(), i32(b.rows)));
    STRATA_RETURN_NOT_OK(download(s, dout, hb));
  }
  unpack(hb, b);
  return Status::OK();
}

// Symmetric eigendecomposition of the packed n × n `h` (lower triangle read) on the device:
// eigenvalues ascending in w, eigenvectors in h when `vectors`.
Status syevd(Lane& lane, int64_t n, std::vector<double>& h, std::vector<double>& w, bool vectors) {
  const cudaStream_t s = lane.stream[0];
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  DeviceBuffer da, dw, dwork, dinfo;
  STRATA_RETURN_NOT_OK(upload(s, da, h));
  STRATA_RETURN_NOT_OK(dw.allocate(sizeof(double) * w.size(), s));
  STRATA_RETURN_NOT_OK(dinfo.allocate(sizeof(int), s));
  int lwork = 0;
  STRATA_CUSOLVER_RETURN(cusolverDnDsyevd_bufferSize(lane.solver, jobz, CUBLAS_FILL_MODE_LOWER, i32(n),
                                                     da.as<double>(), i32(n), dw.as<double>(), &lwork));
  STRATA_RETURN_NOT_OK(dwork.allocate(sizeof(double) * std::max(1, lwork), s));
  STRATA_CUSOLVER_RETURN(cusolverDnDsyevd(lane.solver, jobz, CUBLAS_FILL_MODE_LOWER, i32(n), da.as<double>(), i32(n),
                                          dw.as<double>(), dwork.as<double>(), lwork, dinfo.as<int>()));
  STRATA_RETURN_NOT_OK(solver_info("syev", s, dinfo, "eigensolver did not converge"));
  STRATA_RETURN_NOT_OK(download(s, dw, w));
  if (vectors) STRATA_RETURN_NOT_OK(download(s, da, h));
  return Status::OK();
}

}  // namespace

// A gemm's multiply-adds: C's entries times the inner dimension.
template <class T>
double gemm_size(Trans ta, const MatrixView<const T>& a, const MatrixView<T>& c) {
  return double(c.rows) * double(c.cols) * double(ta == Trans::Yes ? a.rows : a.cols);
}

#define STRATA_CUDA_LANE(guard)                           \
  STRATA_ASSIGN_OR_RETURN(Lane * guard##_lane, lane());   \
  LaneGuard guard(pool_, guard##_lane)

Status CudaBackend::gemm(Trans ta, Trans tb, double alpha, MatrixView<const double> a, MatrixView<const double> b,
                         double beta, MatrixView<double> c) const {
  if (host_product(gemm_size(ta, a, c))) return inner()->gemm(ta, tb, alpha, a, b, beta, c);
  STRATA_CUDA_LANE(l);
  return gemm_impl(*l, ta, tb, alpha, a, b, beta, c);
}
Status CudaBackend::gemm(Trans ta, Trans tb, float alpha, MatrixView<const float> a, MatrixView<const float> b,
                         float beta, MatrixView<float> c) const {
  if (host_product(gemm_size(ta, a, c))) return inner()->gemm(ta, tb, alpha, a, b, beta, c);
  STRATA_CUDA_LANE(l);
  return gemm_impl(*l, ta, tb, alpha, a, b, beta, c);
}

Status CudaBackend::syrk(Uplo uplo, Trans ta, double alpha, MatrixView<const double> a, double beta,
                         MatrixView<double> c) const {
  if (host_product(double(a.rows) * double(a.cols) * double(c.rows))) return inner()->syrk(uplo, ta, alpha, a, beta, c);
  int64_t n = 0, k = 0;
  STRATA_RETURN_NOT_OK(detail::check_syrk(ta, a, c, &n, &k));
  if (n == 0) return Status::OK();
  STRATA_CUDA_LANE(l);
  const cudaStream_t s = l->stream[0];
  std::vector<double> hc = pack<double>(c);
  DeviceBuffer da, dc;
  STRATA_RETURN_NOT_OK(upload(s, da, pack(a)));
  STRATA_RETURN_NOT_OK(upload(s, dc, hc));
  STRATA_CUBLAS_RETURN(cublasDsyrk(l->blas, fill_of(uplo), op_of(ta), i32(n), i32(k), &alpha, da.as<double>(),
                                   i32(a.rows), &beta, dc.as<double>(), i32(n)));
  STRATA_RETURN_NOT_OK(download(s, dc, hc));
  unpack(hc, c);
  return Status::OK();
}

Status CudaBackend::trsm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
                         MatrixView<double> b) const {
  if (host_product(double(b.rows) * double(b.cols) * double(a.rows))) return inner()->trsm(side, uplo, ta, alpha, a, b);
  STRATA_CUDA_LANE(l);
  return triangle_call(*l, true, side, uplo, ta, alpha, a, b);
}
Status CudaBackend::trmm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
                         MatrixView<double> b) const {
  if (host_product(double(b.rows) * double(b.cols) * double(a.rows))) return inner()->trmm(side, uplo, ta, alpha, a, b);
  STRATA_CUDA_LANE(l);
  return triangle_call(*l, false, side, uplo, ta, alpha, a, b);
}

Status CudaBackend::potrf(Uplo uplo, MatrixView<double> a) const {
  if (host_factor(a.rows)) return inner()->potrf(uplo, a);
  STRATA_RETURN_NOT_OK(detail::check_square("potrf", a));
  const int64_t n = a.rows;
  if (n == 0) return Status::OK();
  STRATA_CUDA_LANE(l);
  const cudaStream_t s = l->stream[0];
  std::vector<double> h = pack<double>(a);
  DeviceBuffer da, dwork, dinfo;
  STRATA_RETURN_NOT_OK(upload(s, da, h));
  STRATA_RETURN_NOT_OK(dinfo.allocate(sizeof(int), s));
  int lwork = 0;
  STRATA_CUSOLVER_RETURN(cusolverDnDpotrf_bufferSize(l->solver, fill_of(uplo), i32(n), da.as<double>(), i32(n), &lwork));
  STRATA_RETURN_NOT_OK(dwork.allocate(sizeof(double) * std::max(1, lwork), s));
  STRATA_CUSOLVER_RETURN(
      cusolverDnDpotrf(l->solver, fill_of(uplo), i32(n), da.as<double>(), i32(n), dwork.as<double>(), lwork, dinfo.as<int>()));
  STRATA_RETURN_NOT_OK(solver_info("potrf", s, dinfo, "matrix is not positive definite"));
  STRATA_RETURN_NOT_OK(download(s, da, h));
  unpack(h, a);
  return Status::OK();
}

Status CudaBackend::qr(MatrixView<const double> a, MatrixView<double> q, MatrixView<double> r) const {
  if (host_factor(a.cols)) return inner()->qr(a, q, r);
  STRATA_RETURN_NOT_OK(detail::check_qr(a, q, r));
  const int64_t m = a.rows, n = a.cols;
  if (n == 0) return Status::OK();
  STRATA_CUDA_LANE(l);
  const cudaStream_t s = l->stream[0];
  std::vector<double> h = pack(a);  // read before q is written: q may alias a
  DeviceBuffer da, dtau, dwork, dinfo;
  STRATA_RETURN_NOT_OK(upload(s, da, h));
  STRATA_RETURN_NOT_OK(dtau.allocate(sizeof(double) * static_cast<size_t>(n), s));
  STRATA_RETURN_NOT_OK(dinfo.allocate(sizeof(int), s));
  int lw_geqrf = 0, lw_orgqr = 0;
  STRATA_CUSOLVER_RETURN(cusolverDnDgeqrf_bufferSize(l->solver, i32(m), i32(n), da.as<double>(), i32(m), &lw_geqrf));
  STRATA_CUSOLVER_RETURN(cusolverDnDorgqr_bufferSize(l->solver, i32(m), i32(n), i32(n), da.as<double>(), i32(m),
                                                     dtau.as<double>(), &lw_orgqr));
  const int lwork = std::max({1, lw_geqrf, lw_orgqr});
  STRATA_RETURN_NOT_OK(dwork.allocate(sizeof(double) * lwork, s));
  STRATA_CUSOLVER_RETURN(cusolverDnDgeqrf(l->solver, i32(m), i32(n), da.as<double>(), i32(m), dtau.as<double>(),
                                          dwork.as<double>(), lwork, dinfo.as<int>()));
  STRATA_RETURN_NOT_OK(solver_info("qr", s, dinfo, "geqrf failed"));
  STRATA_RETURN_NOT_OK(download(s, da, h));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) r(i, j) = i <= j ? h[static_cast<size_t>(i + j * m)] : 0.0;
  STRATA_CUSOLVER_RETURN(cusolverDnDorgqr(l->solver, i32(m), i32(n), i32(n), da.as<double>(), i32(m), dtau.as<double>(),
                                          dwork.as<double>(), lwork, dinfo.as<int>()));
  STRATA_RETURN_NOT_OK(solver_info("qr", s, dinfo, "orgqr failed"));
  STRATA_RETURN_NOT_OK(download(s, da, h));
  unpack(h, q);
  return Status::OK();
}

Status CudaBackend::syev(MatrixView<double> a, double* w, bool vectors) const {
  if (host_factor(a.rows)) return inner()->syev(a, w, vectors);
  STRATA_RETURN_NOT_OK(detail::check_square("syev", a));
  const int64_t n = a.rows;
  if (n == 0) return Status::OK();
  STRATA_CUDA_LANE(l);
  std::vector<double> h = pack<double>(a), wv(static_cast<size_t>(n));
  STRATA_RETURN_NOT_OK(syevd(*l, n, h, wv, vectors));
  std::copy(wv.begin(), wv.end(), w);
  if (vectors) unpack(h, a);
  return Status::OK();
}

Status CudaBackend::syev_top(MatrixView<double> a, int64_t count, double* w, MatrixView<double> z) const {
  if (host_factor(a.rows)) return inner()->syev_top(a, count, w, z);
  STRATA_RETURN_NOT_OK(detail::check_syev_top(a, count, z));
  const int64_t n = a.rows;
  if (count == 0) return Status::OK();
  // All pairs (syevd), the largest `count` kept: the small n × n steps PCA takes.
  STRATA_CUDA_LANE(l);
  std::vector<double> h = pack<double>(a), wv(static_cast<size_t>(n));
  STRATA_RETURN_NOT_OK(syevd(*l, n, h, wv, true));
  std::copy(wv.end() - count, wv.end(), w);
  for (int64_t j = 0; j < count; ++j)
    for (int64_t i = 0; i < n; ++i) z(i, j) = h[static_cast<size_t>(i + (n - count + j) * n)];
  return Status::OK();
}

}  // namespace strata::backend::cuda
