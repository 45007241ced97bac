# Toolchain file: strata cross-compiled for aarch64 Linux (Graviton, Ampere, Apple Silicon under
# Linux) with Debian's cross compiler (g++-aarch64-linux-gnu), tests run under qemu-user.
#
#   cmake -G Ninja -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DSTRATA_AARCH64_SYSROOT=<dir> -DSTRATA_ENABLE_CUDA=OFF -DSTRATA_ENABLE_MPI=OFF
#
# The arm64 libraries strata links (OpenBLAS, LAPACKE, blosc, zstd, lz4, zlib, GoogleTest, …)
# come from one of two places:
#  - STRATA_AARCH64_SYSROOT (or the environment variable of that name): a directory holding the
#    arm64 Debian packages unpacked with `dpkg -x` (what scripts/aarch64.sh makes). Nothing of the
#    host's package state changes.
#  - otherwise the host's multiarch directories (/usr/lib/aarch64-linux-gnu, `apt-get install
#    libopenblas-dev:arm64 …`).
# The C library and libstdc++ are the cross toolchain's (/usr/aarch64-linux-gnu) in both cases.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT STRATA_AARCH64_SYSROOT AND DEFINED ENV{STRATA_AARCH64_SYSROOT})
  set(STRATA_AARCH64_SYSROOT "$ENV{STRATA_AARCH64_SYSROOT}")
endif()
# try_compile projects read this file again: hand them the sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES STRATA_AARCH64_SYSROOT)

set(_strata_cross_libc /usr/aarch64-linux-gnu)
if(STRATA_AARCH64_SYSROOT)
  set(_strata_target_root "${STRATA_AARCH64_SYSROOT}")
  set(CMAKE_FIND_ROOT_PATH "${STRATA_AARCH64_SYSROOT}" ${_strata_cross_libc})
else()
  set(_strata_target_root "")
  set(CMAKE_FIND_ROOT_PATH ${_strata_cross_libc} /)
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The target's library directories: for the linker's search of indirect dependencies
# (libopenblas → libgfortran) and for the loader under qemu.
set(_strata_libdirs
  "${_strata_target_root}/usr/lib/aarch64-linux-gnu"
  "${_strata_target_root}/lib/aarch64-linux-gnu"
  "${_strata_target_root}/usr/lib/aarch64-linux-gnu/openblas-pthread")
list(JOIN _strata_libdirs ":" _strata_libpath)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_strata_libpath}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_strata_libpath}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_strata_libpath}")

# The cross compiler searches /usr/aarch64-linux-gnu/include and the host's /usr/include, not the
# target's multiarch include directory (cblas.h, zconf.h, curl/) nor the sysroot's.
set(_strata_includes "${_strata_target_root}/usr/include/aarch64-linux-gnu")
if(_strata_target_root)
  list(APPEND _strata_includes "${_strata_target_root}/usr/include")
endif()
set(CMAKE_C_STANDARD_INCLUDE_DIRECTORIES ${_strata_includes})
set(CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES ${_strata_includes})

# pkg-config (blosc, zstd, lz4, htslib) reads the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR}
    "${_strata_target_root}/usr/lib/aarch64-linux-gnu/pkgconfig:${_strata_target_root}/usr/share/pkgconfig")
if(_strata_target_root)
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${_strata_target_root}")
endif()

# Test binaries (gtest discovery, ctest) run under qemu-user: -L for the cross C library, the
# target's library directories for the loader.
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(STRATA_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
  if(STRATA_QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR
        "${STRATA_QEMU_AARCH64};-L;${_strata_cross_libc};-E;LD_LIBRARY_PATH=${_strata_libpath}")
  endif()
endif()
