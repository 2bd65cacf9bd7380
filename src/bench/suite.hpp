#pragma once
// Benchmark suites. Each suite lives in one file under suites/ behind the Suite interface and is
// looked up by name in a SuiteRegistry built by make_suite_registry() (no static registration).
//
// Contract of a suite:
//  - run() performs `config.warmup_count` untimed repetitions of every case, then
//    `config.repetition_count` timed ones, and returns one Measurement per case with every
//    repetition's metric value and the parameters needed to reproduce it.
//  - A suite that cannot run here (no BLAS, no mpirun, no GPU) returns no measurements and a
//    note that says why; it never reports zeros for what it did not measure.
//  - Files it creates are removed before run() returns, also when it throws.
//  - It reports progress through config.progress (may be empty) and never prints.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/host.hpp"
#include "bench/measurement.hpp"
#include "bench/timing.hpp"
#include "core/registry.hpp"

namespace sextant::bench {

class GpuBackend;

struct SuiteConfig {
  bool quick = false;
  int repetition_count = 5;
  int warmup_count = 1;
  int threads = 0;               // 0: all logical CPUs
  double min_rep_s = 0.02;       // each timed repetition lasts at least this long (inner loops)
  Timer timer = Timer::Wall;     // ProcessCpu: GEMM, latency and 1-thread bandwidth only (see timing.hpp)
  std::string storage_dir;       // storage suite: where to write (default: temp dir)
  int mpi_ranks = 2;             // communication suite
  std::string mpirun;            // path of mpirun; empty: search PATH
  std::string mpi_helper;        // path of sextant-mpi-bench; empty: beside the executable
  bool counters = true;          // read perf counters and RAPL around each case
  std::vector<std::string> gemm_dtypes;  // empty: fp32, fp64 (+ bf16 where the CPU has it)
  // gemm_cpu: time the repetitions of a dtype's shapes round-robin (repetition r of every shape,
  // then r + 1) instead of shape after shape, so a slow period of a shared machine lowers one
  // repetition of every shape rather than every repetition of a few; per-case counters are then
  // not read.
  bool interleave_repetitions = false;
  std::shared_ptr<GpuBackend> gpu;       // GPU suite backend; empty: CUDA when built, else skip
  std::function<void(const std::string& suite, const std::string& what, double done_fraction)> progress;
  HostInfo host;
  int effective_threads() const;
};

class Suite {
 public:
  virtual ~Suite() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Expected wall time of run() with this configuration (stated before the run starts).
  virtual double expected_duration_s(const SuiteConfig& config) const = 0;
  virtual SuiteOutput run(const SuiteConfig& config) const = 0;
};

// Suites by name (core/registry.hpp: get() throws Error at --suite with the valid names).
class SuiteRegistry : public InstanceRegistry<Suite> {
 public:
  SuiteRegistry() : InstanceRegistry("--suite", "benchmark suite") {}
  // Suites of the default run (all) / of --quick (all; quick sizes).
  std::vector<const Suite*> all() const;
};

SuiteRegistry make_suite_registry();

// Suite factories (one per file in suites/).
std::unique_ptr<Suite> make_gemm_cpu_suite();

// OpenBLAS's threaded build starts a worker per core when the library loads, and the workers spin
// (sched_yield) for about 0.1 s of CPU each before they sleep: on a 2-core machine that competes
// with every command, BLAS user or not. sextant no longer links OpenBLAS (the GEMM suite opens it
// on first use), so this only acts where something else loaded it already (numpy beside the Python
// module); it never loads the library. The GEMM suite's first threaded call (or
// openblas_set_num_threads) starts the pool again, as OpenBLAS does after fork. No-op without OpenBLAS.
void release_blas_worker_threads();
std::unique_ptr<Suite> make_memory_bandwidth_suite();
std::unique_ptr<Suite> make_memory_latency_suite();
// The working sets (bytes, ascending) memory_latency sweeps with this configuration.
std::vector<size_t> memory_latency_working_sets(const SuiteConfig& config);
std::unique_ptr<Suite> make_cache_bandwidth_suite();
std::unique_ptr<Suite> make_storage_suite();
std::unique_ptr<Suite> make_mpi_suite();
std::unique_ptr<Suite> make_gpu_suite();

}  // namespace sextant::bench
