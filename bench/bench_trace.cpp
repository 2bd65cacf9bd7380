// Trace ingestion and analysis speed (sextant analyze) against HTA's measured timings and
// Perfetto's published 177 MB/s. Prints min and median of 5 runs, MB/s of raw JSON and ratios.
//
//   bench_trace [--size-mb N] [--big-mb N] [--runs N] [--corpus DIR] [--real FILE]...
//
// 0. With --real FILE (repeatable): the scanner alone on real traces. Each file (plain or gzip) is
//    read or inflated once into memory, then scanned in place --runs times on one thread (as
//    `analyze` scans a text held whole), and on two threads (the split scan of a single file);
//    MB/s of raw JSON per core (CPU time) and wall, min and median. --size-mb 0 skips 1-3.
// 1. Ingestion of uncompressed JSON on one thread (synthetic trace of --size-mb).
// 2. End to end from .json.gz (zlib inflating on a second thread).
// 3. `analyze` with all analyses on each public trace and on the 8-rank DLRM job, versus HTA's
//    load+analyses wall time from HTA-TIMINGS.md (HTA's figure includes ~0.5 s of Python start).
// 4. Peak memory (child process RSS) of analyze on a synthetic trace of --big-mb, against the
//    JSON size.
#include <tuple>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "trace/analyze.hpp"
#include "trace/ingest/byte_source.hpp"
#include "trace/ingest/load.hpp"
#include "trace/ingest/scanner.hpp"
#include "trace/synth.hpp"

namespace fs = std::filesystem;
using namespace sextant;
using namespace sextant::trace;

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Stats {
  double min = 0, median = 0;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2]};
}

template <class F>
std::pair<Stats, Stats> timed(int runs, F f) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < runs; ++i) {
    double w0 = now_s(), c0 = cpu_s();
    f();
    wall.push_back(now_s() - w0);
    cpu.push_back(cpu_s() - c0);
  }
  return {stats(wall), stats(cpu)};
}

// Peak RSS (bytes) of f run in a child process.
template <class F>
long child_peak_rss(F f) {
  pid_t pid = fork();
  if (pid == 0) {
    f();
    _exit(0);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  return ru.ru_maxrss * 1024L;
}

std::map<std::string, double> hta_all_wall_s(const std::string& path) {
  std::map<std::string, double> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, '|')) cells.push_back(c);
    if (cells.size() < 9) continue;
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(' '));
      s.erase(s.find_last_not_of(' ') + 1);
      return s;
    };
    std::string name = trim(cells[1]);
    double v = std::atof(trim(cells[8]).c_str());
    if (v > 0) out[name] = v;
  }
  return out;
}

