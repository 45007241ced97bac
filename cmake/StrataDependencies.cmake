# Third-party dependencies, all from Debian packages (scripts/install-deps.sh).
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(BLOSC REQUIRED IMPORTED_TARGET blosc)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
find_package(ZLIB REQUIRED)
# libdeflate inflates BGEN's zlib blocks ~2-3x faster than zlib; optional (zlib otherwise).
pkg_check_modules(LIBDEFLATE IMPORTED_TARGET libdeflate)
set(STRATA_HAVE_LIBDEFLATE 0)
if(LIBDEFLATE_FOUND)
  set(STRATA_HAVE_LIBDEFLATE 1)
endif()

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

# cairo's header for PNG plots (libcairo itself is opened at the first PNG: plot_png.cpp).
# Without it strata writes SVG plots only.
pkg_check_modules(CAIRO cairo)

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

# The CUDA backend: a separate module (libstrata_cuda.so, src/backend/cuda) that the library opens
# when a CUDA device is asked for, so nothing else links or loads the CUDA runtime.
set(STRATA_HAVE_CUDA 0)
string(TOUPPER "${STRATA_ENABLE_CUDA}" _strata_cuda)
if(NOT _strata_cuda MATCHES "^(AUTO|ON|OFF|TRUE|FALSE|YES|NO|1|0)$")
  message(FATAL_ERROR "STRATA_ENABLE_CUDA must be AUTO, ON or OFF, got '${STRATA_ENABLE_CUDA}'")
endif()
if(NOT _strata_cuda MATCHES "^(OFF|FALSE|NO|0)$")
  include(CheckLanguage)
  # nvcc in the standard prefix even when it is not on PATH (check_language looks on PATH).
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # sm_80 (A100) and sm_90 (H100) unless told otherwise; scripts/test.sh (CI) builds 90 alone.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures of the CUDA backend")
    endif()
    if(STRATA_CCACHE AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
      set(CMAKE_CUDA_COMPILER_LAUNCHER ${STRATA_CCACHE})
    endif()
    enable_language(CUDA)
    # CMake 3.25 predates nvcc's C++20 flag; strata's headers (C++20) reach the .cu files
    # through targets that require cxx_std_20, which CMake maps to the CUDA dialect.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND TARGET CUDA::cublas AND TARGET CUDA::cusolver)
    set(STRATA_HAVE_CUDA 1)
    message(STATUS "CUDA backend: nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(_strata_cuda STREQUAL "AUTO")
    message(STATUS "CUDA toolkit (nvcc, cuBLAS, cuSOLVER) not found: the CUDA backend is not built")
  else()
    message(FATAL_ERROR "STRATA_ENABLE_CUDA=ON but no CUDA toolkit (nvcc, cuBLAS, cuSOLVER) was found")
  endif()
endif()
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
