#include "cli/mpi_world.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "core/error.hpp"

#ifdef SEXTANT_HAVE_MPI
#include <dlfcn.h>
#include <unistd.h>

#include <climits>

#include "cli/mpi/module_abi.h"
#endif

namespace sextant::cli {

namespace {

SourceLocation mpirun_location() { return SourceLocation{"mpirun", 0, 0, "OMPI_COMM_WORLD_SIZE"}; }

std::string world_size_text() {
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  return n ? n : "?";
}

#ifdef SEXTANT_HAVE_MPI
// The directory of the running executable: the MPI module is built and installed beside it.
std::string executable_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  const std::string exe(buf, static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  return slash == std::string::npos ? std::string(".") : exe.substr(0, slash);
}

// Opens libsextant_mpi.so beside the executable (only ever under mpirun) and checks its ABI.
const SextantMpiModule* open_mpi_module() {
  const std::string path = executable_dir() + "/" + SEXTANT_MPI_MODULE_FILE;
  const std::string why = "launched by mpirun with " + world_size_text() + " ranks, but the MPI module " + path;
  const std::string hint = "build the target sextant_mpi (ninja sextant builds it) and keep " SEXTANT_MPI_MODULE_FILE
                           " beside the sextant executable, or run without mpirun";
  // RTLD_GLOBAL: Open MPI's components (opened by libmpi itself) resolve libmpi's symbols globally.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* e = dlerror();
    throw Error(mpirun_location(), why + " cannot be loaded: " + (e ? e : "unknown dlopen error"), hint);
  }
  const auto entry = reinterpret_cast<SextantMpiModuleEntry>(dlsym(handle, SEXTANT_MPI_MODULE_ENTRY));
  const SextantMpiModule* m = entry ? entry() : nullptr;
  if (!m || m->abi_version != SEXTANT_MPI_MODULE_ABI_VERSION)
    throw Error(mpirun_location(),
                why + (m ? " has interface version " + std::to_string(m->abi_version) + ", this sextant needs " +
                               std::to_string(SEXTANT_MPI_MODULE_ABI_VERSION)
                         : std::string(" does not export " SEXTANT_MPI_MODULE_ENTRY)),
                hint);
  return m;  // never closed: Open MPI must not be unloaded after MPI_Finalize
}

void check_mpi(const SextantMpiModule* m, int rc, const char* call) {
  if (rc == 0) return;
  char text[512];
  m->error_string(rc, text, sizeof text);
  throw Error(std::string(call) + " failed: " + text);
}
#endif

}  // namespace

bool MpiWorld::launched_by_mpirun() {
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  return n && std::atoi(n) > 1;
}

int MpiWorld::launcher_rank() {
  if (!launched_by_mpirun()) return 0;
  const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
  return r ? std::atoi(r) : 0;
}

MpiWorld::MpiWorld() : uncaught_(std::uncaught_exceptions()) {
  if (!launched_by_mpirun()) return;
#ifdef SEXTANT_HAVE_MPI
  module_ = open_mpi_module();
  int here = 0;
  check_mpi(module_, module_->init(&rank_, &size_, &here), "MPI_Init");
  initialised_ = here != 0;
#else
  throw Error(mpirun_location(), "launched by mpirun with " + world_size_text() + " ranks, but this sextant was built without MPI",
              "install libopenmpi-dev (scripts/install-deps.sh) and rebuild, or run without mpirun");
#endif
}

MpiWorld::~MpiWorld() {
#ifdef SEXTANT_HAVE_MPI
  if (initialised_ && std::uncaught_exceptions() == uncaught_) module_->finalize();
#endif
}

std::string MpiWorld::all_gather(const std::string& mine) const {
  if (size_ == 1) return mine;
#ifdef SEXTANT_HAVE_MPI
  // A share of 2 GiB or more is sent as -1, so that every rank sees it and refuses together (the
  // size had been cut to an int before the check; one rank throwing alone would hang the rest).
  const int n = mine.size() > 2147483647u ? -1 : static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  check_mpi(module_, module_->all_gather_int(n, counts.data()), "MPI_Allgather");
  int64_t total = 0;
  for (int i = 0; i < size_; ++i) {
    displs[static_cast<size_t>(i)] = static_cast<int>(std::min<int64_t>(total, 2147483647));
    total += counts[static_cast<size_t>(i)] < 0 ? int64_t{1} << 40 : counts[static_cast<size_t>(i)];
  }
  if (total > 2147483647)
    throw Error(SourceLocation{"mpirun", 0, 0, ""}, "MPI gather of more than 2 GiB (MPI counts are ints)",
                "plan and sweep: fix some plan dimensions with --fix; analyze: run without mpirun, or analyse fewer rank files per run");
  std::string all(static_cast<size_t>(total), '\0');
  check_mpi(module_, module_->all_gather_bytes(mine.data(), n, all.data(), counts.data(), displs.data()), "MPI_Allgatherv");
  return all;
#else
  return mine;
#endif
}

}  // namespace sextant::cli
