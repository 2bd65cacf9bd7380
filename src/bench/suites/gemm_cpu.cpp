// CPU GEMM through BLAS (OpenBLAS): achieved FLOP/s per shape and dtype against the peak derived
// from the CPU clock and vector ISA (HostInfo::peak_flops).
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "bench/counters.hpp"
#include "bench/suite.hpp"
#include "bench/timing.hpp"
#include "core/error.hpp"
#include "core/random.hpp"

#ifdef SEXTANT_HAVE_CBLAS
#include <cblas.h>
#endif
#ifdef SEXTANT_HAVE_OPENBLAS
#include <dlfcn.h>
#endif

namespace sextant::bench {
namespace {

// The BLAS entry points the suite calls. OpenBLAS is opened with dlopen on the suite's first use
// (bench.cmake: linked, it cost every sextant process ~10 ms of start-up and 3 MB resident); any
// other CBLAS is linked and its functions taken directly.
struct Blas {
  std::string error;  // why the library could not be used; empty when it can
#ifdef SEXTANT_HAVE_CBLAS
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
#endif
#ifdef SEXTANT_HAVE_SBGEMM
  decltype(&cblas_sbgemm) sbgemm = nullptr;  // optional: null when the library lacks it
#endif
#ifdef SEXTANT_HAVE_OPENBLAS
  decltype(&openblas_get_config) get_config = nullptr;
  decltype(&openblas_get_num_threads) get_num_threads = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
#endif
};

#ifdef SEXTANT_HAVE_OPENBLAS
template <class F>
void resolve(void* handle, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  if (!f) missing += std::string(missing.empty() ? "" : ", ") + name;
}
#endif

Blas open_blas() {
  Blas b;
#ifdef SEXTANT_HAVE_OPENBLAS
  void* h = dlopen(SEXTANT_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  std::string tried = SEXTANT_OPENBLAS_SONAME;
  if (!h) {
    const char* e = dlerror();
    tried += std::string(" (") + (e ? e : "not found") + "), " SEXTANT_OPENBLAS_PATH;
    h = dlopen(SEXTANT_OPENBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
  }
  if (!h) {
    const char* e = dlerror();
    b.error = "cannot load OpenBLAS: tried " + tried + " (" + (e ? e : "not found") + "); install libopenblas0 (scripts/install-deps.sh)";
    return b;
  }
  std::string missing;
  resolve(h, "cblas_sgemm", b.sgemm, missing);
  resolve(h, "cblas_dgemm", b.dgemm, missing);
  resolve(h, "openblas_get_config", b.get_config, missing);
  resolve(h, "openblas_get_num_threads", b.get_num_threads, missing);
  resolve(h, "openblas_set_num_threads", b.set_num_threads, missing);
#ifdef SEXTANT_HAVE_SBGEMM
  b.sbgemm = reinterpret_cast<decltype(&cblas_sbgemm)>(dlsym(h, "cblas_sbgemm"));
#endif
  if (!missing.empty()) b.error = "the OpenBLAS library " + tried + " lacks " + missing;
#elif defined(SEXTANT_HAVE_CBLAS)
  b.sgemm = &cblas_sgemm;
  b.dgemm = &cblas_dgemm;
#ifdef SEXTANT_HAVE_SBGEMM
  b.sbgemm = &cblas_sbgemm;
#endif
#else
  b.error = "Sextant was built without a CBLAS library (install libopenblas-dev)";
#endif
  return b;
}

// Opened once per process, on first use; never closed (its thread pool lives with the process).
const Blas& blas() {
  static const Blas b = open_blas();
  return b;
}

struct Shape {
  int64_t m, n, k;
};

// Quick grid: squares up to 512 and skewed shapes up to skew 16 (largest / smallest dimension),
// plus larger and more skewed shapes (768^3, 1024x1024x256, and m or n = 48 with skew 32) that
// calibration tests hold out of the fit.
std::vector<Shape> gemm_shapes(bool quick) {
  if (quick)
    return {{64, 64, 64},    {128, 128, 128}, {192, 192, 192}, {256, 256, 256}, {384, 384, 384}, {512, 512, 512},
            {64, 256, 256},  {256, 64, 256},  {128, 512, 256}, {512, 128, 512}, {32, 256, 256},  {32, 512, 512},
            {512, 32, 512},  {768, 768, 768}, {48, 1536, 1536}, {1536, 48, 1536}, {1024, 1024, 256}};
  return {{64, 64, 64},       {128, 128, 128},    {256, 256, 256},    {384, 384, 384},  {512, 512, 512},
          {768, 768, 768},    {1024, 1024, 1024}, {1536, 1536, 1536}, {2048, 2048, 2048}, {32, 512, 512},
          {512, 32, 512},     {64, 1024, 1024},   {1024, 64, 1024},   {256, 1024, 512}, {1024, 256, 1024},
          {16, 2048, 2048},   {2048, 16, 2048},   {2048, 2048, 256},  {4096, 4096, 512}};
}

std::string blas_name() {
#ifdef SEXTANT_HAVE_OPENBLAS
  return blas().get_config();
#elif defined(SEXTANT_HAVE_CBLAS)
  return "cblas";
#else
  return "none";
#endif
}

#ifdef SEXTANT_HAVE_SBGEMM
uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);  // round to nearest even
}
#endif

class GemmCpuSuite : public Suite {
 public:
  std::string name() const override { return "gemm_cpu"; }
  std::string description() const override {
    return "CPU GEMM through BLAS (fp32, fp64, bf16 where the CPU has it): achieved FLOP/s vs peak";
  }
  // Per case: filling the operands (10 ns an element), then the calls of time_repeated, each
  // 2mnk FLOP at a quarter of the derived peak (OpenBLAS reaches 0.7-0.9 of it on large shapes of
  // a quiet host, and 0.07-0.12 on the loaded 2-core VM of the 2026-12-06 review), 5 GFLOP/s a
  // thread where the peak is unknown. A full run's largest calls (4096 x 4096 x 512, 2048^3:
  // 17 GFLOP) outlast min_rep_s, and every case runs at least 8 of them with the default counts:
  // before 2026-12-06 a fixed 0.5 s a case stood for them (review).
  double expected_duration_s(const SuiteConfig& c) const override {
    const int threads = c.effective_threads();
    double s = 0;
    for (const auto& dt : dtypes(c)) {
      const double peak = c.host.peak_flops(dt, threads);
      const double rate = peak > 0 ? 0.25 * peak : 5e9 * threads;
      for (const Shape& sh : gemm_shapes(c.quick)) {
        const double flops = 2.0 * static_cast<double>(sh.m) * static_cast<double>(sh.n) * static_cast<double>(sh.k);
        const double elements = static_cast<double>(sh.m * sh.k + sh.k * sh.n + sh.m * sh.n);
        s += elements * 10e-9 + expected_time_repeated_s(flops / rate, c.warmup_count, c.repetition_count, c.min_rep_s);
      }
    }
    return s;
  }

