# tilec_add_kernel_library(NAME SOURCES a.mlir ...
#                          [DEFINES NAME=VALUE ...]
#                          [TARGETS sm_80,sm_90,sm_90a]
#                          [VARIANTS generic,vec] [GENERIC_TARGETS sm_80]
#                          [KERNEL_SUFFIX suffix] [CODEGEN simple|layouts]
#                          [BATCH key])
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
# tilec_target_kernel_sources(NAME SOURCES a.mlir ... [the same options]
#                             [BATCH key])
#
# Adds the launchers of more sources, compiled with their own options, to a
# library NAME made by tilec_add_kernel_library: one library can hold many
# instantiations of a kernel (other DEFINES and KERNEL_SUFFIX each), which
# the build then archives once instead of once per instantiation.
#
# BATCH (both functions): the sources of every call with the same key, in
# the library's own directory, are compiled by one tilec process (its
# command lines joined by `--then`), which pays tilec's start once for all
# of them (docs/performance.md, "Compile time"); editing one of the sources
# recompiles them all. The batches' commands are made at the end of the
# directory's CMakeLists.txt, once every call is known.
#
# The compiler is the executable target tilec::tilec: this project's own
# tilec in its build, the installed one for a project that found the package
# (find_package(tilec), tilecConfig.cmake). It runs the CUDA toolkit's
# TILEC_PTXAS and TILEC_FATBINARY and links TILEC_LIBDEVICE, found by
# whichever of the two included this file.
function(tilec_add_kernel_library name)
  # Every call's launchers go into this folder, so a stem names one source
  # per library (TILEC_KERNEL_STEMS).
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_library(${name} STATIC)
  target_include_directories(${name} PUBLIC ${outdir})
  target_link_libraries(${name} PUBLIC tilec::runtime)
  # Position independent, so that it can go into a shared library too.
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
                                           TILEC_KERNEL_DIR ${outdir}
                                           TILEC_KERNEL_STEMS "")
  tilec_target_kernel_sources(${name} ${ARGN})
endfunction()

function(tilec_target_kernel_sources name)
  if(NOT TARGET ${name})
    message(FATAL_ERROR "tilec_target_kernel_sources(${name}): no such "
                        "library (make it with tilec_add_kernel_library)")
  endif()
  get_target_property(outdir ${name} TILEC_KERNEL_DIR)
  if(NOT outdir)
    message(FATAL_ERROR "tilec_target_kernel_sources(${name}): ${name} was "
                        "not made by tilec_add_kernel_library")
  endif()
  cmake_parse_arguments(ARG ""
                        "TARGETS;VARIANTS;GENERIC_TARGETS;KERNEL_SUFFIX;CODEGEN;BATCH"
                        "SOURCES;DEFINES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilec kernel library ${name}: unknown arguments "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tilec kernel library ${name}: no SOURCES")
  endif()
  if(NOT TARGET tilec::tilec)
    message(FATAL_ERROR "tilec kernel library ${name}: there is no "
                        "tilec::tilec executable")
  endif()
  if(NOT TARGET tilec::runtime OR NOT TILEC_PTXAS OR NOT TILEC_FATBINARY)
    message(FATAL_ERROR "tilec kernel library ${name} needs the CUDA "
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
      message(FATAL_ERROR "tilec kernel library ${name}: CODEGEN is "
                          "simple or layouts, not ${ARG_CODEGEN}")
    endif()
    list(APPEND options --codegen=${ARG_CODEGEN})
  endif()
  foreach(define ${ARG_DEFINES})
    list(APPEND options -D ${define})
  endforeach()

  get_target_property(stems ${name} TILEC_KERNEL_STEMS)
  set(generated)
  foreach(source ${ARG_SOURCES})
    get_filename_component(source ${source} ABSOLUTE)
    get_filename_component(stem ${source} NAME_WE)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "tilec kernel library ${name}: two sources "
                          "named ${stem}; their launchers would collide")
    endif()
    list(APPEND stems ${stem})
    set(outputs ${outdir}/${stem}.cpp ${outdir}/${stem}.h)
    set(command ${source} -o ${outdir}/${stem} ${options})
    if(DEFINED ARG_BATCH)
      _tilec_add_to_kernel_batch(${name} "${ARG_BATCH}" "${source}"
                                 "${outputs}" "${command}")
    else()
      add_custom_command(
        OUTPUT ${outputs}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
        COMMAND tilec::tilec ${command}
        DEPENDS ${source} tilec::tilec
        COMMENT "tilec: compiling ${stem}.mlir into launchers"
        VERBATIM)
    endif()
    list(APPEND generated ${outdir}/${stem}.cpp)
  endforeach()

  set_target_properties(${name} PROPERTIES TILEC_KERNEL_STEMS "${stems}")
  target_sources(${name} PRIVATE ${generated})
endfunction()

# Records one source of batch `key` of library `name`: its tilec command
# line, outputs and the source they depend on, in properties of the
# library; the first batch of a library defers the making of the commands
# to the end of the directory.
function(_tilec_add_to_kernel_batch name key source outputs command)
  if(NOT key MATCHES "^[A-Za-z0-9_]+$")
    message(FATAL_ERROR "tilec kernel library ${name}: BATCH ${key}: a key "
                        "holds letters, digits and '_'")
  endif()
  get_target_property(dir ${name} SOURCE_DIR)
  if(NOT dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "tilec kernel library ${name}: BATCH needs the calls "
                        "in ${dir}, where the library is made (its "
                        "batches' commands are made there)")
  endif()
  get_target_property(batches ${name} TILEC_KERNEL_BATCHES)
  if(NOT batches)
    set(batches "")
    # A deferred call's arguments are read when it runs: EVAL puts the
    # library's name in now.
    cmake_language(EVAL CODE
      "cmake_language(DEFER CALL _tilec_make_kernel_batches [[${name}]])")
  endif()
  set(prefix TILEC_KERNEL_BATCH_${key})
  if(NOT key IN_LIST batches)
    list(APPEND batches ${key})
    set_target_properties(${name} PROPERTIES TILEC_KERNEL_BATCHES
                                             "${batches}")
    set_target_properties(${name} PROPERTIES ${prefix}_COMMAND "${command}")
  else()
    get_target_property(joined ${name} ${prefix}_COMMAND)
    list(APPEND joined --then ${command})
    set_target_properties(${name} PROPERTIES ${prefix}_COMMAND "${joined}")
  endif()
  set_property(TARGET ${name} APPEND PROPERTY ${prefix}_OUTPUTS ${outputs})
  set_property(TARGET ${name} APPEND PROPERTY ${prefix}_SOURCES ${source})
endfunction()

# One tilec command per batch of library `name` (deferred to the end of its
# directory by _tilec_add_to_kernel_batch).
function(_tilec_make_kernel_batches name)
  get_target_property(outdir ${name} TILEC_KERNEL_DIR)
  get_target_property(batches ${name} TILEC_KERNEL_BATCHES)
  foreach(key ${batches})
    set(prefix TILEC_KERNEL_BATCH_${key})
    get_target_property(command ${name} ${prefix}_COMMAND)
    get_target_property(outputs ${name} ${prefix}_OUTPUTS)
    get_target_property(sources ${name} ${prefix}_SOURCES)
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
      COMMAND tilec::tilec ${command}
      DEPENDS ${sources} tilec::tilec
      COMMENT "tilec: compiling the batch ${key} into launchers"
      VERBATIM)
  endforeach()
endfunction()
