// Communication over MPI: launches sextant-mpi-bench with mpirun (processes on this host, or on
// the nodes of the hostfile mpirun is given through OMPI_* / its defaults) and reads its
// nccl-tests layout: ping-pong one-way latency and all_reduce / all_gather / reduce_scatter /
// alltoall bus bandwidth against message size. Skipped, with the reason, when mpirun or the
// helper is missing.
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "bench/nccl_format.hpp"
#include "bench/process.hpp"
#include "bench/suite.hpp"
#include "core/error.hpp"

namespace sextant::bench {
namespace {

class MpiSuite : public Suite {
 public:
  std::string name() const override { return "comm_mpi"; }
  std::string description() const override {
    return "MPI ping-pong latency and collective bus bandwidth vs size (nccl-tests layout), via mpirun";
  }
  double expected_duration_s(const SuiteConfig& c) const override { return c.quick ? 3 : 30; }

  static std::string helper_path(const SuiteConfig& c) {
    if (!c.mpi_helper.empty()) return c.mpi_helper;
    const std::string dir = executable_dir();
    for (const std::string& cand : {dir + "/sextant-mpi-bench", dir + "/../sextant-mpi-bench"})
      if (!dir.empty() && access(cand.c_str(), X_OK) == 0) return cand;
    return find_in_path("sextant-mpi-bench");
  }

  SuiteOutput run(const SuiteConfig& c) const override {
    SuiteOutput out;
    const std::string mpirun = c.mpirun.empty() ? find_in_path("mpirun") : find_in_path(c.mpirun);
    if (mpirun.empty()) {
      out.notes.push_back("comm_mpi skipped: mpirun not found in PATH (install openmpi-bin, or pass --mpirun)");
      return out;
    }
    const std::string helper = helper_path(c);
    if (helper.empty()) {
      // Not "built without MPI" for certain: a sextant copied away from its build folder has no
      // helper beside it either (2026-12-04 review).
      out.notes.push_back("comm_mpi skipped: sextant-mpi-bench is neither beside sextant (" +
                          (executable_dir().empty() ? std::string("its folder unknown") : executable_dir()) +
                          ") nor in PATH: it is built with Sextant where Open MPI's development files are installed "
                          "(libopenmpi-dev); a sextant copied elsewhere needs the helper copied beside it");
      return out;
    }
    if (c.mpi_ranks < 2) throw Error(SourceLocation{"", 0, 0, "--mpi-ranks"}, "the communication suite needs at least 2 ranks");
    std::vector<std::string> argv = {mpirun, "-np", std::to_string(c.mpi_ranks)};
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");
    argv.push_back("--oversubscribe");  // more ranks than cores on small hosts
    // Quick: 1 KiB, 32 KiB, 1 MiB; full: 1 KiB to 256 MiB by 4.
    argv.insert(argv.end(), {helper, "--min-bytes", "1024", "--max-bytes",
                             c.quick ? std::to_string(1 << 20) : std::to_string(256 << 20), "--factor",
                             c.quick ? "32" : "4", "--iters", c.quick ? "5" : "20", "--warmup",
                             std::to_string(std::max(1, c.warmup_count)), "--reps", std::to_string(c.repetition_count)});
    if (c.progress) c.progress(name(), fmt::format("mpirun -np {}", c.mpi_ranks), 0);
    const ProcessResult r = run_process(argv, true, true, c.quick ? 120 : 1800);
    if (r.exit_code != 0) {
      std::string tail = r.output.size() > 1500 ? r.output.substr(r.output.size() - 1500) : r.output;
      throw Error(SourceLocation{"", 0, 0, "comm_mpi"},
                  fmt::format("mpirun failed ({}): {}", r.signal ? "signal " + std::to_string(r.signal) : "exit " + std::to_string(r.exit_code), tail));
    }
    NcclLog log = parse_nccl_log(r.output, "sextant-mpi-bench output");
    if (log.ranks == 0) log.ranks = c.mpi_ranks;
    out.measurements = nccl_measurements(log, name(), "sextant-mpi-bench");
    for (auto& m : out.measurements) {
      m.warmup_count = std::max(1, c.warmup_count);
      m.set_param("mpirun", mpirun);
      m.set_param("iterations_per_repetition", c.quick ? "5" : "20");
    }
    out.text_blocks.emplace_back("comm_mpi (nccl-tests layout)", render_nccl_rows(log.rows));
    return out;
  }
};

}  // namespace

std::unique_ptr<Suite> make_mpi_suite() { return std::make_unique<MpiSuite>(); }

}  // namespace sextant::bench