  std::vector<std::string> dtypes(const SuiteConfig& c) const {
    if (!c.gemm_dtypes.empty()) return c.gemm_dtypes;
    std::vector<std::string> d = {"fp32", "fp64"};
#ifdef SEXTANT_HAVE_SBGEMM
    d.push_back("bf16");  // cblas_sbgemm: native bf16 where the CPU has it, else converted to fp32
#endif
    return d;
  }

  SuiteOutput run(const SuiteConfig& c) const override {
    SuiteOutput out;
    const Blas& lib = blas();
    if (!lib.error.empty()) {
      out.notes.push_back("gemm_cpu skipped: " + lib.error);
      return out;
    }
    const int threads = c.effective_threads();
    if (c.timer == Timer::ProcessCpu && threads != 1)
      throw Error(SourceLocation{"", 0, 0, "--timer"}, "the cpu timer sums the CPU time of all threads", "use --threads 1 with --timer cpu");
#ifdef SEXTANT_HAVE_OPENBLAS
    // OpenBLAS's thread count is process-wide; set it for the run and restore it afterwards.
    const int saved_threads = lib.get_num_threads();
    lib.set_num_threads(threads);
    struct Restore {
      const Blas& lib;
      int n;
      ~Restore() { lib.set_num_threads(n); }
    } restore{lib, saved_threads};
#endif
    const auto shapes = gemm_shapes(c.quick);
    const auto dts = dtypes(c);
    size_t done = 0;
    for (const auto& dt : dts) {
      if (dt != "fp32" && dt != "fp64" && dt != "bf16")
        throw Error(SourceLocation{"", 0, 0, "--gemm-dtype"}, "unsupported CPU GEMM dtype '" + dt + "'",
                    valid_choices_hint(dt, {"fp32", "fp64", "bf16"}));
#ifdef SEXTANT_HAVE_SBGEMM
      const bool has_sbgemm = lib.sbgemm != nullptr;
#else
      const bool has_sbgemm = false;
#endif
      if (dt == "bf16" && !has_sbgemm) {
        out.notes.push_back("gemm_cpu bf16 skipped: this BLAS has no cblas_sbgemm (OpenBLAS built without BUILD_BFLOAT16)");
        continue;
      }
      const double peak = c.host.peak_flops(dt, threads);
      if (c.interleave_repetitions) {
        // Every shape's operands at once, warmed up and sized; then repetition r of each shape in turn.
        std::vector<std::unique_ptr<Case>> cases;
        std::vector<Timed> timed(shapes.size());
        for (size_t i = 0; i < shapes.size(); ++i) {
          cases.push_back(make_case(dt, shapes[i]));
          timed[i].inner_count = warm_up_and_size(cases[i]->body, c.warmup_count, c.min_rep_s, 1 << 20, c.timer);
        }
        for (int r = 0; r < c.repetition_count; ++r) {
          if (c.progress)
            c.progress(name(), fmt::format("{} repetition {} of {} (all shapes)", dt, r + 1, c.repetition_count),
                       (static_cast<double>(done) + static_cast<double>(r) / c.repetition_count * static_cast<double>(shapes.size())) /
                           static_cast<double>(shapes.size() * dts.size()));
          for (size_t i = 0; i < shapes.size(); ++i) timed[i].rep_s.push_back(time_repetition(cases[i]->body, timed[i].inner_count, c.timer));
        }
        for (size_t i = 0; i < shapes.size(); ++i) {
          Measurement m = measurement(c, dt, shapes[i], threads, peak, timed[i]);
          m.params.push_back({"repetitions", "interleaved across shapes"});
          out.measurements.push_back(std::move(m));
        }
        done += shapes.size();
        continue;
      }
      for (const auto& s : shapes) {
        if (c.progress)
          c.progress(name(), fmt::format("{} {}x{}x{}", dt, s.m, s.n, s.k),
                     static_cast<double>(done) / static_cast<double>(shapes.size() * dts.size()));
        ++done;
        const auto cs = make_case(dt, s);
        CounterSession counters;
        if (c.counters) counters.start();
        const Timed t = time_repeated(cs->body, c.warmup_count, c.repetition_count, c.min_rep_s, 1 << 20, c.timer);
        std::vector<CounterValue> read;
        if (c.counters) read = counters.stop();
        Measurement m = measurement(c, dt, s, threads, peak, t);
        m.counters = std::move(read);
        out.measurements.push_back(std::move(m));
      }
    }
    if (c.interleave_repetitions && c.counters) out.notes.push_back("gemm_cpu: counters not read per case (repetitions interleaved across shapes)");
    return out;
  }

