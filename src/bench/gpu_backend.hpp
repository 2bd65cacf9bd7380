#pragma once
// GPU backends of the GPU suite. The suite measures through this interface only, so it is
// tested on CPU-only machines with the fake backend; the CUDA backend (cudart + cuBLAS) exists
// when a CUDA toolkit was found at configure time (SEXTANT_HAVE_CUDA).
//
// Contract:
//  - gemm_s runs `iterations` back-to-back GEMMs C[m,n] = A[m,k] x B[k,n] of the dtype on
//    device 0 and returns their total seconds, timed on the device (events), after the
//    backend's own synchronisation; buffers are allocated and initialised outside the timing.
//    Operands are described by gemm_operands() (the CUDA backend: seeded uniform random values;
//    all-zero operands would run faster through lower switching power and higher clocks).
//  - copy_s does the same for `iterations` copies of `bytes` of the given kind (host memory
//    pinned).
//  - Unsupported dtypes throw Error naming the supported ones.
//  - Collectives (NCCL on the CUDA backend, opened at run time): one rank per visible device in
//    this process. collective_ranks() is their number (0: no collectives, with the reason in
//    collectives_unavailable()); collective_s runs `iterations` back-to-back collectives of a
//    `bytes` buffer (nccl-tests' "size": the whole buffer of all_reduce, the gathered buffer of
//    all_gather, the buffer before reduce_scatter, the whole send buffer of alltoall) of fp32
//    elements on every rank and returns the wall seconds from launch to the last rank's end.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sextant::bench {

struct GpuDevice {
  std::string name;
  int64_t memory_bytes = 0;
  std::string driver;
};

enum class GpuCopy { DeviceToDevice, HostToDevice, DeviceToHost };
const char* to_string(GpuCopy c);

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual std::string name() const = 0;
  virtual int device_count() const = 0;
  virtual GpuDevice device(int index) const = 0;
  virtual std::vector<std::string> gemm_dtypes() const = 0;
  // Peak FLOP/s of dtype when the backend knows it (the fake does); 0 otherwise.
  virtual double peak_flops(const std::string& dtype) const = 0;
  // How the GEMM operands are initialised (recorded with each GEMM measurement); "" when moot.
  virtual std::string gemm_operands() const { return ""; }
  virtual double gemm_s(const std::string& dtype, int64_t m, int64_t n, int64_t k, int iterations) = 0;
  virtual double copy_s(GpuCopy kind, int64_t bytes, int iterations) = 0;
  virtual int collective_ranks() const { return 0; }
  virtual std::string collectives_unavailable() const { return "the backend has no collectives"; }
  virtual std::string collective_library() const { return ""; }
  // all_reduce, all_gather, reduce_scatter and, where the library has it, alltoall.
  virtual std::vector<std::string> collective_ops() const { return {}; }
  virtual double collective_s(const std::string& op, int64_t bytes, int iterations);
};

// A deterministic GPU: GEMM time = launch_overhead + max(2mnk / (peak x efficiency(m,n,k)),
// footprint / d2d_bytes_per_s) (footprint: A, B and C once; catalog.hpp gemm_footprint_bytes),
// i.e. estimate's compute time of a GEMM op, with the catalog's efficiency model (catalog.hpp gemm_shape_factor: gemm_peak_fraction and the
// half-dimension of each role, gemm_half_dim_<role> where > 0, else gemm_half_dim); copies take
// overhead + bytes / bandwidth.
struct FakeGpuSpec {
  std::string device_name = "Fake GPU";
  int64_t memory_bytes = int64_t{80} << 30;
  std::map<std::string, double> peak_flops = {{"fp32", 67e12}, {"bf16", 989e12}, {"fp16", 989e12}};
  double gemm_peak_fraction = 0.8;
  double gemm_half_dim = 512;
  double gemm_half_dim_m = 0, gemm_half_dim_n = 0, gemm_half_dim_k = 0;  // 0: gemm_half_dim
  double launch_overhead_s = 4e-6;
  double d2d_bytes_per_s = 3.0e12, h2d_bytes_per_s = 55e9, d2h_bytes_per_s = 50e9;
  double copy_overhead_s = 8e-6;
  // Collectives: ranks (0: none) and time = latency + bytes x nccl bus factor / busbw.
  int collective_ranks = 0;
  double collective_latency_s = 20e-6;
  double collective_busbw_bytes_per_s = 300e9;
  // When set, the iterations of every gemm_s call in order (for tests of the suite's warm-up).
  std::shared_ptr<std::vector<int>> gemm_calls;
};
std::shared_ptr<GpuBackend> make_fake_gpu_backend(const FakeGpuSpec& spec);

// The CUDA backend, or nullptr (with the reason) when Sextant was built without CUDA or no
// device is visible.
std::shared_ptr<GpuBackend> make_cuda_backend(std::string* why_not);

}  // namespace sextant::bench
