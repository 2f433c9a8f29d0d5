# Runs examples/debugging under gdb with a breakpoint on the generator line
# marked `// BREAK-HERE` and checks that gdb stops in the JIT'd kernel there:
# the frame names the kernel and debugging.cpp:LINE, and the backtrace
# reaches main. -DEXAMPLE=<binary> -DSOURCE=<debugging.cpp> -DLEVEL=<0-3>
include(${CMAKE_CURRENT_LIST_DIR}/tool_test_helpers.cmake)
memjit_find_tool_or_skip(GDB gdb "dev.sh installs it")
memjit_marked_line(line "${SOURCE}" BREAK-HERE)
execute_process(
  COMMAND ${GDB} -batch -nx -ex "set breakpoint pending on" -ex "break debugging.cpp:${line}" -ex "run ${LEVEL}"
          -ex bt -ex "info args" -ex kill ${EXAMPLE}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 240)
message("${out}")
if(NOT out MATCHES "Breakpoint 1, scale_sum \\([^\n]*\\) at [^\n]*debugging\\.cpp:${line}\n")
  message(FATAL_ERROR "gdb did not stop in scale_sum at debugging.cpp:${line} (rc ${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "#0  scale_sum [^\n]*debugging\\.cpp:${line}\n#1 [^\n]*_mlir_ciface_scale_sum[^\n]*\n#2 [^\n]* in main")
  message(FATAL_ERROR "the backtrace does not go kernel -> interface -> main:\n${out}")
endif()
if(NOT out MATCHES "x = {allocated = [^\n]*aligned = 0x")
  message(FATAL_ERROR "gdb does not show the memref argument x's descriptor:\n${out}")
endif()
