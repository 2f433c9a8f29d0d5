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
