// GPU suite: GEMM per dtype over shapes (achieved FLOP/s) and copy bandwidth (device-to-device,
// host-to-device, device-to-host) through a GpuBackend: the one in the configuration (tests use
// the fake), else CUDA when built with it, else the suite is skipped with the reason.
#include <cmath>

#include <fmt/format.h>

#include "bench/gpu_backend.hpp"
#include "bench/nccl_format.hpp"
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
  // Full: squares (launch-bound to compute-bound), each role small in turn at two sizes (so the
  // per-role fit can tell m, n and k apart within 8192 and skew 8), and transformer shapes that
  // are larger or more skewed than any of those (`calibrate --max-fit-dim 8192 --max-fit-skew 8`
  // holds them out and predicts them).
  return {{256, 256, 256},    {512, 512, 512},    {1024, 1024, 1024}, {2048, 2048, 2048},  {4096, 4096, 4096},
          {8192, 8192, 8192}, {512, 4096, 4096},  {4096, 512, 4096},  {4096, 4096, 512},   {1024, 8192, 8192},
          {8192, 1024, 8192}, {8192, 8192, 1024}, {2048, 4096, 8192}, {16384, 8192, 1280}, {128, 8192, 8192},
          {8192, 128, 8192},  {4096, 14336, 4096}, {1024, 8192, 28672}};
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
  std::string description() const override { return "GPU GEMM per dtype, copy bandwidth and NCCL collectives (CUDA, or a test backend)"; }
  double expected_duration_s(const SuiteConfig& c) const override {
    // GEMMs of 4 dtypes, 3 kinds of copy and up to 4 collectives per size.
    return (shapes(c.quick).size() * 4 + copy_sizes(c.quick).size() * 7) * (c.warmup_count + c.repetition_count) * c.min_rep_s;
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
    const int ranks = be->collective_ranks();
    const std::vector<std::string> ops = ranks > 0 ? be->collective_ops() : std::vector<std::string>{};
    const double cases =
        static_cast<double>(be->gemm_dtypes().size() * shapes(c.quick).size() + (3 + ops.size()) * copy_sizes(c.quick).size());
    int done = 0;
    for (const auto& dt : be->gemm_dtypes()) {
      for (const auto& s : shapes(c.quick)) {
        if (c.progress) c.progress(name(), fmt::format("{} {}x{}x{}", dt, s.m, s.n, s.k), done++ / cases);
        // One call sizes the repetition; then --warmup repetitions of that size, untimed (the
        // sizing call had counted as the first: --warmup 1 ran none at the timed size, before a
        // GPU's clocks had ramped; 2026-12-04 review).
        const int iters = iterations_for(be->gemm_s(dt, s.m, s.n, s.k, 1), c.min_rep_s);
        for (int w = 0; w < c.warmup_count; ++w) be->gemm_s(dt, s.m, s.n, s.k, iters);
        Measurement m;
        const double flops = 2.0 * s.m * s.n * s.k;
        for (int r = 0; r < c.repetition_count; ++r) m.samples.push_back(flops * iters / be->gemm_s(dt, s.m, s.n, s.k, iters));
        m.name = fmt::format("{} m={} n={} k={}", dt, s.m, s.n, s.k);
        m.metric = "flops_per_s";
        m.params = {{"dtype", dt}, {"m", std::to_string(s.m)}, {"n", std::to_string(s.n)}, {"k", std::to_string(s.k)},
                    {"iterations_per_repetition", std::to_string(iters)}};
        if (!be->gemm_operands().empty()) m.set_param("operands", be->gemm_operands());
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
        if (c.progress) c.progress(name(), fmt::format("copy {} {} bytes", to_string(kind), bytes), done++ / cases);
        const int iters = iterations_for(be->copy_s(kind, bytes, 1), c.min_rep_s);
        for (int w = 0; w < c.warmup_count; ++w) be->copy_s(kind, bytes, iters);
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
    // Collectives across the devices of this process, nccl-tests' conventions (size = the whole
    // buffer, algbw = size / time, busbw = algbw x the bus factor, fp32 elements).
    if (ranks <= 0) out.notes.push_back("gpu collectives skipped: " + be->collectives_unavailable());
    for (const auto& op : ops) {
      for (int64_t bytes : copy_sizes(c.quick)) {
        if (bytes % (4 * static_cast<int64_t>(ranks)) != 0) continue;  // whole fp32 elements per rank
        if (c.progress) c.progress(name(), fmt::format("{} {} bytes on {} GPU(s)", op, bytes, ranks), done++ / cases);
        const int iters = iterations_for(be->collective_s(op, bytes, 1), c.min_rep_s);
        for (int w = 0; w < c.warmup_count; ++w) be->collective_s(op, bytes, iters);
        const double factor = nccl_bus_factor(op, ranks);
        const bool bus = ranks > 1;
        Measurement m;
        for (int r = 0; r < c.repetition_count; ++r) {
          const double algbw = static_cast<double>(bytes) * iters / be->collective_s(op, bytes, iters);
          m.samples.push_back(bus ? algbw * factor : algbw);
        }
        m.name = fmt::format("{} size={}", op, bytes);
        m.metric = bus ? "busbw_bytes_per_s" : "algbw_bytes_per_s";
        m.params = {{"collective", op},
                    {"size_bytes", std::to_string(bytes)},
                    {"ranks", std::to_string(ranks)},
                    {"type", "float"},
                    {"bus_factor", fmt::format("{}", factor)},
                    {"library", be->collective_library()},
                    {"iterations_per_repetition", std::to_string(iters)}};
        if (!bus) m.set_param("note", "one GPU: busbw is 0 by nccl-tests' convention, so this is algbw = size / time");
        common(m);
        out.measurements.push_back(std::move(m));
      }
    }
    out.notes.push_back(fmt::format("gpu: backend {}, device {}{}", be->name(), dev.name,
                                    ranks > 0 ? fmt::format(", collectives over {} GPU(s) with {}", ranks, be->collective_library()) : ""));
    return out;
  }
};

}  // namespace

std::unique_ptr<Suite> make_gpu_suite() { return std::make_unique<GpuSuite>(); }

}  // namespace sextant::bench
