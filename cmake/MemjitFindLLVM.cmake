# Finds the LLVM memjit builds against: LLVM 19 to 22, as a shared libLLVM.
#
# Which one, when several are installed side by side (Debian's llvm-19-dev and
# llvm-22-dev): the one named with -DLLVM_DIR=<prefix>/lib/cmake/llvm, LLVM_ROOT
# or CMAKE_PREFIX_PATH; otherwise the lowest supported version in the usual
# versioned prefixes (/usr/lib/llvm-<N>, Homebrew's llvm@<N>), so LLVM 19 stays
# the default on a machine that also has 22; otherwise CMake's default search.
# (Plain find_package(LLVM) takes whichever candidate directory it lists first,
# and LLVM's version file accepts only an exact major.minor, so asking it for
# "19" does not work either.)
set(MEMJIT_LLVM_VERSIONS 19 20 21 22)
set(MEMJIT_LLVM_TESTED_VERSIONS 19 22)

if(NOT LLVM_DIR)
  find_package(LLVM CONFIG QUIET NO_SYSTEM_ENVIRONMENT_PATH NO_CMAKE_SYSTEM_PATH
    NO_CMAKE_PACKAGE_REGISTRY NO_CMAKE_SYSTEM_PACKAGE_REGISTRY)
  foreach(version ${MEMJIT_LLVM_VERSIONS})
    if(LLVM_FOUND)
      break()
    endif()
    find_package(LLVM CONFIG QUIET NO_DEFAULT_PATH
      PATHS /usr/lib/llvm-${version} /usr/local/opt/llvm@${version} /opt/homebrew/opt/llvm@${version}
      PATH_SUFFIXES lib/cmake/llvm)
  endforeach()
endif()
if(NOT LLVM_FOUND)
  find_package(LLVM CONFIG REQUIRED)
endif()

if(NOT LLVM_VERSION_MAJOR IN_LIST MEMJIT_LLVM_VERSIONS)
  message(FATAL_ERROR "memjit needs LLVM 19 to 22, found ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}; "
    "choose one with -DLLVM_DIR=<prefix>/lib/cmake/llvm")
endif()
if(NOT LLVM_VERSION_MAJOR IN_LIST MEMJIT_LLVM_TESTED_VERSIONS)
  message(WARNING "memjit is tested with LLVM ${MEMJIT_LLVM_TESTED_VERSIONS}; ${LLVM_PACKAGE_VERSION} should work but is untested")
endif()
message(STATUS "memjit: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR} (-DLLVM_DIR=... chooses another)")
if(NOT TARGET LLVM)
  message(FATAL_ERROR "memjit links LLVM's shared library; ${LLVM_DIR} provides none")
endif()

# Which LLVM library memjit::codegen and memjit::jit link: the shared libLLVM
# (default), or LLVM's static component libraries, which start a process
# about 70 ms sooner (no dynamic loading and relocation of libLLVM's ~30 MB
# and tens of thousands of symbols) at the price of a larger executable and a
# slower link. MEMJIT_LLVM_STATIC=ON makes every consumer static; otherwise an
# executable chooses for itself with the target property MEMJIT_LLVM_STATIC
# (the memjit CLI does, see tools/memjit). One process must never get both:
# two copies of LLVM's global state (command-line options, target registry)
# fail at start-up ("Option ... registered more than once"), so an executable
# that also links libLLVM or libMLIR directly must stay shared.
option(MEMJIT_LLVM_STATIC "Link LLVM's static libraries instead of the shared libLLVM into every consumer" OFF)
# The components memjit uses; all targets, since ahead-of-time compilation
# cross-compiles. The linker takes only the archive members that are used.
llvm_map_components_to_libnames(MEMJIT_LLVM_STATIC_LIBRARIES
  AllTargetsCodeGens AllTargetsAsmParsers AllTargetsDescs AllTargetsInfos AllTargetsDisassemblers
  orcjit orcdebugging jitlink orctargetprocess passes irreader bitreader bitwriter object
  mcdisassembler debuginfodwarf)
# Some LLVM packages ship no static libraries (or only their CMake targets).
set(MEMJIT_LLVM_STATIC_AVAILABLE OFF)
if(TARGET LLVMSupport)
  get_target_property(_memjit_support LLVMSupport LOCATION)
  if(_memjit_support AND EXISTS "${_memjit_support}")
    set(MEMJIT_LLVM_STATIC_AVAILABLE ON)
  endif()
  unset(_memjit_support)
endif()
if(MEMJIT_LLVM_STATIC AND NOT MEMJIT_LLVM_STATIC_AVAILABLE)
  message(FATAL_ERROR "MEMJIT_LLVM_STATIC is ON but ${LLVM_DIR} has no static LLVM libraries")
endif()
if(MEMJIT_LLVM_STATIC)
  set(MEMJIT_LLVM_LINK ${MEMJIT_LLVM_STATIC_LIBRARIES})
else()
  # In a usage requirement, $<TARGET_PROPERTY:prop> reads the consuming target.
  set(_memjit_static "$<BOOL:$<TARGET_PROPERTY:MEMJIT_LLVM_STATIC>>")
  set(MEMJIT_LLVM_LINK "$<$<NOT:${_memjit_static}>:LLVM>")
  foreach(library ${MEMJIT_LLVM_STATIC_LIBRARIES})
    list(APPEND MEMJIT_LLVM_LINK "$<${_memjit_static}:${library}>")
  endforeach()
  unset(_memjit_static)
endif()