// A text held whole in memory, scanned in place (what a mapped plain file or a gzip member
// inflated by libdeflate gives the scanner).
class InMemorySource final : public ByteSource {
 public:
  explicit InMemorySource(std::string_view text) : text_(text) {}
  size_t read(char* dst, size_t n) override {
    const size_t k = std::min(n, text_.size() - pos_);
    std::copy_n(text_.data() + pos_, k, dst);
    pos_ += k;
    return k;
  }
  bool compressed() const override { return false; }
  std::string_view contiguous() const override { return text_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// Scanner throughput on one real trace (see 0. above).
void bench_real_trace(const std::string& path, int runs) {
  std::string text;
  {
    auto src = open_byte_source(path);
    text = read_all(*src);
  }
  const double raw_mb = static_cast<double>(text.size()) / 1e6;
  size_t events = 0;
  for (int threads : {1, 2}) {
    ScanOptions opt;
    opt.threads = threads;
    std::vector<double> wall, cpu;
    for (int i = 0; i < runs; ++i) {
      RankTrace t;
      InMemorySource src(text);
      const double w0 = now_s(), c0 = cpu_s();
      scan_trace(src, path, t, opt);
      wall.push_back(now_s() - w0);
      cpu.push_back(cpu_s() - c0);
      events = t.size();
    }
    const Stats w = stats(wall), c = stats(cpu);
    std::printf("scan %s (%.1f MB raw JSON, %zu events kept), %d thread%s, %d runs: CPU min %.4f s median %.4f s -> "
                "%.0f / %.0f MB/s per core; wall min %.4f s median %.4f s -> %.0f / %.0f MB/s\n",
                fs::path(path).filename().c_str(), raw_mb, events, threads, threads == 1 ? "" : "s", runs, c.min,
                c.median, raw_mb / c.min, raw_mb / c.median, w.min, w.median, raw_mb / w.min, raw_mb / w.median);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double size_mb = 100, big_mb = 500;
  int runs = 5;
  std::string corpus = std::string(SEXTANT_SOURCE_DIR) + "/../shared/data/traces";  // --corpus DIR overrides
  std::vector<std::string> real;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--size-mb") size_mb = std::atof(argv[i + 1]);
    if (a == "--big-mb") big_mb = std::atof(argv[i + 1]);
    if (a == "--runs") runs = std::atoi(argv[i + 1]);
    if (a == "--corpus") corpus = argv[i + 1];
    if (a == "--real") real.emplace_back(argv[i + 1]);
  }
  for (const auto& path : real) bench_real_trace(path, runs);
  if (!real.empty()) std::printf("\n");
  if (size_mb <= 0) return 0;
  fs::path tmp = fs::temp_directory_path() / ("sextant_bench_trace_" + std::to_string(getpid()));
  fs::create_directories(tmp);

  // 1-2. Synthetic trace, plain and gzip.
  SynthOptions o;
  o.ranks = 1;
  o.target_bytes_per_rank = size_mb * 1e6;
  write_synthetic_traces((tmp / "plain").string(), o, 1);
  o.gzip = true;
  write_synthetic_traces((tmp / "gz").string(), o, 1);
  std::string plain = (tmp / "plain" / "rank-0.json").string(), gz = (tmp / "gz" / "rank-0.json.gz").string();
  double raw_mb = static_cast<double>(fs::file_size(plain)) / 1e6;
  std::printf("synthetic trace: %.1f MB raw JSON, %.1f MB gzip\n\n", raw_mb, static_cast<double>(fs::file_size(gz)) / 1e6);

  auto [w1, c1] = timed(runs, [&] { load_trace_file(plain); });
  std::printf("ingest plain JSON, 1 thread : wall min %.3f s median %.3f s -> %.0f MB/s (median %.0f); CPU %.3f s -> %.0f MB/s per core\n",
              w1.min, w1.median, raw_mb / w1.min, raw_mb / w1.median, c1.min, raw_mb / c1.min);
  std::printf("   vs Perfetto trace processor 177 MB/s: x%.1f (wall, median), x%.1f (per core CPU)\n",
              raw_mb / w1.median / 177.0, raw_mb / c1.min / 177.0);
  std::printf("   vs HTA parsing 13-19 MB/s: x%.0f-%.0f\n", raw_mb / w1.median / 19.0, raw_mb / w1.median / 13.0);
  auto [w2, c2] = timed(runs, [&] { load_trace_file(gz); });
  std::printf("ingest .json.gz (inflate thread + parse): wall min %.3f s median %.3f s -> %.0f MB/s raw JSON (median %.0f); CPU %.3f s\n\n",
              w2.min, w2.median, raw_mb / w2.min, raw_mb / w2.median, c2.min);

  // 3. Public traces against HTA.
  auto hta = hta_all_wall_s(corpus + "/HTA-TIMINGS.md");
  if (!hta.empty()) {
    std::printf("%-80s %8s %10s %10s %8s\n", "trace (analyze, all analyses)", "raw MB", "sextant s", "HTA s", "ratio");
    std::vector<std::pair<std::string, std::string>> items;
    for (const char* g : {"hta", "param"}) {
      for (const auto& [name, secs] : hta) {
        std::string rel = name;
        for (size_t p; (p = rel.find("__")) != std::string::npos;) rel.replace(p, 2, "/");
        std::string path = corpus + "/" + g + "/" + rel + ".json.gz";
        if (fs::exists(path)) items.emplace_back(name, path);
      }
    }
    std::string job = corpus + "/param/dlrm_8rank";
    for (const auto& [k, v] : hta)
      if (k.find("8 ranks") != std::string::npos && fs::is_directory(job)) items.emplace_back(k, job);
    double worst = 1e9;
    for (const auto& [name, path] : items) {
      AnalyzeRequest req;
      req.inputs = {path};
      double mb = 0;
      Stats w, c;
      try {
        std::tie(w, c) = timed(runs, [&] {
          Result r = analyze(req);
          mb = r.number("raw_json_bytes") / 1e6;
        });
      } catch (const std::exception& e) {  // e.g. an execution trace (not Kineto) listed in HTA's timings
        std::printf("%-80s skipped: %s\n", name.c_str(), e.what());
        continue;
      }
      double ratio = hta[name] / w.median;
      worst = std::min(worst, ratio);
      std::printf("%-80s %8.2f %10.4f %10.2f %7.0fx\n", name.c_str(), mb, w.median, hta[name], ratio);
    }
    std::printf("smallest speed-up over HTA (wall, median of %d): %.0fx\n\n", runs, worst);
  } else {
    std::printf("(HTA-TIMINGS.md not found under %s: HTA comparison skipped)\n\n", corpus.c_str());
  }

  // 4. Peak memory on a big synthetic trace.
  if (big_mb > 0) {
    SynthOptions b;
    b.ranks = 1;
    b.target_bytes_per_rank = big_mb * 1e6;
    write_synthetic_traces((tmp / "big").string(), b, 1);
    std::string big = (tmp / "big" / "rank-0.json").string();
    double big_raw = static_cast<double>(fs::file_size(big));
    long rss = child_peak_rss([&] {
      AnalyzeRequest req;
      req.inputs = {big};
      analyze(req);
    });
    long base = child_peak_rss([] {});
    // The child shares the bench process's resident pages (the baseline); a standalone
    // `sextant analyze` process does not carry them.
    std::printf("peak RSS of analyze on %.0f MB JSON: %.0f MB, %.0f MB net of the bench process's %.0f MB baseline "
                "= %.2f x JSON size (target <= 0.5)\n",
                big_raw / 1e6, static_cast<double>(rss) / 1e6, static_cast<double>(rss - base) / 1e6,
                static_cast<double>(base) / 1e6, static_cast<double>(rss - base) / big_raw);
  }
  fs::remove_all(tmp);
  return 0;
}
