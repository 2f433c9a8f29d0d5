# The system libraries memjit::runtime links, as imported targets found by
# name on the machine that uses them:
#   memjit::ffi   libffi, which the dynamic invoker calls functions through
#                 when their parameter list is known only at run time;
#   memjit::gomp  GCC's OpenMP runtime, whose pool runs parallel loops (entered
#                 through its GOMP_parallel ABI, so any compiler can build and
#                 link memjit, and a -fopenmp application shares one pool).
# The build includes this file and so does the installed memjitConfig.cmake:
# the exported memjit::runtime names these targets, never the absolute paths
# of the machine memjit was built on. What is missing is left in
# MEMJIT_RUNTIME_DEPS_ERROR (empty when both were found) for the includer to report.
set(MEMJIT_RUNTIME_DEPS_ERROR "")

if(NOT TARGET memjit::ffi)
  find_library(MEMJIT_FFI_LIBRARY NAMES ffi libffi.so.8 libffi.so.7)
endif()
if(NOT TARGET memjit::ffi AND NOT MEMJIT_FFI_LIBRARY)
  string(APPEND MEMJIT_RUNTIME_DEPS_ERROR "memjit::runtime needs libffi (Debian package libffi-dev). ")
elseif(NOT TARGET memjit::ffi)
  add_library(memjit::ffi UNKNOWN IMPORTED)
  set_target_properties(memjit::ffi PROPERTIES IMPORTED_LOCATION "${MEMJIT_FFI_LIBRARY}")
  # ffi.h: only memjit's own sources include it, so a consumer needs just the library.
  find_path(MEMJIT_FFI_INCLUDE_DIR ffi.h
    PATH_SUFFIXES ${CMAKE_LIBRARY_ARCHITECTURE} x86_64-linux-gnu aarch64-linux-gnu)
  if(MEMJIT_FFI_INCLUDE_DIR)
    set_target_properties(memjit::ffi PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${MEMJIT_FFI_INCLUDE_DIR}")
  endif()
endif()

if(NOT TARGET memjit::gomp)
  # GCC knows where its libgomp is; clang and others fall back to the system path.
  set(hint)
  if(CMAKE_CXX_COMPILER)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.so
      OUTPUT_VARIABLE guess OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(IS_ABSOLUTE "${guess}")
      get_filename_component(hint "${guess}" DIRECTORY)
    endif()
  endif()
  find_library(MEMJIT_GOMP_LIBRARY NAMES gomp libgomp.so.1 HINTS ${hint})
  unset(hint)
  unset(guess)
endif()
if(NOT TARGET memjit::gomp AND NOT MEMJIT_GOMP_LIBRARY)
  string(APPEND MEMJIT_RUNTIME_DEPS_ERROR
    "memjit::runtime needs GCC's OpenMP runtime libgomp (Debian package libgomp1). ")
elseif(NOT TARGET memjit::gomp)
  add_library(memjit::gomp UNKNOWN IMPORTED)
  set_target_properties(memjit::gomp PROPERTIES IMPORTED_LOCATION "${MEMJIT_GOMP_LIBRARY}")
endif()
