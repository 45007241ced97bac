# Third-party dependencies, all from Debian packages (scripts/install-deps.sh).
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(BLOSC REQUIRED IMPORTED_TARGET blosc)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
find_package(ZLIB REQUIRED)

set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
find_path(LAPACKE_INCLUDE_DIR lapacke.h PATH_SUFFIXES openblas)
find_library(LAPACKE_LIBRARY lapacke REQUIRED)
# A target rather than a path, so the installed package can name it (strataConfig.cmake.in).
if(LAPACKE_LIBRARY AND NOT TARGET LAPACKE::LAPACKE)
  add_library(LAPACKE::LAPACKE UNKNOWN IMPORTED)
  set_target_properties(LAPACKE::LAPACKE PROPERTIES IMPORTED_LOCATION ${LAPACKE_LIBRARY})
endif()
# Programs that set the target property STRATA_STATIC_BLAS (the CLI) link OpenBLAS and LAPACKE
# statically when their archives exist: the shared libopenblas carries ~16,000 symbol
# relocations that the loader resolves at every start (~3.5 ms of each `strata` run).
# Libraries, tests and the Python module keep the shared ones.
find_library(STRATA_OPENBLAS_STATIC NAMES libopenblas.a)
find_library(STRATA_LAPACKE_STATIC NAMES liblapacke.a)
set(_strata_static_blas "")
if(STRATA_STATIC_BLAS_CLI AND STRATA_OPENBLAS_STATIC AND STRATA_LAPACKE_STATIC)
  # OpenBLAS's LAPACK is Fortran (libgfortran); its threads need Threads.
  set(_strata_static_blas ${STRATA_LAPACKE_STATIC} ${STRATA_OPENBLAS_STATIC} gfortran Threads::Threads m)
endif()
set(_static "$<BOOL:$<TARGET_PROPERTY:STRATA_STATIC_BLAS>>")
# BLAS/LAPACK/LAPACKE for whoever links strata (evaluated on the linking target).
set(STRATA_BLAS_LINK "$<$<NOT:${_static}>:LAPACKE::LAPACKE;LAPACK::LAPACK;BLAS::BLAS>"
                     "$<${_static}:${_strata_static_blas}>")
set(STRATA_HAVE_STATIC_BLAS 0)
if(_strata_static_blas)
  set(STRATA_HAVE_STATIC_BLAS 1)
endif()

if(STRATA_BUILD_CLI)
  find_package(CLI11 CONFIG REQUIRED)
endif()

set(STRATA_HAVE_HTSLIB 0)
if(STRATA_ENABLE_HTSLIB)
  pkg_check_modules(HTSLIB IMPORTED_TARGET htslib)
  if(HTSLIB_FOUND)
    set(STRATA_HAVE_HTSLIB 1)
  else()
    message(WARNING "htslib not found: VCF/BCF conversion disabled")
  endif()
endif()

# libcurl for http(s)://, s3:// and gs:// stores; without it those schemes are Unsupported.
set(STRATA_HAVE_CURL 0)
if(STRATA_ENABLE_CURL)
  find_package(CURL)
  if(CURL_FOUND)
    set(STRATA_HAVE_CURL 1)
  else()
    message(WARNING "libcurl not found: Zarr over http(s)://, s3:// and gs:// disabled")
  endif()
endif()

if(STRATA_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(STRATA_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

set(STRATA_HAVE_CUDA 0)
set(STRATA_HAVE_MPI 0)
# MPI (Debian's OpenMPI): `mpirun -n P strata …`. Without it the CLI is single-process.
if(STRATA_ENABLE_MPI)
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    set(STRATA_HAVE_MPI 1)
  else()
    message(STATUS "MPI not found: strata builds single-process (scripts/install-deps.sh installs OpenMPI)")
  endif()
endif()
