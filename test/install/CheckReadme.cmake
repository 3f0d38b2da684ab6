# Checks that README.md's "Install and link from CMake" example is the
# consumer project that test/install builds: the lines of its ```cmake block,
# comments and blank lines aside, appear in that order, one after another, in
# consumer/CMakeLists.txt.
#   cmake -DREADME=README.md -DCONSUMER=consumer/CMakeLists.txt -P CheckReadme.cmake

# The lines of `text` that are neither blank nor comments, joined by '|'.
function(code_lines text out)
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(kept "")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line AND NOT line MATCHES "^#")
      string(APPEND kept "${line}|")
    endif()
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()

file(READ ${README} readme)
string(FIND "${readme}" "## Install and link from CMake" section)
if(section EQUAL -1)
  message(FATAL_ERROR "${README} has no \"Install and link from CMake\" section")
endif()
string(SUBSTRING "${readme}" ${section} -1 readme)
string(FIND "${readme}" "```cmake\n" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "the section of ${README} has no ```cmake block")
endif()
math(EXPR begin "${begin} + 9")
string(SUBSTRING "${readme}" ${begin} -1 readme)
string(FIND "${readme}" "```" end)
string(SUBSTRING "${readme}" 0 ${end} example)

code_lines("${example}" example_lines)
file(READ ${CONSUMER} consumer)
code_lines("${consumer}" consumer_lines)
if(NOT example_lines)
  message(FATAL_ERROR "the ```cmake block of ${README} is empty")
endif()
string(FIND "${consumer_lines}" "${example_lines}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "README.md's example is not ${CONSUMER}:\n${example}")
endif()
message(STATUS "README.md's example is part of ${CONSUMER}")