 private:
  // One shape's operands (random, seeded by the shape) and the BLAS call on them.
  struct Case {
    std::vector<float> af, bf, cf;
    std::vector<double> ad, bd, cd;
    std::vector<uint16_t> ah, bh;
    std::function<void()> body;
  };

  static std::unique_ptr<Case> make_case(const std::string& dt, const Shape& s) {
    auto cs = std::make_unique<Case>();
    Case& x = *cs;
    RandomStream rs(42, static_cast<uint64_t>(s.m * 1000003 + s.n * 1009 + s.k));
    const size_t na = static_cast<size_t>(s.m * s.k), nb = static_cast<size_t>(s.k * s.n), nc = static_cast<size_t>(s.m * s.n);
    const int M = static_cast<int>(s.m), N = static_cast<int>(s.n), K = static_cast<int>(s.k);
    (void)na, (void)nb, (void)nc, (void)M, (void)N, (void)K;
#ifdef SEXTANT_HAVE_CBLAS
    if (dt == "fp32") {
      x.af.resize(na); x.bf.resize(nb); x.cf.assign(nc, 0);
      for (auto& v : x.af) v = static_cast<float>(rs.uniform(-1, 1));
      for (auto& v : x.bf) v = static_cast<float>(rs.uniform(-1, 1));
      x.body = [&x, M, N, K, f = blas().sgemm] { f(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x.af.data(), K, x.bf.data(), N, 0.0f, x.cf.data(), N); };
    } else if (dt == "fp64") {
      x.ad.resize(na); x.bd.resize(nb); x.cd.assign(nc, 0);
      for (auto& v : x.ad) v = rs.uniform(-1, 1);
      for (auto& v : x.bd) v = rs.uniform(-1, 1);
      x.body = [&x, M, N, K, f = blas().dgemm] { f(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, x.ad.data(), K, x.bd.data(), N, 0.0, x.cd.data(), N); };
    }
#endif
#ifdef SEXTANT_HAVE_SBGEMM
    if (dt == "bf16") {
      x.ah.resize(na); x.bh.resize(nb); x.cf.assign(nc, 0);
      for (auto& v : x.ah) v = to_bf16(static_cast<float>(rs.uniform(-1, 1)));
      for (auto& v : x.bh) v = to_bf16(static_cast<float>(rs.uniform(-1, 1)));
      x.body = [&x, M, N, K, f = blas().sbgemm] {
        f(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, reinterpret_cast<const bfloat16*>(x.ah.data()), K,
                     reinterpret_cast<const bfloat16*>(x.bh.data()), N, 0.0f, x.cf.data(), N);
      };
    }
#endif
    return cs;
  }

