# The layering rules of docs/design.md that a grep can check, run as a test:
#  - public headers (include/memjit) include no LLVM header: users of the
#    runtime must not need LLVM's headers, and LLVM types appear in the API
#    only by forward declaration;
#  - LLVM_VERSION_MAJOR appears only in the compat headers, the places for
#    differences between the supported LLVM versions: jit/llvm_compat.h and,
#    for codegen (which cannot include jit's headers), src/codegen/llvm_compat.h;
#  - the runtime's sources include nothing of codegen or jit;
#  - tests include no header by a relative path (../).
# Run: cmake -DSOURCE_DIR=<repo> -P check_layering.cmake
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "pass -DSOURCE_DIR=<memjit source directory>")
endif()

set(violations "")

file(GLOB_RECURSE public_headers "${SOURCE_DIR}/include/memjit/*.h")
foreach(file ${public_headers})
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](llvm|llvm-c)/")
  foreach(line ${lines})
    list(APPEND violations "${file}: public header includes LLVM: ${line}")
  endforeach()
endforeach()

file(GLOB_RECURSE sources
  "${SOURCE_DIR}/src/*.cpp" "${SOURCE_DIR}/src/*.h"
  "${SOURCE_DIR}/jit/*.cpp" "${SOURCE_DIR}/jit/*.h"
  "${SOURCE_DIR}/tools/*.cpp" "${SOURCE_DIR}/tools/*.h"
  "${SOURCE_DIR}/include/*.h")
foreach(file ${sources})
  if(file MATCHES "/(jit|src/codegen)/llvm_compat\\.h$")
    continue()
  endif()
  file(STRINGS "${file}" lines REGEX "LLVM_VERSION_MAJOR")
  foreach(line ${lines})
    list(APPEND violations "${file}: LLVM version test outside the compat headers (jit/, src/codegen/llvm_compat.h): ${line}")
  endforeach()
endforeach()

file(GLOB_RECURSE runtime_sources "${SOURCE_DIR}/src/runtime/*.cpp" "${SOURCE_DIR}/src/runtime/*.h"
  "${SOURCE_DIR}/include/memjit/runtime/*.h")
foreach(file ${runtime_sources})
  file(STRINGS "${file}" lines REGEX "#[ \t]*include[ \t]*[<\"](memjit/(codegen|jit)/|llvm/)")
  foreach(line ${lines})
    list(APPEND violations "${file}: the runtime uses a layer below it: ${line}")
  endforeach()
endforeach()

# Tests reach jit's internal headers as "jit/<name>.h" through the include
# directory memjit_uses_jit_internals sets, never by a relative path.
file(GLOB_RECURSE test_sources "${SOURCE_DIR}/tests/*.cpp" "${SOURCE_DIR}/tests/*.h")
foreach(file ${test_sources})
  file(STRINGS "${file}" lines REGEX "#[ \t]*include[ \t]*\"(\\.\\./)+")
  foreach(line ${lines})
    list(APPEND violations "${file}: a test includes by relative path (use memjit_uses_jit_internals): ${line}")
  endforeach()
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
