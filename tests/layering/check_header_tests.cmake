# Every public header has its own test file, tests/<folder>/<header>_test.cpp
# (docs/design.md: one test file per public header), so a new header cannot
# arrive untested. Run: cmake -DSOURCE_DIR=<repo> -P check_header_tests.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "pass -DSOURCE_DIR=<memjit source directory>")
endif()

file(GLOB_RECURSE public_headers RELATIVE "${SOURCE_DIR}/include/memjit" "${SOURCE_DIR}/include/memjit/*.h")
file(GLOB_RECURSE test_files RELATIVE "${SOURCE_DIR}/tests" "${SOURCE_DIR}/tests/*_test.cpp")
set(test_names "")
foreach(test ${test_files})
  get_filename_component(name "${test}" NAME)
  list(APPEND test_names "${name}")
endforeach()

set(missing "")
foreach(header ${public_headers})
  get_filename_component(stem "${header}" NAME_WE)
  if(NOT "${stem}_test.cpp" IN_LIST test_names)
    list(APPEND missing "include/memjit/${header}: no tests/<folder>/${stem}_test.cpp")
  endif()
endforeach()

list(LENGTH public_headers header_count)
if(header_count EQUAL 0)
  list(APPEND missing "no public headers found under ${SOURCE_DIR}/include/memjit: wrong SOURCE_DIR?")
endif()
if(missing)
  list(JOIN missing "\n" text)
  message(FATAL_ERROR "public headers without a test file:\n${text}")
endif()
message(STATUS "header tests: each of ${header_count} public headers has its test file")
