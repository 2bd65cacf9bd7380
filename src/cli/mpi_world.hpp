#pragma once
// Running under `mpirun -np N` (Open MPI): the command splits its work across the ranks and
// gathers the results, so that rank 0 prints exactly what a single process would. MPI is
// optional: without it (or when not launched by mpirun) the world is one process. The MPI calls
// live in libsextant_mpi.so (cli/mpi/module.cpp), opened with dlopen only under mpirun, so that
// no other run of sextant loads Open MPI.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct SextantMpiModule;  // cli/mpi/module_abi.h

namespace sextant::cli {

class MpiWorld {
 public:
  // Under mpirun (OMPI_COMM_WORLD_SIZE > 1): opens the MPI module beside the executable and
  // initialises MPI; an Error (naming the module and why) when it is missing or the build has no MPI.
  MpiWorld();
  // Finalises it, unless an exception is leaving the command: MPI_Finalize waits for every rank,
  // and a rank whose error was its own (a file only it cannot read) then hung with the others in
  // their next collective, its message never printed (review of 2026-12-05). Without finalising,
  // main prints the error and exits 2, and mpirun ends the job's other ranks.
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank contributes its bytes; every rank receives the concatenation in rank order.
  std::string all_gather(const std::string& mine) const;
  // Whether the environment says we were launched by mpirun with more than one rank but this
  // build cannot talk MPI (an Error is raised then rather than running N copies).
  static bool launched_by_mpirun();
  // This process's rank as mpirun says it (OMPI_COMM_WORLD_RANK), before MPI is initialised; 0
  // when not launched by mpirun.
  static int launcher_rank();

 private:
  int rank_ = 0, size_ = 1;
  bool initialised_ = false;
  int uncaught_ = 0;  // std::uncaught_exceptions() at construction
  const SextantMpiModule* module_ = nullptr;
};

}  // namespace sextant::cli
