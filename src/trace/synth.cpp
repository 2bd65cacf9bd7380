#include "trace/synth.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "core/c_locale.hpp"
#include "core/error.hpp"
#include "core/random.hpp"
#include "core/threads.hpp"

namespace sextant::trace {

namespace {

// Per (rank, step): duration of each compute kernel in ns. Counter-based: value k of stream
// (seed, rank) is kernel k of that rank, whatever else is generated.
double kernel_ns(const SynthOptions& o, int64_t rank, int64_t step, int64_t layer) {
  RandomStream rs(o.seed, static_cast<uint64_t>(rank));
  rs.seek(static_cast<uint64_t>((step * o.layers + layer) * 4));
  double mu = std::log(o.kernel_mean_us * 1000.0) - 0.5 * o.kernel_sigma * o.kernel_sigma;
  return std::max(2000.0, rs.lognormal(mu, o.kernel_sigma));
}

constexpr int64_t kCpuPerLayerNs = 9000;   // CPU time per layer (op + launch)
constexpr int64_t kLaunchNs = 4000;        // cudaLaunchKernel duration
constexpr int64_t kLaunchLatencyNs = 2000; // launch end to earliest kernel start
constexpr int64_t kStepGapNs = 50000;      // between a step's all-reduce end and the next step

bool is_straggler(const SynthOptions& o, int64_t r) {
  return std::find(o.straggler_ranks.begin(), o.straggler_ranks.end(), r) != o.straggler_ranks.end();
}

// Time (ns from step start) at which rank r's compute stream finishes step s.
int64_t arrival_ns(const SynthOptions& o, int64_t r, int64_t s) {
  int64_t cpu = 100000 + (is_straggler(o, r) ? static_cast<int64_t>(o.straggler_delay_us * 1000) : 0);
  int64_t stream_free = 0;
  for (int64_t l = 0; l < o.layers; ++l) {
    int64_t launch_end = cpu + 1000 + kLaunchNs;
    int64_t start = std::max(stream_free, launch_end + kLaunchLatencyNs);
    stream_free = start + static_cast<int64_t>(kernel_ns(o, r, s, l));
    cpu += kCpuPerLayerNs;
  }
  return stream_free;
}

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const std::string& s) = 0;
};
class StringSink final : public Sink {
 public:
  std::string out;
  void write(const std::string& s) override { out += s; }
};
class FileSink final : public Sink {
 public:
  FileSink(const std::string& path, bool gz) : path_(path), gz_(gz) {
    if (gz) {
      g_ = gzopen(path.c_str(), "wb6");
      if (!g_) throw Error(SourceLocation{path, 0, 0, ""}, "cannot write synthetic trace");
    } else {
      f_ = std::fopen(path.c_str(), "wb");
      if (!f_) throw Error(SourceLocation{path, 0, 0, ""}, "cannot write synthetic trace");
    }
    buf_.reserve(1 << 20);
  }
  // Not closed (an error on the way): the partial file is removed, and nothing here throws (a
  // flush that threw again while the stack unwound terminated the process before 2026-12-03).
  ~FileSink() override {
    if (!g_ && !f_) return;
    buf_.clear();
    if (g_) gzclose(g_);
    if (f_) std::fclose(f_);
    std::remove(path_.c_str());
  }
  uint64_t written = 0;
  void write(const std::string& s) override {
    written += s.size();
    buf_ += s;
    if (buf_.size() >= (1 << 20)) flush();
  }
  void close() {
    flush();
    // Closing writes what the library still buffers: its failure is a failed write too.
    const bool ok = g_ ? gzclose(g_) == Z_OK : std::fclose(f_) == 0;
    g_ = nullptr;
    f_ = nullptr;
    if (!ok) {
      std::remove(path_.c_str());
      throw Error(SourceLocation{path_, 0, 0, ""}, "write failed (disk full?)");
    }
  }

 private:
  void flush() {
    if (buf_.empty()) return;
    bool ok = gz_ ? gzwrite(g_, buf_.data(), static_cast<unsigned>(buf_.size())) == static_cast<int>(buf_.size())
                  : std::fwrite(buf_.data(), 1, buf_.size(), f_) == buf_.size();
    if (!ok) throw Error(SourceLocation{path_, 0, 0, ""}, "write failed (disk full?)");
    buf_.clear();
  }
  std::string path_;
  bool gz_;
  gzFile g_ = nullptr;
  FILE* f_ = nullptr;
  std::string buf_;
};

