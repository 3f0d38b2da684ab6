# Initial cache for the fuzz build (cmake -C fuzz/FuzzBuild.cmake): the
# project's own code compiled by clang-22 with libFuzzer's coverage
# instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer. The Debian
# libLLVM and libMLIR it links are not instrumented: coverage and sanitizer
# checks come from the project's code only.
set(CMAKE_C_COMPILER clang-22 CACHE STRING "")
set(CMAKE_CXX_COMPILER clang++-22 CACHE STRING "")
set(CMAKE_BUILD_TYPE Release CACHE STRING "")
set(TILEC_FUZZ ON CACHE BOOL "")
# -fsanitize=function checks indirect calls against a signature that only
# instrumented functions carry; calls into libMLIR would be false reports.
set(tilec_fuzz_flags
    "-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=function -fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only")
set(CMAKE_C_FLAGS "${tilec_fuzz_flags}" CACHE STRING "")
set(CMAKE_CXX_FLAGS "${tilec_fuzz_flags}" CACHE STRING "")
set(CMAKE_EXE_LINKER_FLAGS "-fsanitize=address,undefined" CACHE STRING "")
set(CMAKE_SHARED_LINKER_FLAGS "-fsanitize=address,undefined" CACHE STRING "")
set(CMAKE_C_COMPILER_LAUNCHER ccache CACHE STRING "")
set(CMAKE_CXX_COMPILER_LAUNCHER ccache CACHE STRING "")
