# Dependencies of the bench module (host microbenchmarks, results database, calibration).
# Included from the top-level CMakeLists.txt before src/ so that SEXTANT_BENCH_DEPS is known
# when src/CMakeLists.txt creates sextant_bench.
#   SQLite3  results database (required)
#   OpenBLAS CPU GEMM (pkg-config `openblas`, opened with dlopen by the suite; else find_package(BLAS), linked)
#   MPI      optional: builds the helper sextant-mpi-bench that `sextant bench` launches with mpirun
#   CUDA     optional: cudart + cuBLAS GPU suite; without it the GPU suite runs only on its fake backend
find_package(SQLite3 REQUIRED)
add_library(sextant_bench_config INTERFACE)
sextant_dep(_sx_sqlite_dep SQLite::SQLite3 libsqlite3.a)
target_link_libraries(sextant_bench_config INTERFACE ${_sx_sqlite_dep} Threads::Threads
                      $<$<BOOL:$<TARGET_PROPERTY:SEXTANT_STATIC_LINK>>:m>)  # libsqlite3.a needs libm

pkg_check_modules(SEXTANT_OPENBLAS IMPORTED_TARGET openblas)
if(SEXTANT_OPENBLAS_FOUND)
  # OpenBLAS is not linked: the GEMM suite opens it with dlopen on first use (suites/gemm_cpu.cpp).
  # Linked, it cost every sextant process about 10 ms of start-up (its thread pool starts at load)
  # and 3 MB of resident memory, for one suite. dlopen tries the library's soname first (the
  # loader's search and Debian's alternatives, as a link would), then the path found here.
  target_include_directories(sextant_bench_config INTERFACE ${SEXTANT_OPENBLAS_INCLUDE_DIRS})
  target_link_libraries(sextant_bench_config INTERFACE ${CMAKE_DL_LIBS})
  list(GET SEXTANT_OPENBLAS_LINK_LIBRARIES 0 _sx_blas_path)  # full path of libopenblas.so
  get_filename_component(_sx_blas_soname ${_sx_blas_path} NAME)
  if(CMAKE_OBJDUMP)
    execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${_sx_blas_path} OUTPUT_VARIABLE _sx_blas_dyn ERROR_QUIET)
    if(_sx_blas_dyn MATCHES "SONAME +([^ \n]+)")
      set(_sx_blas_soname ${CMAKE_MATCH_1})
    endif()
  endif()
  target_compile_definitions(sextant_bench_config INTERFACE SEXTANT_HAVE_CBLAS=1 SEXTANT_HAVE_OPENBLAS=1
    SEXTANT_OPENBLAS_SONAME="${_sx_blas_soname}" SEXTANT_OPENBLAS_PATH="${_sx_blas_path}")
  # bf16 GEMM (cblas_sbgemm) exists only in OpenBLAS builds with BUILD_BFLOAT16 (Debian's lacks it).
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_INCLUDES ${SEXTANT_OPENBLAS_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_LINK_OPTIONS ${SEXTANT_OPENBLAS_LDFLAGS})
  check_cxx_source_compiles("#include <cblas.h>\nint main() { float c = 0; bfloat16 a = 0, b = 0; cblas_sbgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1); return 0; }" SEXTANT_OPENBLAS_HAS_SBGEMM)
  unset(CMAKE_REQUIRED_INCLUDES)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(SEXTANT_OPENBLAS_HAS_SBGEMM)
    target_compile_definitions(sextant_bench_config INTERFACE SEXTANT_HAVE_SBGEMM=1)
  endif()
else()
  find_package(BLAS)
  if(BLAS_FOUND)
    target_link_libraries(sextant_bench_config INTERFACE BLAS::BLAS)
    target_compile_definitions(sextant_bench_config INTERFACE SEXTANT_HAVE_CBLAS=1)
  else()
    message(WARNING "sextant bench: no BLAS found; the CPU GEMM suite will report itself unavailable")
  endif()
endif()

include(CheckLanguage)
# AUTO: only when a GPU is visible (nvidia-smi -L succeeds). Linking cuBLAS into `sextant` costs
# every command about 0.25 s of start-up and 200 MB of resident memory, which a machine without a
# GPU pays for nothing. ON forces it (a build host that prepares binaries for GPU nodes), OFF skips.
set(SEXTANT_WITH_CUDA AUTO CACHE STRING "Build the CUDA GPU benchmark backend: AUTO (a GPU is visible), ON, OFF")
set_property(CACHE SEXTANT_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
set(_sextant_cuda ${SEXTANT_WITH_CUDA})
if(_sextant_cuda STREQUAL "AUTO")
  set(_sextant_cuda OFF)
  find_program(SEXTANT_NVIDIA_SMI nvidia-smi)
  if(SEXTANT_NVIDIA_SMI)
    execute_process(COMMAND ${SEXTANT_NVIDIA_SMI} -L RESULT_VARIABLE _smi_rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 20)
    if(_smi_rc EQUAL 0)
      set(_sextant_cuda ON)
    endif()
  endif()
  if(NOT _sextant_cuda)
    message(STATUS "sextant bench: no GPU visible, CUDA backend not built (-DSEXTANT_WITH_CUDA=ON forces it)")
  endif()
endif()
if(_sextant_cuda)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    message(STATUS "sextant bench: CUDA ${CUDAToolkit_VERSION} found, GPU suite enabled")
    target_link_libraries(sextant_bench_config INTERFACE CUDA::cudart CUDA::cublas)
    target_compile_definitions(sextant_bench_config INTERFACE SEXTANT_HAVE_CUDA=1)
    # NCCL collectives: declared by the toolkit's nccl.h where it has one, opened at run time
    # (dlopen libnccl.so.2), so neither building nor running needs NCCL installed.
    find_path(SEXTANT_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    if(SEXTANT_NCCL_INCLUDE_DIR)
      message(STATUS "sextant bench: nccl.h in ${SEXTANT_NCCL_INCLUDE_DIR}, GPU collectives through NCCL opened at run time")
      target_include_directories(sextant_bench_config INTERFACE ${SEXTANT_NCCL_INCLUDE_DIR})
      target_compile_definitions(sextant_bench_config INTERFACE SEXTANT_HAVE_NCCL_H=1)
    else()
      message(STATUS "sextant bench: no nccl.h with the CUDA toolkit, GPU collectives not built")
    endif()
  else()
    message(STATUS "sextant bench: no CUDA toolkit, GPU suite uses only its fake backend in tests")
  endif()
endif()

target_compile_definitions(sextant_bench_config INTERFACE SEXTANT_VERSION_STRING="${PROJECT_VERSION}")
set(SEXTANT_BENCH_DEPS sextant_bench_config)

find_package(MPI COMPONENTS CXX QUIET)
if(MPI_CXX_FOUND)
  add_executable(sextant-mpi-bench ${CMAKE_CURRENT_LIST_DIR}/tools/mpi/sextant_mpi_bench.cpp)
  target_link_libraries(sextant-mpi-bench PRIVATE MPI::MPI_CXX)
  set_target_properties(sextant-mpi-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  message(STATUS "sextant bench: MPI found, building sextant-mpi-bench")
else()
  message(STATUS "sextant bench: no MPI, the communication suite will be skipped")
endif()
