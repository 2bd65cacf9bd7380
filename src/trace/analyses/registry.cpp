#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

std::vector<Analysis> analysis_registry() {
  return {
      {"temporal_breakdown", "idle, compute and non-compute GPU time per rank", true, run_temporal_breakdown},
      {"comm_comp_overlap", "communication overlapped by computation; exposed communication and memcpy", true,
       run_comm_comp_overlap},
      {"kernel_breakdown", "GPU time by kernel type, overlap of types, and by kernel", true, run_kernel_breakdown},
      {"idle_time", "idle time between kernels per stream: host wait, kernel wait, other", true,
       run_idle_time_breakdown},
      {"launch_stats", "kernel launch delay, runtime-call cost, short kernels", true, run_launch_stats},
      {"queue_length", "launch-queue length per stream and time blocked at the limit", true, run_queue_length},
      {"collectives", "NCCL collectives matched across ranks: size, bus bandwidth, skew, stragglers", true,
       run_collectives},
      {"iterations", "per-iteration (ProfilerStep) CPU and GPU time", false, run_iterations},
      {"memory_timeline", "allocated and reserved memory over time from [memory] events", false,
       run_memory_timeline},
      {"critical_path", "critical path of each iteration across CPU threads and GPU streams, attributed", false,
       run_critical_path},
      {"whatif", "replay of each iteration's dependency graph, unscaled and with --scale/--drop-gaps", false,
       run_whatif},
      {"findings", "expert rules: GPU idle gaps and their cause, host syncs, sync/pageable memcpy, low utilisation, "
                   "exposed communication; with advice",
       false, run_findings},
      {"workload", "time per operator class; FLOPs, bytes and roofline placement of shaped operators", false,
       run_workload},
      {"memcpy_bandwidth", "memcpy/memset per kind and host memory: calls, bytes, time, achieved GB/s, GPU-span share",
       false, run_memcpy_bandwidth},
      {"kernel_sequences", "most frequent GPU kernel sequences launched by one operator instance (--sequence-depth)",
       false, run_kernel_sequences},
      {"user_annotations", "GPU time of kernels launched inside record_function/NVTX ranges, innermost and inclusive",
       false, run_user_annotations},
      {"clock_skew", "per-rank clock offsets estimated from the ends of matched collectives", false, run_clock_skew},
  };
}

}  // namespace sextant::trace
