# memjit_add_aot_library(<target> GENERATOR <executable target>
#     [NAMESPACE <c++ namespace>] [TARGET_TRIPLE <triple>] [CPU <cpu>] [FEATURES <+a,-b>]
#     [OPT_LEVEL O0|O1|O2|O3] [PARAMS <extra generator arguments>...])
#
# Like Halide's add_halide_library: at build time runs the generator (a
# program that builds kernels with memjit and calls memjit::jit::runGenerator),
# which writes <target>.o and <target>.h; then makes <target> a static library
# of that object whose users get the header on their include path and
# memjit::runtime (descriptor types and the parallel-loop scheduler
# memjit_parallel_for with its libgomp; no LLVM) linked. Without TARGET_TRIPLE
# the object is for the build machine's CPU with all its features.
function(memjit_add_aot_library target)
  cmake_parse_arguments(ARG "" "GENERATOR;NAMESPACE;TARGET_TRIPLE;CPU;FEATURES;OPT_LEVEL" "PARAMS" ${ARGN})
  if(NOT ARG_GENERATOR)
    message(FATAL_ERROR "memjit_add_aot_library(${target}): GENERATOR <executable> is required")
  endif()
  if(TARGET ${ARG_GENERATOR})
    set(generator $<TARGET_FILE:${ARG_GENERATOR}>)
  else()
    set(generator ${ARG_GENERATOR})
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}.aot)
  # CXX: a consumer project need not enable C (CMAKE_C_OUTPUT_EXTENSION is empty then).
  set(object ${dir}/${target}${CMAKE_CXX_OUTPUT_EXTENSION})
  set(header ${dir}/${target}.h)
  set(args -o ${object} --header ${header})
  if(ARG_NAMESPACE)
    list(APPEND args --namespace ${ARG_NAMESPACE})
  else()
    list(APPEND args --namespace ${target})
  endif()
  if(ARG_TARGET_TRIPLE)
    list(APPEND args --target ${ARG_TARGET_TRIPLE})
  endif()
  if(ARG_CPU)
    list(APPEND args --cpu ${ARG_CPU})
  endif()
  if(ARG_FEATURES)
    list(APPEND args --features ${ARG_FEATURES})
  endif()
  if(ARG_OPT_LEVEL)
    list(APPEND args -${ARG_OPT_LEVEL})
  endif()
  list(APPEND args ${ARG_PARAMS})
  add_custom_command(
    OUTPUT ${object} ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${generator} ${args}
    DEPENDS ${ARG_GENERATOR}
    COMMENT "memjit: generating ${target} with ${ARG_GENERATOR}"
    VERBATIM)
  set_source_files_properties(${object} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${target} STATIC ${object} ${header})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${dir}>)
  target_link_libraries(${target} INTERFACE memjit::runtime)
  # Kernels calling math functions call libm and, vectorised on x86-64 Linux,
  # glibc's vector math library (see AotOptions::vectorMath).
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    target_link_libraries(${target} INTERFACE mvec m)
  elseif(UNIX)
    target_link_libraries(${target} INTERFACE m)
  endif()
endfunction()
