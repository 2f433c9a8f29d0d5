# The layering rules of docs/design.md that a grep can check, run as a test:
#  - public headers (include/memjit) include no LLVM header: users of the
#    runtime must not need LLVM's headers, and LLVM types appear in the API
#    only by forward declaration;
#  - LLVM_VERSION_MAJOR appears only in the compat headers, the places for
#    differences between the supported LLVM versions: jit/llvm_compat.h and,
#    for codegen (which cannot include jit's headers), src/codegen/llvm_compat.h;
#  - the runtime's sources include nothing of codegen or jit;
#  - tests include no header by a relative path (../);
#  - inside a layer, a file includes no header of the files built on it
#    (the engine not module linking, a function record not the handle that
#    points at it, the codegen module's state not function lowering);
#  - every public header has its own test file, tests/<folder>/<header>_test.cpp.
# Run: cmake -DSOURCE_DIR=<repo> -P check_layering.cmake
cmake_minimum_required(VERSION 3.20)  # IN_LIST
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "pass -DSOURCE_DIR=<memjit source directory>")
endif()

set(violations "")
# forbid(<what> <regex> <file>...): each line of the files that matches is a violation.
function(forbid what regex)
  foreach(file ${ARGN})
    file(STRINGS "${file}" lines REGEX "${regex}")
    foreach(line ${lines})
      list(APPEND violations "${file}: ${what}: ${line}")
    endforeach()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE public_headers "${SOURCE_DIR}/include/memjit/*.h")
forbid("public header includes LLVM" "^[ \t]*#[ \t]*include[ \t]*[<\"](llvm|llvm-c)/" ${public_headers})

file(GLOB_RECURSE sources
  "${SOURCE_DIR}/src/*.cpp" "${SOURCE_DIR}/src/*.h"
  "${SOURCE_DIR}/jit/*.cpp" "${SOURCE_DIR}/jit/*.h"
  "${SOURCE_DIR}/tools/*.cpp" "${SOURCE_DIR}/tools/*.h"
  "${SOURCE_DIR}/include/*.h")
list(FILTER sources EXCLUDE REGEX "/(jit|src/codegen)/llvm_compat\\.h$")
forbid("LLVM version test outside the compat headers (jit/, src/codegen/llvm_compat.h)" "LLVM_VERSION_MAJOR"
  ${sources})

file(GLOB_RECURSE runtime_sources "${SOURCE_DIR}/src/runtime/*.cpp" "${SOURCE_DIR}/src/runtime/*.h"
  "${SOURCE_DIR}/include/memjit/runtime/*.h")
forbid("the runtime uses a layer below it" "#[ \t]*include[ \t]*[<\"](memjit/(codegen|jit)/|llvm/)"
  ${runtime_sources})

# Tests reach jit's internal headers as "jit/<name>.h" through the include
# directory memjit_uses_jit_internals sets, never by a relative path.
file(GLOB_RECURSE test_sources "${SOURCE_DIR}/tests/*.cpp" "${SOURCE_DIR}/tests/*.h")
forbid("a test includes by relative path (use memjit_uses_jit_internals)" "#[ \t]*include[ \t]*\"(\\.\\./)+"
  ${test_sources})

# Upward edges inside a layer: each file named may not include the headers
# of what is built on it.
function(forbid_include file header_regex why)
  forbid("${why}" "#[ \t]*include[ \t]*[<\"]${header_regex}[>\"]" "${SOURCE_DIR}/${file}")
  set(violations "${violations}" PARENT_SCOPE)
endfunction()
foreach(file jit/engine.h jit/engine.cpp)
  forbid_include(${file} "link_module\\.h"
    "the engine includes module linking, which is built on it (the session's error reporter is in session_errors.h)")
endforeach()
forbid_include(jit/function_record.h "memjit/jit/function\\.h"
  "a function record includes the handle that points at it")
foreach(file src/codegen/module_impl.h include/memjit/codegen/module.h include/memjit/codegen/lowered_function.h)
  forbid_include(${file} "memjit/codegen/(function_lowering|builder)\\.h"
    "the codegen module's state includes function lowering, which is built on it (use lowered_function.h)")
endforeach()

# One test file per public header (docs/design.md), so none arrives untested.
file(GLOB_RECURSE test_files "${SOURCE_DIR}/tests/*_test.cpp")
set(test_names "")
foreach(test ${test_files})
  get_filename_component(name "${test}" NAME)
  list(APPEND test_names "${name}")
endforeach()
foreach(header ${public_headers})
  get_filename_component(stem "${header}" NAME_WE)
  if(NOT "${stem}_test.cpp" IN_LIST test_names)
    list(APPEND violations "${header}: public header without its test file tests/<folder>/${stem}_test.cpp")
  endif()
endforeach()

list(LENGTH public_headers header_count)
if(header_count EQUAL 0)
  list(APPEND violations "no public headers found under ${SOURCE_DIR}/include/memjit: wrong SOURCE_DIR?")
endif()

if(violations)
  list(JOIN violations "\n" text)
  message(FATAL_ERROR "layering violations:\n${text}")
endif()
message(STATUS "layering: ${header_count} public headers checked")
