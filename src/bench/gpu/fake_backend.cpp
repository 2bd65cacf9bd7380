#include <algorithm>

#include "bench/nccl_format.hpp"
#include "catalog/catalog.hpp"
#include "bench/gpu_backend.hpp"
#include "core/error.hpp"

namespace sextant::bench {

const char* to_string(GpuCopy c) {
  switch (c) {
    case GpuCopy::DeviceToDevice: return "d2d";
    case GpuCopy::HostToDevice: return "h2d";
    case GpuCopy::DeviceToHost: return "d2h";
  }
  return "?";
}

double GpuBackend::collective_s(const std::string& op, int64_t, int) {
  throw Error(SourceLocation{"", 0, 0, "collective"}, "collective '" + op + "' on backend " + name(), collectives_unavailable());
}

namespace {
class FakeGpuBackend : public GpuBackend {
 public:
  explicit FakeGpuBackend(FakeGpuSpec s) : s_(std::move(s)) {}
  std::string name() const override { return "fake"; }
  int device_count() const override { return 1; }
  GpuDevice device(int) const override { return {s_.device_name, s_.memory_bytes, "fake"}; }
  std::vector<std::string> gemm_dtypes() const override {
    std::vector<std::string> d;
    for (const auto& kv : s_.peak_flops) d.push_back(kv.first);
    return d;
  }
  double peak_flops(const std::string& dtype) const override {
    auto it = s_.peak_flops.find(dtype);
    return it == s_.peak_flops.end() ? 0 : it->second;
  }
  double gemm_s(const std::string& dtype, int64_t m, int64_t n, int64_t k, int iterations) override {
    const double peak = peak_flops(dtype);
    if (peak <= 0) throw Error(SourceLocation{"", 0, 0, "dtype"}, "fake GPU has no " + dtype, valid_choices_hint(dtype, gemm_dtypes()));
    if (s_.gemm_calls) s_.gemm_calls->push_back(iterations);
    // The GPU as a catalog entry describes it (the model estimate evaluates and calibrate fits).
    auto role = [this](double h) { return h > 0 ? h : s_.gemm_half_dim; };
    const GemmHalfDims h{role(s_.gemm_half_dim_m), role(s_.gemm_half_dim_n), role(s_.gemm_half_dim_k)};
    const double eff = s_.gemm_peak_fraction * gemm_shape_factor(static_cast<double>(m), static_cast<double>(n), static_cast<double>(k), h);
    // estimate's compute time of a GEMM op: max(compute, footprint / memory bandwidth) + overhead,
    // the memory bandwidth being d2d_bytes_per_s (bytes read and written per second).
    const double element_bytes = dtype == "fp32" || dtype == "tf32" ? 4.0 : 2.0;
    const double footprint = gemm_footprint_bytes(static_cast<double>(m), static_cast<double>(n), static_cast<double>(k), element_bytes);
    return iterations * (s_.launch_overhead_s + std::max(2.0 * m * n * k / (peak * eff), footprint / s_.d2d_bytes_per_s));
  }
  double copy_s(GpuCopy kind, int64_t bytes, int iterations) override {
    const double bw = kind == GpuCopy::DeviceToDevice ? s_.d2d_bytes_per_s
                      : kind == GpuCopy::HostToDevice ? s_.h2d_bytes_per_s
                                                      : s_.d2h_bytes_per_s;
    // A device-to-device copy reads and writes: bytes / (bw / 2).
    const double moved = kind == GpuCopy::DeviceToDevice ? 2.0 * bytes : static_cast<double>(bytes);
    return iterations * (s_.copy_overhead_s + moved / bw);
  }
  int collective_ranks() const override { return s_.collective_ranks; }
  std::string collectives_unavailable() const override { return s_.collective_ranks > 0 ? "" : "the fake GPU has no collectives configured"; }
  std::string collective_library() const override { return "fake"; }
  std::vector<std::string> collective_ops() const override {
    if (s_.collective_ranks <= 0) return {};
    return {"all_reduce", "all_gather", "reduce_scatter", "alltoall"};
  }
  double collective_s(const std::string& op, int64_t bytes, int iterations) override {
    if (s_.collective_ranks <= 0) return GpuBackend::collective_s(op, bytes, iterations);
    return iterations * (s_.collective_latency_s + static_cast<double>(bytes) * nccl_bus_factor(op, s_.collective_ranks) /
                                                       s_.collective_busbw_bytes_per_s);
  }

 private:
  FakeGpuSpec s_;
};
}  // namespace

std::shared_ptr<GpuBackend> make_fake_gpu_backend(const FakeGpuSpec& spec) { return std::make_shared<FakeGpuBackend>(spec); }

}  // namespace sextant::bench