class Writer {
 public:
  Writer(const SynthOptions& o, int64_t rank, Sink& sink, const std::vector<int64_t>& step_start,
         const std::vector<int64_t>& coll_end)
      : o_(o), rank_(rank), sink_(sink), step_start_(step_start), coll_end_(coll_end) {}

  uint64_t run() {
    char head[512];
    std::snprintf(head, sizeof head,
                  "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}],\n"
                  "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %lld, \"world_size\": %lld},\n"
                  "  \"traceEvents\": [\n",
                  static_cast<long long>(rank_), static_cast<long long>(o_.ranks));
    sink_.write(head);
    for (size_t s = 0; s < step_start_.size(); ++s) step(static_cast<int64_t>(s));
    sink_.write("\n  ],\n  \"traceName\": \"sextant synthetic trace\"\n}\n");
    return events_;
  }

 private:
  std::string ts(int64_t ns) const {
    char b[40];
    // A rank's clock runs ahead by rank * clock_skew_us (injected skew; 0 by default).
    int64_t abs_ns = base_ns_ + ns + static_cast<int64_t>(std::llround(o_.clock_skew_us * 1000.0)) * rank_;
    if (o_.float_timestamps) {
      std::snprintf(b, sizeof b, "%lld.%03lld", static_cast<long long>(abs_ns / 1000), static_cast<long long>(abs_ns % 1000));
    } else {
      std::snprintf(b, sizeof b, "%lld", static_cast<long long>(abs_ns / 1000));
    }
    return b;
  }
  std::string dur(int64_t ns) const {
    char b[40];
    if (o_.float_timestamps) {
      std::snprintf(b, sizeof b, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    } else {
      std::snprintf(b, sizeof b, "%lld", static_cast<long long>(ns / 1000));
    }
    return b;
  }
  void ev(const std::string& body) {
    sink_.write(first_ ? "    " : ",\n    ");
    first_ = false;
    sink_.write(body);
    ++events_;
  }
  void x(const char* cat, const std::string& name, int64_t pid, int64_t tid, int64_t t0, int64_t d,
         const std::string& args) {
    ev("{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name + "\", \"pid\": " +
       std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": " + ts(t0) + ", \"dur\": " + dur(d) +
       ", \"args\": {" + args + "}}");
  }

  void step(int64_t s) {
    const int64_t pid = 1000 + rank_, tid = 1000 + rank_;
    const int64_t T = step_start_[static_cast<size_t>(s)];
    int64_t cpu = T + 100000 + (is_straggler(o_, rank_) ? static_cast<int64_t>(o_.straggler_delay_us * 1000) : 0);
    int64_t step_end = coll_end_[static_cast<size_t>(s)] + 20000;
    x("user_annotation", "ProfilerStep#" + std::to_string(s), pid, tid, T, step_end - T,
      "\"External id\": " + std::to_string(++ext_));
    // Input copy.
    int64_t corr = ++corr_;
    x("cuda_runtime", "cudaMemcpyAsync", pid, tid, T + 10000, 8000,
      "\"External id\": " + std::to_string(ext_) + ", \"cbid\": 41, \"correlation\": " + std::to_string(corr));
    x("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, T + 20000, 30000,
      "\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": " + std::to_string(corr) +
          ", \"bytes\": 4194304, \"memory bandwidth (GB/s)\": 139.8");
    int64_t stream_free = T + 50000;
    for (int64_t l = 0; l < o_.layers; ++l) {
      int64_t e = ++ext_;
      corr = ++corr_;
      // Every third kernel is a GELU, launched by its own aten::gelu (it ran under aten::mm, and
      // analyze counted it as a cast or copy); a GEMM's shapes follow from its drawn duration at
      // 60% of the H100's dense bf16 peak, with its dtype, so that no operator runs above the roof
      // (4096^3 GEMMs of 100 us read as 1.2 PFLOP/s, an fp32 roofline fraction of 17.9, before
      // 2026-12-03).
      const int64_t kd = static_cast<int64_t>(kernel_ns(o_, rank_, s, l));
      const bool gelu = l % 3 == 2;
      std::string op_args = "\"External id\": " + std::to_string(e);
      if (gelu) {
        op_args += ", \"Input Dims\": [[4096, 1024]], \"Input type\": [\"c10::BFloat16\"]";
      } else {
        const double k = std::round(static_cast<double>(kd) * 1e-9 * 0.6 * 989.4e12 / (2.0 * 4096 * 4096) / 64) * 64;
        const std::string K = std::to_string(static_cast<int64_t>(std::clamp(k, 64.0, 1048576.0)));
        op_args += ", \"Input Dims\": [[4096, " + K + "], [" + K + ", 4096]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"]";
      }
      x("cpu_op", gelu ? "aten::gelu" : "aten::mm", pid, tid, cpu, kCpuPerLayerNs - 1000, op_args);
      int64_t launch = cpu + 1000;
      x("cuda_runtime", "cudaLaunchKernel", pid, tid, launch, kLaunchNs,
        "\"External id\": " + std::to_string(e) + ", \"cbid\": 211, \"correlation\": " + std::to_string(corr));
      int64_t start = std::max(stream_free, launch + kLaunchNs + kLaunchLatencyNs);
      std::string kname = gelu ? "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int)"
                                     : "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
      x("kernel", kname, 0, 7, start, kd,
        "\"External id\": " + std::to_string(e) +
            ", \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": " + std::to_string(corr) +
            ", \"registers per thread\": 168, \"shared memory\": 213248, \"blocks per SM\": 1, \"warps per SM\": 4, "
            "\"grid\": [132, 1, 1], \"block\": [384, 1, 1], \"est. achieved occupancy %\": 6");
      stream_free = start + kd;
      cpu += kCpuPerLayerNs;
    }
    // All-reduce: launched after the last layer, starts when the compute stream is done,
    // ends when the last rank has arrived and the transfer is complete.
    int64_t e = ++ext_;
    corr = ++corr_;
    x("user_annotation", "nccl:all_reduce", pid, tid, cpu, 20000,
      "\"External id\": " + std::to_string(e) + ", \"Input Dims\": [[" +
          std::to_string(static_cast<int64_t>(o_.allreduce_bytes / 2)) + "]], \"Input type\": [\"c10::BFloat16\"]");
    x("cuda_runtime", "cudaLaunchKernel", pid, tid, cpu + 2000, kLaunchNs,
      "\"External id\": " + std::to_string(e) + ", \"cbid\": 211, \"correlation\": " + std::to_string(corr));
    int64_t cstart = std::max(stream_free, cpu + 2000 + kLaunchNs + kLaunchLatencyNs);
    int64_t cend = std::max(coll_end_[static_cast<size_t>(s)], cstart + 1000);
    x("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 0, 13, cstart,
      cend - cstart,
      "\"External id\": " + std::to_string(e) + ", \"device\": 0, \"context\": 1, \"stream\": 13, \"correlation\": " +
          std::to_string(corr) +
          ", \"Collective name\": \"allreduce\", \"In msg nelems\": " +
          std::to_string(static_cast<int64_t>(o_.allreduce_bytes / 2)) + ", \"Out msg nelems\": " +
          std::to_string(static_cast<int64_t>(o_.allreduce_bytes / 2)) + ", \"Group size\": " +
          std::to_string(o_.ranks) + ", \"dtype\": \"BFloat16\", \"Process Group Name\": \"0\", \"Seq\": " +
          std::to_string(s));
    // The step waits for the GPU before it ends (the loss read back, the optimizer's clip-norm
    // check), as a training step does: a cudaStreamSynchronize returning 5 us after the all-reduce.
    // Without it the host ran on past the GPU and every step's path was a trailing host gap, so no
    // what-if on these traces could show a change (2026-12-04 review).
    const int64_t sync_at = cpu + 2000 + kLaunchNs + 1000;
    if (cend + 5000 > sync_at) {
      corr = ++corr_;
      x("cuda_runtime", "cudaStreamSynchronize", pid, tid, sync_at, cend + 5000 - sync_at,
        "\"External id\": " + std::to_string(e) + ", \"cbid\": 131, \"correlation\": " + std::to_string(corr));
    }
  }

