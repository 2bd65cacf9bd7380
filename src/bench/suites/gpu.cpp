// GPU suite: GEMM per dtype over shapes (achieved FLOP/s) and copy bandwidth (device-to-device,
// host-to-device, device-to-host) through a GpuBackend: the one in the configuration (tests use
// the fake), else CUDA when built with it, else the suite is skipped with the reason.
#include <cmath>

#include <fmt/format.h>

#include "bench/gpu_backend.hpp"
#include "bench/suite.hpp"

namespace sextant::bench {
namespace {

struct Shape {
  int64_t m, n, k;
};

std::vector<Shape> shapes(bool quick) {
  // Quick: squares, and each role (m, n, k) small in turn, so a per-role fit can tell them apart.
  if (quick)
    return {{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {256, 4096, 4096}, {4096, 256, 4096}, {8192, 8192, 1024}};
  return {{256, 256, 256},    {512, 512, 512},     {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
          {8192, 8192, 8192}, {16384, 8192, 1280}, {128, 8192, 8192},  {8192, 128, 8192},  {4096, 14336, 4096},
          {1024, 8192, 28672}};
}

std::vector<int64_t> copy_sizes(bool quick) {
  if (quick) return {int64_t{1} << 20, int64_t{64} << 20};
  return {int64_t{1} << 20, int64_t{16} << 20, int64_t{256} << 20, int64_t{1} << 30};
}

// Iterations so one repetition lasts at least min_rep_s, from one timed call.
int iterations_for(double one_s, double min_rep_s) {
  if (one_s <= 0) return 1;
  return static_cast<int>(std::clamp(std::ceil(min_rep_s / one_s), 1.0, 100000.0));
}

class GpuSuite : public Suite {
 public:
  std::string name() const override { return "gpu"; }
  std::string description() const override { return "GPU GEMM per dtype and copy bandwidth (CUDA, or a test backend)"; }
  double expected_duration_s(const SuiteConfig& c) const override {
    return (shapes(c.quick).size() * 4 + copy_sizes(c.quick).size() * 3) * (c.warmup_count + c.repetition_count) * c.min_rep_s;
  }

  SuiteOutput run(const SuiteConfig& c) const override {
    SuiteOutput out;
    std::shared_ptr<GpuBackend> be = c.gpu;
    std::string why;
    if (!be) be = make_cuda_backend(&why);
    if (!be) {
      out.notes.push_back("gpu skipped: " + why);
      return out;
    }
    const GpuDevice dev = be->device(0);
    auto common = [&](Measurement& m) {
      m.suite = name();
      m.warmup_count = c.warmup_count;
      m.params.insert(m.params.begin(), {{"backend", be->name()}, {"device", dev.name}, {"driver", dev.driver}});
    };
    for (const auto& dt : be->gemm_dtypes()) {
      for (const auto& s : shapes(c.quick)) {
        if (c.progress) c.progress(name(), fmt::format("{} {}x{}x{}", dt, s.m, s.n, s.k), 0);
        const int iters = iterations_for(be->gemm_s(dt, s.m, s.n, s.k, 1), c.min_rep_s);
        for (int w = 1; w < c.warmup_count; ++w) be->gemm_s(dt, s.m, s.n, s.k, iters);
        Measurement m;
        const double flops = 2.0 * s.m * s.n * s.k;
        for (int r = 0; r < c.repetition_count; ++r) m.samples.push_back(flops * iters / be->gemm_s(dt, s.m, s.n, s.k, iters));
        m.name = fmt::format("{} m={} n={} k={}", dt, s.m, s.n, s.k);
        m.metric = "flops_per_s";
        m.params = {{"dtype", dt}, {"m", std::to_string(s.m)}, {"n", std::to_string(s.n)}, {"k", std::to_string(s.k)},
                    {"iterations_per_repetition", std::to_string(iters)}};
        if (be->peak_flops(dt) > 0) {
          m.set_param("peak_flops_per_s", fmt::format("{}", be->peak_flops(dt)));
          m.set_param("peak_source", be->name() + " backend");
        }
        common(m);
        out.measurements.push_back(std::move(m));
      }
    }
    for (GpuCopy kind : {GpuCopy::DeviceToDevice, GpuCopy::HostToDevice, GpuCopy::DeviceToHost}) {
      for (int64_t bytes : copy_sizes(c.quick)) {
        const int iters = iterations_for(be->copy_s(kind, bytes, 1), c.min_rep_s);
        for (int w = 1; w < c.warmup_count; ++w) be->copy_s(kind, bytes, iters);
        Measurement m;
        for (int r = 0; r < c.repetition_count; ++r) m.samples.push_back(static_cast<double>(bytes) * iters / be->copy_s(kind, bytes, iters));
        m.name = fmt::format("copy_{} bytes={}", to_string(kind), bytes);
        m.metric = "bytes_per_s";
        m.params = {{"copy", to_string(kind)}, {"bytes", std::to_string(bytes)}, {"iterations_per_repetition", std::to_string(iters)},
                    {"byte_counting", "bytes copied once (a device-to-device copy moves twice that through memory)"}};
        common(m);
        out.measurements.push_back(std::move(m));
      }
    }
    out.notes.push_back(fmt::format("gpu: backend {}, device {}", be->name(), dev.name));
    return out;
  }
};

}  // namespace

std::unique_ptr<Suite> make_gpu_suite() { return std::make_unique<GpuSuite>(); }

}  // namespace sextant::bench
