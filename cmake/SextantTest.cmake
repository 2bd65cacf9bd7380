include(GoogleTest)
# sextant_test(MODULE [DEPS lib...])
# Builds tests/MODULE/*.cpp into the GoogleTest program test_MODULE and registers its tests
# with ctest under the labels "fast" and MODULE. Files named *_slow.cpp go into
# test_MODULE_slow, labelled "slow", which `make test` does not run (`make test-slow` does).
function(sextant_test MODULE)
  cmake_parse_arguments(T "" "" "DEPS" ${ARGN})
  file(GLOB _all CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${MODULE}/*.cpp)
  set(_fast "")
  set(_slow "")
  foreach(f ${_all})
    if(f MATCHES "_slow\\.cpp$")
      list(APPEND _slow ${f})
    else()
      list(APPEND _fast ${f})
    endif()
  endforeach()
  foreach(tier fast slow)
    if(tier STREQUAL "fast")
      set(_srcs ${_fast})
      set(_name test_${MODULE})
    else()
      set(_srcs ${_slow})
      set(_name test_${MODULE}_slow)
    endif()
    if(NOT _srcs)
      continue()
    endif()
    add_executable(${_name} ${_srcs})
    target_link_libraries(${_name} PRIVATE ${T_DEPS} GTest::gtest GTest::gmock GTest::gtest_main Threads::Threads)
    target_compile_definitions(${_name} PRIVATE
      SEXTANT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      SEXTANT_BINARY_DIR="${PROJECT_BINARY_DIR}")
    gtest_discover_tests(${_name}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      PROPERTIES LABELS "${tier};${MODULE}" ENVIRONMENT "SEXTANT_DATA_DIR=${PROJECT_SOURCE_DIR}/data"
      DISCOVERY_TIMEOUT 120)
  endforeach()
endfunction()