  const SynthOptions& o_;
  int64_t rank_;
  Sink& sink_;
  const std::vector<int64_t>& step_start_;
  const std::vector<int64_t>& coll_end_;
  const int64_t base_ns_ = 1700000000000000000LL;  // an epoch-like origin (ns)
  bool first_ = true;
  uint64_t events_ = 0;
  int64_t ext_ = 0, corr_ = 0;
};

// Step start times and all-reduce end times (ns from the origin), shared by all ranks.
void timeline(const SynthOptions& o, int64_t steps, std::vector<int64_t>& start, std::vector<int64_t>& cend) {
  const double comm_ns = o.allreduce_bytes * 2.0 * (static_cast<double>(o.ranks) - 1) /
                         std::max<double>(1.0, static_cast<double>(o.ranks)) / o.link_bytes_per_s * 1e9;
  int64_t T = 0;
  start.clear();
  cend.clear();
  for (int64_t s = 0; s < steps; ++s) {
    int64_t last = 0;
    for (int64_t r = 0; r < o.ranks; ++r) last = std::max(last, arrival_ns(o, r, s));
    start.push_back(T);
    int64_t end = T + last + static_cast<int64_t>(comm_ns) + 30000;
    cend.push_back(end);
    T = end + kStepGapNs;
  }
}

}  // namespace

