# rl_add_test(NAME name SOURCES a.cpp b.cpp LIBS rl::core [LABELS redis] [TIMEOUT s] [RUNS ratelab-cli ratelab])
# One Qt Test executable per module, registered in CTest under its name. RUNS: the
# programs it starts as processes, built before it. Every test knows the source and
# build trees as RATELAB_SOURCE_DIR and RATELAB_BINARY_DIR.
function(rl_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;RUNS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  rl_set_warnings(${T_NAME})
  set_target_properties(${T_NAME} PROPERTIES AUTOMOC ON)
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} Qt6::Test)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${T_NAME} PRIVATE RATELAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                               RATELAB_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(T_RUNS)
    add_dependencies(${T_NAME} ${T_RUNS})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;RATELAB_BIN_DIR=${PROJECT_BINARY_DIR}/app")
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()
