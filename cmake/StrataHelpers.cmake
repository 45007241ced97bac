# Compile flags shared by every strata target.
add_library(strata_flags INTERFACE)
target_compile_options(strata_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
if(STRATA_WERROR)
  target_compile_options(strata_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
# aarch64 has fused multiply-add in its base instruction set and GCC contracts a*b + c into it by
# default; strata computes IEEE operations in program order (the bits x86-64 gives, the CUDA
# module's -fmad=false), so no contraction there. x86-64 builds are unchanged.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  target_compile_options(strata_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
endif()
if(STRATA_NATIVE)
  target_compile_options(strata_flags INTERFACE -march=native)
endif()
set(_san "")
if(STRATA_SANITIZE_ADDRESS)
  list(APPEND _san address)
endif()
if(STRATA_SANITIZE_UNDEFINED)
  list(APPEND _san undefined)
endif()
if(STRATA_SANITIZE_THREAD)
  list(APPEND _san thread)
endif()
if(_san)
  list(JOIN _san "," _san_list)
  target_compile_options(strata_flags INTERFACE -fsanitize=${_san_list} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(strata_flags INTERFACE -fsanitize=${_san_list})
endif()

# strata_add_test_binary(NAME SOURCES... LIBS ...): one gtest binary, tests discovered by CTest.
function(strata_add_test_binary name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT ARG_SOURCES)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} strata_testing GTest::gtest GTest::gmock GTest::gtest_main strata_flags)
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${ARG_LABELS}"
    DISCOVERY_TIMEOUT 60)
endfunction()