int64_t synth_steps(const SynthOptions& opt) {
  if (opt.steps > 0) return opt.steps;
  SynthOptions one = opt;
  one.steps = 1;
  one.ranks = 1;
  one.straggler_ranks.clear();
  std::string s = synth_rank_json(one, 0);
  double per_step = static_cast<double>(s.size());
  return std::max<int64_t>(1, static_cast<int64_t>(std::llround(opt.target_bytes_per_rank / per_step)));
}

std::string synth_rank_json(const SynthOptions& opt, int64_t rank) {
  int64_t steps = opt.steps > 0 ? opt.steps : synth_steps(opt);
  std::vector<int64_t> start, cend;
  timeline(opt, steps, start, cend);
  StringSink sink;
  Writer w(opt, rank, sink, start, cend);
  w.run();
  return sink.out;
}

std::vector<SynthFile> write_synthetic_traces(const std::string& dir, const SynthOptions& opt, int threads) {
  if (opt.ranks < 1) throw Error(SourceLocation{"", 0, 0, "ranks"}, "ranks must be at least 1");
  if (opt.layers < 1) throw Error(SourceLocation{"", 0, 0, "layers"}, "layers must be at least 1");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(SourceLocation{dir, 0, 0, ""}, "cannot create output directory: " + ec.message());
  // Rank files of an earlier run that this one would not overwrite would be read with it as one
  // job (4 ranks of 2 steps beside 2 of 3, "ranks from different jobs?", before 2026-12-03).
  {
    std::vector<std::string> stale;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("rank-", 0) != 0) continue;
      const size_t dot = n.find('.', 5);
      const std::string num = n.substr(5, dot == std::string::npos ? std::string::npos : dot - 5);
      const std::string ext = dot == std::string::npos ? "" : n.substr(dot);
      if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || (ext != ".json" && ext != ".json.gz")) continue;
      const bool overwritten = num.size() < 10 && std::stoll(num) < opt.ranks && ext == (opt.gzip ? ".json.gz" : ".json");
      if (!overwritten) stale.push_back(n);
    }
    std::sort(stale.begin(), stale.end());
    if (!stale.empty())
      throw Error(SourceLocation{dir, 0, 0, "--out"},
                  "holds rank files this run would not replace (" + stale.front() + (stale.size() > 1 ? " and " + std::to_string(stale.size() - 1) + " more" : "") +
                      "): they would be read as ranks of the same job",
                  "give an empty or new folder, or remove them");
  }
  int64_t steps = synth_steps(opt);
  std::vector<int64_t> start, cend;
  timeline(opt, steps, start, cend);
  std::vector<SynthFile> files(static_cast<size_t>(opt.ranks));
  std::vector<std::exception_ptr> errs(files.size());
  std::atomic<size_t> next{0};
  int n = threads > 0 ? threads : usable_cpus();
  n = std::min<int>(n, static_cast<int>(files.size()));
  auto work = [&] {
    const CNumericLocale c_numbers;
    for (size_t i; (i = next.fetch_add(1)) < files.size();) {
      try {
        auto r = static_cast<int64_t>(i);
        std::string path = dir + "/rank-" + std::to_string(r) + (opt.gzip ? ".json.gz" : ".json");
        FileSink sink(path, opt.gzip);
        Writer w(opt, r, sink, start, cend);
        files[i].events = w.run();
        sink.close();
        files[i].raw_bytes = sink.written;
        files[i].path = path;
        files[i].rank = r;
      } catch (...) {
        errs[i] = std::current_exception();
      }
    }
  };
  run_workers(n, [&](int) { work(); });
  for (auto& e : errs)
    if (e) {
      // No partial job: the ranks written before the failure go too (they would read as a job
      // with ranks missing).
      for (const auto& f : files)
        if (!f.path.empty()) std::remove(f.path.c_str());
      std::rethrow_exception(e);
    }
  return files;
}

}  // namespace sextant::trace
