// libsextant_mpi.so: the seven MPI calls of `sextant`, behind the C table of cli/mpi/module_abi.h.
// Only this module links Open MPI; sextant opens it with dlopen when mpirun launched it.
#include <mpi.h>

#include <cstring>

#include "cli/mpi/module_abi.h"

namespace {

int init(int* rank, int* size, int* initialised_here) {
  int already = 0;
  int rc = MPI_Initialized(&already);
  if (rc != MPI_SUCCESS) return rc;
  *initialised_here = 0;
  if (!already) {
    rc = MPI_Init(nullptr, nullptr);
    if (rc != MPI_SUCCESS) return rc;
    *initialised_here = 1;
  }
  rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Comm_size(MPI_COMM_WORLD, size);
}

int finalize() { return MPI_Finalize(); }

int all_gather_int(int mine, int* counts) { return MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD); }

int all_gather_bytes(const void* mine, int n, void* all, const int* counts, const int* displs) {
  return MPI_Allgatherv(mine, n, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
}

void error_string(int code, char* buf, size_t size) {
  if (size == 0) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  const size_t n = static_cast<size_t>(len) < size - 1 ? static_cast<size_t>(len) : size - 1;
  std::memcpy(buf, text, n);
  buf[n] = '\0';
}

const SextantMpiModule kModule = {SEXTANT_MPI_MODULE_ABI_VERSION, init, finalize, all_gather_int, all_gather_bytes, error_string};

}  // namespace

extern "C" __attribute__((visibility("default"))) const SextantMpiModule* sextant_mpi_module_v1() { return &kModule; }
