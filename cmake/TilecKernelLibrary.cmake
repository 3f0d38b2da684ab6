# tilec_add_kernel_library(NAME SOURCES a.mlir ...
#                          [DEFINES NAME=VALUE ...]
#                          [TARGETS sm_80,sm_90,sm_90a]
#                          [VARIANTS generic,vec] [GENERIC_TARGETS sm_80]
#                          [KERNEL_SUFFIX suffix] [CODEGEN simple|layouts])
#
# Compiles each tile-dialect source with `tilec --emit=cpp` at build time and
# builds the generated launchers into the static library NAME, which links
# tilec::runtime. For a.mlir, consumers include "a.h". TARGETS and VARIANTS
# default to tilec's (--target, --variants). GENERIC_TARGETS (tilec
# --generic-targets) compiles the generic variants of kernels that have a
# vec variant for those of TARGETS only, into a fatbin of their own
# (docs/target.md, "Fatbins"). CODEGEN picks tilec's code
# generator (`--codegen`, default simple; docs/codegen-layouts.md). Editing a
# kernel or rebuilding tilec regenerates its launchers.
#
# The compiler is the executable target tilec::tilec: this project's own
# tilec in its build, the installed one for a project that found the package
# (find_package(tilec), tilecConfig.cmake). It runs the CUDA toolkit's
# TILEC_PTXAS and TILEC_FATBINARY and links TILEC_LIBDEVICE, found by
# whichever of the two included this file.
function(tilec_add_kernel_library name)
  cmake_parse_arguments(ARG ""
                        "TARGETS;VARIANTS;GENERIC_TARGETS;KERNEL_SUFFIX;CODEGEN"
                        "SOURCES;DEFINES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilec_add_kernel_library(${name}): unknown arguments "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tilec_add_kernel_library(${name}): no SOURCES")
  endif()
  if(NOT TARGET tilec::tilec)
    message(FATAL_ERROR "tilec_add_kernel_library(${name}): there is no "
                        "tilec::tilec executable")
  endif()
  if(NOT TARGET tilec::runtime OR NOT TILEC_PTXAS OR NOT TILEC_FATBINARY)
    message(FATAL_ERROR "tilec_add_kernel_library(${name}) needs the CUDA "
                        "toolkit (set TILEC_CUDA_ROOT)")
  endif()

  set(options --emit=cpp --ptxas=${TILEC_PTXAS} --fatbinary=${TILEC_FATBINARY})
  if(TILEC_LIBDEVICE)
    list(APPEND options --libdevice=${TILEC_LIBDEVICE})
  endif()
  if(ARG_TARGETS)
    list(APPEND options --target=${ARG_TARGETS})
  endif()
  if(ARG_VARIANTS)
    list(APPEND options --variants=${ARG_VARIANTS})
  endif()
  if(ARG_GENERIC_TARGETS)
    list(APPEND options --generic-targets=${ARG_GENERIC_TARGETS})
  endif()
  if(ARG_KERNEL_SUFFIX)
    list(APPEND options --kernel-suffix=${ARG_KERNEL_SUFFIX})
  endif()
  if(ARG_CODEGEN)
    if(NOT ARG_CODEGEN MATCHES "^(simple|layouts)$")
      message(FATAL_ERROR "tilec_add_kernel_library(${name}): CODEGEN is "
                          "simple or layouts, not ${ARG_CODEGEN}")
    endif()
    list(APPEND options --codegen=${ARG_CODEGEN})
  endif()
  foreach(define ${ARG_DEFINES})
    list(APPEND options -D ${define})
  endforeach()

  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(generated)
  set(stems)
  foreach(source ${ARG_SOURCES})
    get_filename_component(source ${source} ABSOLUTE)
    get_filename_component(stem ${source} NAME_WE)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "tilec_add_kernel_library(${name}): two sources "
                          "named ${stem}; their launchers would collide")
    endif()
    list(APPEND stems ${stem})
    add_custom_command(
      OUTPUT ${outdir}/${stem}.cpp ${outdir}/${stem}.h
      COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
      COMMAND tilec::tilec ${source} -o ${outdir}/${stem} ${options}
      DEPENDS ${source} tilec::tilec
      COMMENT "tilec: compiling ${stem}.mlir into launchers"
      VERBATIM)
    list(APPEND generated ${outdir}/${stem}.cpp)
  endforeach()

  add_library(${name} STATIC ${generated})
  target_include_directories(${name} PUBLIC ${outdir})
  target_link_libraries(${name} PUBLIC tilec::runtime)
  # Position independent, so that it can go into a shared library too.
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
