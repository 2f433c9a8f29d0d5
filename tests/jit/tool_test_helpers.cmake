# Shared by the cmake -P scripts that run an external tool (gdb, perf) on an
# example and look for the example's generator line in what the tool prints.

# memjit_find_tool_or_skip(<var> <program> <where it comes from>): finds
# <program>, or prints the "SKIP: " line ctest skips on and ends the script
# (a macro, so that return() leaves the calling script).
macro(memjit_find_tool_or_skip var program origin)
  find_program(${var} ${program})
  if(NOT ${var})
    message("SKIP: ${program} not found (${origin})")
    return()
  endif()
endmacro()

# memjit_marked_line(<out> <source> <marker>): the number of the line of
# <source> that ends with the comment `// <marker>`, the line the tool must name.
function(memjit_marked_line out source marker)
  file(STRINGS "${source}" lines)
  set(line 0)
  set(number 0)
  foreach(text IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(text MATCHES "// ${marker}$")
      set(line ${number})
    endif()
  endforeach()
  if(line EQUAL 0)
    message(FATAL_ERROR "no '// ${marker}' marker in ${source}")
  endif()
  set(${out} ${line} PARENT_SCOPE)
endfunction()
