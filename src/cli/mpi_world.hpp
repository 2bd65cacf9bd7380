#pragma once
// Running under `mpirun -np N` (Open MPI): the command splits its work across the ranks and
// gathers the results, so that rank 0 prints exactly what a single process would. MPI is
// optional: without it (or when not launched by mpirun) the world is one process. The MPI calls
// live in libsextant_mpi.so (cli/mpi/module.cpp), opened with dlopen only under mpirun, so that
// no other run of sextant loads Open MPI.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct SextantMpiModule;  // cli/mpi/module_abi.h

namespace sextant::cli {

// FNV-1a over 64 bits: the same bytes give the same value on every node and in every build
// (std::hash promises neither). For comparing what the ranks of one job read, not for security.
class Fnv1a64 {
 public:
  void add(std::string_view bytes);
  void add_u64(uint64_t v);
  void add_double(double v);            // its bits: a different number is a different value
  void add_text(std::string_view text);  // its length, then its bytes (two lists that join alike hash apart)
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 14695981039346656037ull;
};

// One thing the ranks of a job must see alike: what it is (named in the error) and its hash.
struct InputPart {
  std::string what;
  uint64_t hash = 0;
};

// The command line after the program's name (/proc/self/cmdline), hashed: the program's own path
// may differ from node to node, its arguments may not.
InputPart command_line_part();
// A file's size and the hash of its first and last 64 KiB (a trace of gigabytes is not read
// twice; its modification time differs between copies on different nodes, so it is left out).
// A file that cannot be read hashes its error: never an exception, so that every rank reaches the
// comparison (one rank throwing alone would leave the others waiting in it).
uint64_t file_ends_hash(const std::string& path);
// The whole file's bytes, or its error as file_ends_hash.
uint64_t file_bytes_hash(const std::string& path);

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
  // Before the work is split: every rank's parts are gathered and compared with rank 0's. Ranks that
  // read other inputs (another SEXTANT_DATA_DIR on a node mpirun did not forward it to, a relative
  // path naming other files there, other options) had been merged silently into one wrong result
  // (review of 2026-12-06). On a difference every rank stops: rank 0 with an Error naming the ranks
  // and the parts that differ, the others with exit status 2 and no message of their own (it would
  // repeat rank 0's). Every rank decides from the same gathered bytes, so none waits alone. Nothing
  // is gathered in a world of one.
  void require_same_inputs(const std::vector<InputPart>& parts, const std::string& hint) const;
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
