# `cmake --install BUILD --prefix P`: public headers (with the generated config.hpp), the
# static libraries, the CLI, and a CMake package: find_package(strata CONFIG) → strata::strata.
#
# The libraries stay one static archive per layer, as built: their private dependencies (blosc,
# zstd, lz4, zlib, htslib, LAPACKE/LAPACK/BLAS, Threads) appear in the exported link interface
# as imported-target names, which strataConfig.cmake recreates the way this build found them.
# A combined archive would need the same dependencies, so it would save consumers nothing.
include(CMakePackageConfigHelpers)

set(STRATA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/strata)
set(_strata_areas strata_base strata_dist strata_backend strata_io strata_array strata_exec strata_linalg strata_genomics)

install(TARGETS strata_core ${_strata_areas}
        EXPORT strataTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/strata DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/strata/core/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/strata/core)
if(TARGET strata_cli)
  install(TARGETS strata_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# The CUDA module goes to the lib directory, where the library looks for it (cuda_loader.cpp).
if(TARGET strata_cuda)
  install(TARGETS strata_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# Installed headers are the public API: no third-party headers (consumers get no JSON library).
file(GLOB_RECURSE _strata_public_headers ${PROJECT_SOURCE_DIR}/include/strata/*.hpp)
foreach(h ${_strata_public_headers})
  file(STRINGS ${h} _third_party REGEX "#include <nlohmann/")
  if(_third_party)
    message(WARNING "${h} includes nlohmann_json: installed consumers cannot compile it")
  endif()
endforeach()

install(EXPORT strataTargets NAMESPACE strata:: FILE strataTargets.cmake
        DESTINATION ${STRATA_INSTALL_CMAKEDIR})
set(STRATA_BLA_VENDOR ${BLA_VENDOR})
get_filename_component(STRATA_LAPACKE_DIR ${LAPACKE_LIBRARY} DIRECTORY)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/strataConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/strataConfig.cmake
                              INSTALL_DESTINATION ${STRATA_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/strataConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/strataConfig.cmake ${PROJECT_BINARY_DIR}/strataConfigVersion.cmake
        DESTINATION ${STRATA_INSTALL_CMAKEDIR})
