#pragma once
// The C interface between `sextant` and its MPI module, libsextant_mpi.so (built beside the
// executable when MPI is found). sextant opens the module with dlopen only when mpirun launched
// it (cli/mpi_world.cpp), so a plain command loads no MPI library (Open MPI's eight shared
// libraries cost every process about 3 ms of start-up). Every call returns an MPI error code
// (0 = MPI_SUCCESS); error_string turns one into text.
#include <stddef.h>

#define SEXTANT_MPI_MODULE_ABI_VERSION 1
#define SEXTANT_MPI_MODULE_ENTRY "sextant_mpi_module_v1"

extern "C" {

struct SextantMpiModule {
  int abi_version;  // SEXTANT_MPI_MODULE_ABI_VERSION of the build that made the module
  // MPI_Init unless already initialised (*initialised_here says which), then the world's rank and size.
  int (*init)(int* rank, int* size, int* initialised_here);
  int (*finalize)(void);
  // MPI_Allgather of one int per rank into counts[size].
  int (*all_gather_int)(int mine, int* counts);
  // MPI_Allgatherv of bytes: n of mine; all holds the sum of counts, rank r's at displs[r].
  int (*all_gather_bytes)(const void* mine, int n, void* all, const int* counts, const int* displs);
  // MPI_Error_string into buf (NUL-terminated, at most size bytes).
  void (*error_string)(int code, char* buf, size_t size);
};

// The module's one exported symbol.
typedef const SextantMpiModule* (*SextantMpiModuleEntry)(void);
}
