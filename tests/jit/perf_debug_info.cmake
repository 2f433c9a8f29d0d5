# Runs examples/profiling under `perf record` with its jitdump on, injects the
# JIT'd code (`perf inject --jit`) and checks that perf attributes the
# kernel's samples to the generator line marked `// HOT-LINE`: in
# `perf report --sort srcline` and in `perf annotate` of the kernel.
# -DEXAMPLE=<binary> -DSOURCE=<profiling.cpp> -DWORKDIR=<scratch directory>
# Skips (a line starting "SKIP: ") where perf is missing or the kernel does
# not let this user sample itself.
include(${CMAKE_CURRENT_LIST_DIR}/tool_test_helpers.cmake)
memjit_find_tool_or_skip(PERF perf "dev.sh installs linux-perf")
memjit_marked_line(line "${SOURCE}" HOT-LINE)
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")

# Can this process sample its own user-space code at all? perf_event_paranoid
# above 2, a seccomp profile without perf_event_open (Docker's default before
# 2022) or a kernel without perf events all fail here, not in the real run.
execute_process(COMMAND ${PERF} record -q -k 1 -e cpu-clock:u -o "${WORKDIR}/probe.data" -- true
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  set(paranoid "?")
  if(EXISTS /proc/sys/kernel/perf_event_paranoid)
    file(READ /proc/sys/kernel/perf_event_paranoid paranoid)
    string(STRIP "${paranoid}" paranoid)
  endif()
  string(REGEX REPLACE "\n.*" "" first "${err}")
  message("SKIP: perf cannot sample user space here (perf_event_paranoid=${paranoid}, rc ${rc}): ${first}")
  return()
endif()

# -k 1: the jitdump's records carry CLOCK_MONOTONIC times, which perf inject
# matches against the samples' clock. JITDUMPDIR keeps the dump (and the
# jitted-*.so files perf inject writes beside it) in WORKDIR.
execute_process(COMMAND ${CMAKE_COMMAND} -E env "JITDUMPDIR=${WORKDIR}"
                        ${PERF} record -q -k 1 -e cpu-clock:u -o "${WORKDIR}/perf.data" -- ${EXAMPLE} 30000
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 240)
if(NOT rc EQUAL 0 OR NOT out MATCHES "polynomial ran 30000 times")
  message(FATAL_ERROR "perf record of ${EXAMPLE} failed (rc ${rc}):\n${out}\n${err}")
endif()
file(GLOB_RECURSE dumps "${WORKDIR}/.debug/jit/*/jit-*.dump")
if(NOT dumps)
  message(FATAL_ERROR "the example wrote no jitdump under ${WORKDIR}/.debug/jit")
endif()
execute_process(COMMAND ${PERF} inject --jit -i "${WORKDIR}/perf.data" -o "${WORKDIR}/perf.jit.data"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "perf inject --jit failed (rc ${rc}):\n${out}\n${err}")
endif()

execute_process(COMMAND ${PERF} report -i "${WORKDIR}/perf.jit.data" --stdio --sort sym,srcline
                OUTPUT_VARIABLE report ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 240)
message("${report}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "perf report failed (rc ${rc}):\n${err}")
endif()
# The kernel's body runs in its C interface (JitOptions::compileExpandedOnFirstUse).
if(NOT report MATCHES "_mlir_ciface_polynomial[ \t]+profiling\\.cpp:${line}[ \t]*\n")
  message(FATAL_ERROR "perf report does not attribute samples of the kernel to profiling.cpp:${line}:\n${report}")
endif()

# perf annotate shows the generator's source beside the kernel's instructions
# (it reads the line table of the jitted-*.so and the source file itself).
execute_process(COMMAND ${PERF} annotate -i "${WORKDIR}/perf.jit.data" --stdio -l _mlir_ciface_polynomial
                OUTPUT_VARIABLE annotate ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 240)
message("${annotate}")
if(NOT annotate MATCHES "profiling\\.cpp:${line}")
  message(FATAL_ERROR "perf annotate of the kernel does not name profiling.cpp:${line} (rc ${rc}):\n${annotate}\n${err}")
endif()
