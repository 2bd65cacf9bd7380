#include "cli/mpi_world.hpp"

#include <cstdlib>

#include "core/error.hpp"

#ifdef SEXTANT_HAVE_MPI
#include <mpi.h>
#endif

namespace sextant::cli {

bool MpiWorld::launched_by_mpirun() {
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  return n && std::atoi(n) > 1;
}

MpiWorld::MpiWorld() {
  if (!launched_by_mpirun()) return;
#ifdef SEXTANT_HAVE_MPI
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    MPI_Init(nullptr, nullptr);
    initialised_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#else
  throw Error(SourceLocation{"mpirun", 0, 0, "OMPI_COMM_WORLD_SIZE"},
              "launched by mpirun with " + std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) +
                  " ranks, but this sextant was built without MPI",
              "install libopenmpi-dev (scripts/install-deps.sh) and rebuild, or run without mpirun");
#endif
}

MpiWorld::~MpiWorld() {
#ifdef SEXTANT_HAVE_MPI
  if (initialised_) MPI_Finalize();
#endif
}

std::string MpiWorld::all_gather(const std::string& mine) const {
  if (size_ == 1) return mine;
#ifdef SEXTANT_HAVE_MPI
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int64_t total = 0;
  for (int i = 0; i < size_; ++i) {
    displs[static_cast<size_t>(i)] = static_cast<int>(total);
    total += counts[static_cast<size_t>(i)];
  }
  if (total > 2147483647) throw Error("MPI gather of more than 2 GiB: fix some plan dimensions with --fix");
  std::string all(static_cast<size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD);
  return all;
#else
  return mine;
#endif
}

}  // namespace sextant::cli
