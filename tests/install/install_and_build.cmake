# cmake -P script: installs memjit into a scratch prefix, then configures,
# builds and runs each consumer project against it as a user would, with
# find_package(memjit CONFIG) and no LLVM_DIR, on a machine that may hold
# several LLVMs (Debian's llvm-19-dev beside llvm-22-dev).
#   -DMEMJIT_BUILD_DIR -DSOURCE_DIR (tests/install) -DWORK_DIR -DCXX_COMPILER
#   -DEXPECTED_LLVM_DIR: the LLVM memjit was built with, which a consumer of
#                        memjit::jit must find (empty: built without LLVM)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# Nothing in the environment may choose the LLVM for the consumers.
foreach(var LLVM_DIR LLVM_ROOT CMAKE_PREFIX_PATH)
  unset(ENV{${var}})
endforeach()
run(${CMAKE_COMMAND} --install ${MEMJIT_BUILD_DIR} --prefix ${prefix})

# consumer(<project> <expected output regex> <LLVM_DIR it must find, or "none">)
function(consumer name expected llvm)
  set(dir ${WORK_DIR}/${name})
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/${name} -B ${dir} -G Ninja -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
  file(STRINGS ${dir}/CMakeCache.txt found REGEX "^LLVM_DIR:")
  string(REGEX REPLACE "^LLVM_DIR:[A-Z]*=" "" found "${found}")
  if(llvm STREQUAL "none")
    if(found)
      message(FATAL_ERROR "${name}: a runtime-only consumer looked for LLVM (found ${found})")
    endif()
  else()
    get_filename_component(found_real "${found}" REALPATH)
    get_filename_component(expected_real "${llvm}" REALPATH)
    if(NOT found_real STREQUAL expected_real)
      message(FATAL_ERROR "${name}: found LLVM at '${found}', but memjit was built with ${llvm}")
    endif()
  endif()
  run(${CMAKE_COMMAND} --build ${dir})
  run(${dir}/app)
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "${name} printed: ${last_output}")
  endif()
  message(STATUS "${name}: built and ran against ${prefix} (LLVM: ${found})")
endfunction()

consumer(runtime_consumer "memref<\\?x4xf32>\ndot typed=32 dynamic=32\nMemref base@ = 0x[0-9a-f]+ rank = 1 offset = 0 sizes = \\[3\\] strides = \\[1\\] data = \n\\[1,  2,  3\\]\n" none)
if(EXPECTED_LLVM_DIR)
  consumer(jit_consumer "jit dot typed=32 dynamic=32" ${EXPECTED_LLVM_DIR})
  consumer(aot_consumer "aot saxpy 3 5 7 \\(f32, memref<\\?xf32>, memref<\\?xf32>\\) -> \\(\\)" ${EXPECTED_LLVM_DIR})
  run(${prefix}/bin/memjit parse-type "memref<?x4 x f32>")
  if(NOT last_output STREQUAL "memref<?x4xf32>\n")
    message(FATAL_ERROR "installed CLI printed: ${last_output}")
  endif()
endif()
