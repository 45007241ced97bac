# All strata build switches. Feature macros go to the generated config.hpp,
# never to PUBLIC compile definitions.
include(CMakeDependentOption)

option(STRATA_BUILD_CLI "Build the strata command-line tool" ON)
option(STRATA_BUILD_TESTS "Build unit and integration tests" ${PROJECT_IS_TOP_LEVEL})
option(STRATA_BUILD_BENCHMARKS "Build Google Benchmark micro-benchmarks and bench/ drivers" OFF)
option(STRATA_BUILD_FUZZERS "Build libFuzzer targets (needs clang)" OFF)
# tests/backend on its own (strata_conformance_tests, linking strata_backend only), beside the
# integration binary that holds the same tests: what a cross build runs first under an emulator
# (scripts/aarch64.sh) without building the layers above the backend.
option(STRATA_BUILD_CONFORMANCE_BINARY "Build the backend conformance tests as their own binary" OFF)
# AUTO builds the CUDA backend (libstrata_cuda.so) whenever a CUDA toolkit is found; ON requires
# one. A cache entry left BOOL by the former option() is taken over as AUTO.
get_property(_strata_cuda_type CACHE STRATA_ENABLE_CUDA PROPERTY TYPE)
if(_strata_cuda_type STREQUAL "BOOL")
  set(STRATA_ENABLE_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO (when the toolkit is found), ON or OFF" FORCE)
endif()
set(STRATA_ENABLE_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO (when the toolkit is found), ON or OFF")
set_property(CACHE STRATA_ENABLE_CUDA PROPERTY STRINGS AUTO ON OFF)
option(STRATA_ENABLE_MPI "Build the MPI communicator (strata_dist; used when MPI is found)" ON)
option(STRATA_STATIC_BLAS_CLI "Link OpenBLAS and LAPACKE statically into the CLI when their archives exist" ON)
option(STRATA_ENABLE_PYTHON "Build the Python bindings" OFF)
option(STRATA_ENABLE_HTSLIB "Build VCF/BCF conversion through htslib" ON)
option(STRATA_ENABLE_CURL "Read and write Zarr over HTTP(S), S3 and GCS through libcurl (when found)" ON)
option(STRATA_NATIVE "Compile for the build machine's CPU (-march=native)" OFF)
option(STRATA_WERROR "Treat warnings as errors" OFF)
option(STRATA_SANITIZE_ADDRESS "Build with AddressSanitizer" OFF)
option(STRATA_SANITIZE_UNDEFINED "Build with UndefinedBehaviorSanitizer" OFF)
option(STRATA_SANITIZE_THREAD "Build with ThreadSanitizer" OFF)

if(STRATA_SANITIZE_THREAD AND STRATA_SANITIZE_ADDRESS)
  message(FATAL_ERROR "STRATA_SANITIZE_THREAD and STRATA_SANITIZE_ADDRESS are exclusive")
endif()
