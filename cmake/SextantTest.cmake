include(GoogleTest)
# sextant_test(MODULE [DEPS lib...])
# Builds tests/MODULE/*.cpp into the GoogleTest program test_MODULE and registers its tests
# with ctest under the labels "fast" and MODULE. Files named *_slow.cpp go into
# test_MODULE_slow, labelled "slow", which `make test` does not run (`make test-slow` does).
# Files named *_serial.cpp measure this machine (GEMM rates, memory bandwidth): they go into
# test_MODULE_serial, fast tier, with RUN_SERIAL so that no other test shares the cores with them.
function(sextant_test MODULE)
  cmake_parse_arguments(T "" "" "DEPS" ${ARGN})
  file(GLOB _all CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${MODULE}/*.cpp)
  set(_fast "")
  set(_slow "")
  set(_serial "")
  foreach(f ${_all})
    if(f MATCHES "_slow\\.cpp$")
      list(APPEND _slow ${f})
    elseif(f MATCHES "_serial\\.cpp$")
      list(APPEND _serial ${f})
    else()
      list(APPEND _fast ${f})
    endif()
  endforeach()
  foreach(tier fast slow serial)
    set(_serial_prop FALSE)
    set(_label ${tier})
    if(tier STREQUAL "fast")
      set(_srcs ${_fast})
      set(_name test_${MODULE})
    elseif(tier STREQUAL "slow")
      set(_srcs ${_slow})
      set(_name test_${MODULE}_slow)
    else()
      set(_srcs ${_serial})
      set(_name test_${MODULE}_serial)
      set(_serial_prop TRUE)
      set(_label fast)
    endif()
    if(NOT _srcs)
      continue()
    endif()
    add_executable(${_name} ${_srcs})
    target_link_libraries(${_name} PRIVATE ${T_DEPS} GTest::gtest GTest::gmock GTest::gtest_main Threads::Threads)
    target_include_directories(${_name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})  # tests/test_catalogs.hpp
    target_compile_definitions(${_name} PRIVATE
      SEXTANT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      SEXTANT_BINARY_DIR="${PROJECT_BINARY_DIR}")
    gtest_discover_tests(${_name}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      # One label: a list value here would be split into separate PROPERTIES arguments (which
      # silently dropped RUN_SERIAL for the machine-measuring tests).
      PROPERTIES LABELS "${_label}" RUN_SERIAL ${_serial_prop} ENVIRONMENT "SEXTANT_DATA_DIR=${PROJECT_SOURCE_DIR}/data"
      DISCOVERY_TIMEOUT 120)
  endforeach()
endfunction()
