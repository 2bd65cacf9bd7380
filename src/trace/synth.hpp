#pragma once
// Synthetic Kineto traces for benchmarks and tests (`sextant trace synth`). Each rank runs
// `steps` ProfilerSteps of `layers` GEMM-like kernels launched from the CPU (cpu_op +
// cudaLaunchKernel + kernel, linked by correlation ids) on a compute stream, an input memcpy,
// and one NCCL all-reduce per step on a communication stream that ends at the same time on all
// ranks (the last rank to arrive sets the end). Injected stragglers start each step late.
// Kernel durations are drawn from counter-based random streams, so a rank's file is the same
// whatever the number of threads or the order of generation. Output is streamed (bounded
// memory), plain or gzip, from about 1 MB to several GB and thousands of ranks.
#include <cstdint>
#include <string>
#include <vector>

namespace sextant::trace {

struct SynthOptions {
  int64_t ranks = 2;
  int64_t layers = 40;                   // kernels per step on the compute stream
  int64_t steps = 0;                     // 0: derived from target_bytes_per_rank
  double target_bytes_per_rank = 1e6;    // used when steps == 0
  double kernel_mean_us = 120.0;         // mean compute-kernel duration
  double kernel_sigma = 0.5;             // lognormal shape of kernel durations
  double allreduce_bytes = 64e6;         // per-step all-reduce size
  double link_bytes_per_s = 100e9;       // bus bandwidth of the all-reduce
  std::vector<int64_t> straggler_ranks;  // ranks that start each step late
  double straggler_delay_us = 2000.0;
  double clock_skew_us = 0.0;            // rank r's clock is ahead by r * clock_skew_us (injected skew)
  bool float_timestamps = false;         // ns-resolution decimals instead of integer µs
  bool gzip = false;
  uint64_t seed = 1;
};

struct SynthFile {
  std::string path;
  int64_t rank = 0;
  uint64_t raw_bytes = 0;
  uint64_t events = 0;
};

// Steps that make one rank's file about target_bytes_per_rank (when opt.steps == 0).
int64_t synth_steps(const SynthOptions& opt);

// One rank's JSON text (for small traces and tests).
std::string synth_rank_json(const SynthOptions& opt, int64_t rank);

// Writes rank-<r>.json or rank-<r>.json.gz for every rank into dir (created when missing),
// ranks in parallel threads. Throws Error when a file cannot be written.
std::vector<SynthFile> write_synthetic_traces(const std::string& dir, const SynthOptions& opt, int threads = 0);

}  // namespace sextant::trace
