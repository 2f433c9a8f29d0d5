# memjit_add_library(<layer> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Defines target memjit_<layer>, alias memjit::<layer>, exported as memjit::<layer>.
function(memjit_add_library layer)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  set(target memjit_${layer})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(memjit::${layer} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${layer} OUTPUT_NAME memjit_${layer})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  # memjit's headers are C++20: a user's target gets the standard with the library.
  target_compile_features(${target} PUBLIC cxx_std_20)
  memjit_set_warnings(${target})
  install(TARGETS ${target} EXPORT memjitTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
