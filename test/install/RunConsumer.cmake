# Installs the tilec build BUILD into WORK/prefix, then configures and builds
# the consumer project SOURCE against that prefix in WORK/build, as a user
# would:
#   cmake -DBUILD=<tilec build> -DSOURCE=<consumer> -DWORK=<dir>
#         -DGENERATOR=Ninja -DCXX=<compiler> -P RunConsumer.cmake
# Fails when a step fails, or when the consumer's kernels are not compiled by
# the installed tilec.
foreach(var BUILD SOURCE WORK GENERATOR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunConsumer.cmake: -D${var}=... is missing")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}): ${ARGN}")
  endif()
endfunction()

set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
run("install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
run("configuring the consumer"
    ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${prefix})

# The build-tree tilec would do as well here; the installed one must be used.
file(GLOB_RECURSE build_files ${WORK}/build/*.ninja ${WORK}/build/Makefile
     ${WORK}/build/*.make)
set(uses_installed FALSE)
foreach(file ${build_files})
  file(STRINGS ${file} lines REGEX "${prefix}/bin/tilec")
  if(lines)
    set(uses_installed TRUE)
  endif()
endforeach()
if(NOT uses_installed)
  message(FATAL_ERROR "the consumer's build does not run ${prefix}/bin/tilec")
endif()

run("building the consumer" ${CMAKE_COMMAND} --build ${WORK}/build)