  Measurement measurement(const SuiteConfig& c, const std::string& dt, const Shape& s, int threads, double peak, const Timed& t) const {
    Measurement m;
    m.suite = name();
    m.name = fmt::format("{} m={} n={} k={}", dt, s.m, s.n, s.k);
    m.metric = "flops_per_s";
    m.higher_is_better = true;
    const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
    for (size_t i = 0; i < t.rep_s.size(); ++i) m.samples.push_back(flops / t.per_call_s(i));
    m.warmup_count = warmups_run(c.warmup_count);  // (at least one runs)
    m.params = {{"dtype", dt},
                {"m", std::to_string(s.m)},
                {"n", std::to_string(s.n)},
                {"k", std::to_string(s.k)},
                {"flops_per_call", fmt::format("{}", flops)},
                {"threads", std::to_string(threads)},
                {"inner_count", std::to_string(t.inner_count)},
                {"timer", to_string(c.timer)},
                {"peak_flops_per_s", fmt::format("{}", peak)},
                {"peak_source", c.host.peak_provenance(dt, threads)},
                {"layout", "row-major, no transpose, beta=0"},
                {"blas", blas_name()}};
    return m;
  }
};

}  // namespace

std::unique_ptr<Suite> make_gemm_cpu_suite() { return std::make_unique<GemmCpuSuite>(); }

void release_blas_worker_threads() {
#ifdef SEXTANT_HAVE_OPENBLAS
  // Only when something (numpy in the Python module, say) has loaded OpenBLAS already: this
  // never loads it. blas_thread_shutdown_ is what OpenBLAS's threaded builds call after fork.
  void* h = dlopen(SEXTANT_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) return;
  using Shutdown = int (*)();
  if (const auto shutdown = reinterpret_cast<Shutdown>(dlsym(h, "blas_thread_shutdown_"))) shutdown();
  dlclose(h);  // drops the reference RTLD_NOLOAD took
#endif
}

}  // namespace sextant::bench
