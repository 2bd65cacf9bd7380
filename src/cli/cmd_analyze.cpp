// sextant analyze TRACE... : analysis of PyTorch profiler (Kineto) traces. See docs/trace-analysis.md.
#include <memory>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.hpp"
// mpirun support comes with cli/mpi_world.hpp (the plan/sweep MPI world); a tree without it
// analyses in one process.
#if __has_include("cli/mpi_world.hpp")
#include "cli/mpi_world.hpp"
#define SEXTANT_ANALYZE_MPI 1
#endif
#include "core/error.hpp"
#include "trace/analyze.hpp"
#include "trace/diff.hpp"
#include "trace/ingest/cache.hpp"
#include "trace/replay/graph.hpp"

namespace sextant::cli {

namespace {
struct AnalyzeArgs {
  std::vector<std::string> inputs;
  std::string compat = "sextant";
  std::vector<std::string> only;
  int threads = 0;
  bool per_launch = false;
  bool diff = false;
  // A real number of microseconds: HTA's kernel-delay cutoff is a plain Python number, and 2.5 had
  // been refused as "Could not convert" while -5 was told "must be a number >= 0" (2026-12-06 review).
  double kernel_delay_us = 30;
  int64_t max_inflate_bytes = trace::kDefaultInflateLimit;
  int stragglers = 2;
  std::string catalog_dir;
  int top = 10;
  std::vector<std::string> scales;
  std::vector<std::string> drop_gaps;
  double unexplained_gap_us = 10;
  int critical_path_rows = 40;
  int64_t sequence_depth = 0;
  double gap_threshold_us = 100;
  std::string device;
  bool no_clock_sync = false;
  bool cache = false;
  std::string cache_dir;
  OutputOptions out;
};

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto a = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand(
      "analyze",
      "Analyze PyTorch profiler (Kineto) traces: one file, several, or directories of per-rank files (.json or "
      ".json.gz).\nTemporal, idle-time, kernel and overlap breakdowns, launch statistics, queue length, collectives "
      "across ranks and stragglers, iterations, memory. --compat hta reproduces Holistic Trace Analysis' numbers "
      "and CSV names.");
  cmd->add_option("traces", a->inputs, "Trace files or directories (one file per rank)")->required();
  cmd->add_option("--compat", a->compat, "Rule set: sextant (default) or hta (HTA's loader and definitions)")
      ->check(CLI::IsMember({"sextant", "hta"}));
  cmd->add_option("--only", a->only,
                  "Run only these analyses (repeatable, or comma-separated): temporal_breakdown, comm_comp_overlap, kernel_breakdown, "
                  "idle_time, launch_stats, queue_length, collectives, iterations, memory_timeline, critical_path, whatif, "
                  "findings, workload, memcpy_bandwidth, kernel_sequences, user_annotations, clock_skew")
      ->delimiter(',');
  cmd->add_option("--threads", a->threads, "Threads for reading ranks in parallel (default 0: the CPUs this process may use)")->check(count_check(0, INT_MAX, "NONNEGATIVE"));
  cmd->add_flag("--diff", a->diff,
                "Compare two traces (or two directories): kernels and operators added, removed, slower, faster");
  cmd->add_flag("--per-launch", a->per_launch, "Also list every kernel launch (always on with --compat hta)");
  cmd->add_option("--kernel-delay-us", a->kernel_delay_us, "Idle gaps shorter than this many microseconds (a real number, e.g. 2.5) are kernel waits (default 30)")
      ->check(finite_non_negative());
  auto* o_stragglers = cmd->add_option("--stragglers", a->stragglers, "Straggler candidates reported with --compat hta (default 2)")->check(count_check(1, INT_MAX, "POSITIVE"));
  CLI::Option* o_top = cmd->add_option("--top", a->top, "Top kernels listed (default 10; with --diff, rows per table, default 50)")
                           ->check(count_check(1, INT_MAX, "POSITIVE"));
  cmd->add_option("--max-inflate-bytes", a->max_inflate_bytes,
                  "Decompression limit per .gz file in bytes (gzip-bomb guard; 0: no limit; default: the larger of "
                  "1 GiB and 100x the compressed size)")
      ->check(count_check(0, INT64_MAX, "NONNEGATIVE"));
  cmd->add_option("--scale", a->scales,
                  "What-if replay: scale a class of work (repeatable): comm=F, compute=F, memcpy=F, gpu=F, host=F, "
                  "launch=F, 'kernel:REGEX=F' (GPU events whose name matches REGEX, case-insensitive)");
  cmd->add_option("--drop-gaps", a->drop_gaps, "What-if replay: remove host gaps (host) or GPU ordering slack (gpu)")
      ->check(CLI::IsMember({"host", "gpu"}));
  cmd->add_option("--unexplained-gap-us", a->unexplained_gap_us,
                  "Replay: slack on a GPU ordering edge above this is unexplained (default 10)")
      ->check(finite_non_negative());
  cmd->add_option("--critical-path-rows", a->critical_path_rows,
                  "Longest critical-path segments listed per iteration (default 40, 0: all)")
      ->check(count_check(0, INT_MAX, "NONNEGATIVE"));
  cmd->add_option("--sequence-depth", a->sequence_depth,
                  "Kernel sequences: nesting depth of the cpu_op whose launches form a sequence (default 0: top level)")
      ->check(count_check(0, INT64_MAX, "NONNEGATIVE"));
  cmd->add_option("--gap-threshold-us", a->gap_threshold_us, "Findings: GPU idle gaps longer than this (default 100)")
      ->check(finite_non_negative());
  cmd->add_flag("--cache", a->cache,
                "Keep a compact per-rank cache next to each trace (<file>.sxcache); a later run on the unchanged "
                "file reads it instead of parsing");
  cmd->add_option("--cache-dir", a->cache_dir, "Keep the per-rank caches in this directory (implies --cache)");
  cmd->add_flag("--no-clock-sync", a->no_clock_sync,
                "Do not correct clock skew across ranks from the ends of matched collectives");
  // A calibrated entry lives in a catalog folder of its own (calibrate --out): --device can name it.
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder --device and the trace's device name are looked up in (default: the bundled one)");
  cmd->add_option("--device", a->device,
                  "Catalog device for the roofline (e.g. h100-sxm-80gb); default: from the trace's deviceProperties");
  // --diff compares kernels and operators only: the options of the analyses are refused with it
  // (`--diff --compat hta` said nothing and ran Sextant's rules, 2026-12-03 review).
  if (CLI::Option* d = cmd->get_option_no_throw("--diff"))
    for (const char* name : {"--compat", "--only", "--per-launch", "--kernel-delay-us", "--stragglers", "--scale", "--drop-gaps",
                             "--unexplained-gap-us", "--critical-path-rows", "--sequence-depth", "--gap-threshold-us", "--cache",
                             "--cache-dir", "--no-clock-sync", "--catalog", "--device"})
      if (CLI::Option* o = cmd->get_option_no_throw(name)) d->excludes(o);
  add_output_options(*cmd, a->out);
  cmd->callback([a, o_top, o_stragglers] {
#ifdef __GLIBC__
    // A fixed mmap threshold (glibc's default, 128 KiB) for this process: every large array
    // (columns, frames, per-analysis working sets, result columns) gets its own mapping that goes
    // back to the system when freed. By default glibc raises the threshold to the size of each
    // large block freed, so the next analyses' arrays land in the heap, whose freed middle is
    // neither returned nor always reused: 50 MB synthetic traces peaked 2.1-2.4 MB higher.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    if (a->diff) {
      if (a->inputs.size() != 2)
        throw Error(SourceLocation{"", 0, 0, "--diff"}, "--diff takes exactly two traces (A B), got " +
                                                          std::to_string(a->inputs.size()));
      // A diff is not divided across MPI ranks: rank 0 runs it alone, as main() does for the
      // commands that do not divide their work (every rank had printed and written it: 2026-12-04).
#ifdef SEXTANT_ANALYZE_MPI
      if (MpiWorld::launched_by_mpirun()) {
        if (MpiWorld::launcher_rank() > 0) return;
        std::fprintf(stderr, "sextant: note: 'analyze --diff' does not divide its work across MPI ranks: rank 0 runs it alone\n");
      }
#endif
      trace::LoadOptions lo;
      lo.threads = a->threads;
      lo.scan.max_inflate_bytes = a->max_inflate_bytes;
      auto A = trace::load_traces({a->inputs[0]}, lo);
      auto B = trace::load_traces({a->inputs[1]}, lo);
      trace::DiffOptions d;
      // --top as given (a value up to 10 had meant 50 rows, 11 meant 11)
      d.top = o_top->count() ? a->top : 50;
      emit(trace::diff_traces(A, B, d), a->out);
      return;
    }
    // HTA's straggler count means nothing to Sextant's rules (it was ignored, exit 0).
    if (o_stragglers->count() && a->compat != "hta")
      throw Error(SourceLocation{"", 0, 0, "--stragglers"}, "applies with --compat hta (HTA's straggler candidates)",
                  "add --compat hta, or leave it out (the stragglers table ranks every rank)");
    trace::AnalyzeRequest req;
    req.inputs = a->inputs;
    req.only = a->only;
    req.options.hta = a->compat == "hta";
    req.options.per_launch_rows = a->per_launch;
    req.options.consecutive_kernel_delay_us = a->kernel_delay_us;
    req.options.straggler_candidates = a->stragglers;
    req.options.catalog_dir = a->catalog_dir;
    req.options.top_kernels = a->top;
    // HTA's num_kernels (get_gpu_kernel_breakdown) too: --top had no effect under --compat hta,
    // whose tables keep the named kernels of each type (2026-12-05 review).
    req.options.num_kernels = a->top;
    req.load.threads = a->threads;
    req.load.scan.max_inflate_bytes = a->max_inflate_bytes;
    for (const auto& sc : a->scales) (void)trace::replay::parse_scale(sc);  // errors before loading
    req.options.scales = a->scales;
    for (const auto& d : a->drop_gaps) {
      if (d == "host") req.options.drop_host_gaps = true;
      if (d == "gpu") req.options.drop_gpu_gaps = true;
    }
    req.options.unexplained_gap_us = a->unexplained_gap_us;
    req.options.critical_path_rows = a->critical_path_rows;
    req.options.sequence_depth = a->sequence_depth;
    req.options.top_sequences = a->top;
    req.options.gpu_gap_threshold_us = a->gap_threshold_us;
    req.options.device = a->device;
    req.options.clock_sync = !a->no_clock_sync;
    req.load.cache = a->cache;
    req.load.cache_dir = a->cache_dir;
#ifdef SEXTANT_ANALYZE_MPI
    const MpiWorld world;
    if (world.size() > 1) {
      // Under mpirun: each process parses its share of the rank files (file i goes to process
      // i mod N), the ranks are gathered in their compact binary form, and process 0 analyses
      // the whole job and prints exactly what one process would.
      auto t0 = std::chrono::steady_clock::now();
      const auto files = trace::expand_trace_paths(req.inputs);
      // Every process must read the same rank files: one whose inputs name other files (a relative
      // path on another node, other options) had its share merged into the job without a word
      // (review of 2026-12-06). Each file is compared by its path, size and first and last 64 KiB.
      {
        Fnv1a64 list;
        for (const auto& f : files) list.add_text(f);
        std::vector<InputPart> parts = {command_line_part(), {"the list of trace files (rank 0 has " +
                                                                  std::to_string(files.size()) + ")", list.value()}};
        for (const auto& f : files) {
          Fnv1a64 h;
          h.add_text(f);
          h.add_u64(file_ends_hash(f));
          parts.push_back({"the trace file " + f, h.value()});
        }
        world.require_same_inputs(parts, "give every process the same options and the same trace files: paths that hold the same files on "
                                         "every node, such as absolute ones on a shared file system");
      }
      std::vector<std::string> mine;
      std::vector<uint64_t> mine_idx;
      for (size_t i = 0; i < files.size(); ++i)
        if (static_cast<int>(i % static_cast<size_t>(world.size())) == world.rank()) {
          mine.push_back(files[i]);
          mine_idx.push_back(i);
        }
      auto put_u64 = [](std::string& b, uint64_t v) { b.append(reinterpret_cast<const char*>(&v), sizeof v); };
      std::string blob;
      try {
        int64_t my_hits = 0;
        auto loaded = trace::load_rank_files(mine, req.load, &my_hits);
        // This process's cache hits, summed by process 0 (they were dropped: 0 hits where a plain
        // run reads 8; review of 2026-12-05).
        blob.push_back('H');
        put_u64(blob, 0);
        put_u64(blob, sizeof(uint64_t));
        put_u64(blob, static_cast<uint64_t>(my_hits));
        for (size_t k = 0; k < loaded.size(); ++k) {
          if (loaded[k].load_error) {
            // The file's own error travels as text: process 0 decides as one process would.
            std::string msg;
            try {
              std::rethrow_exception(loaded[k].load_error);
            } catch (const std::exception& e) {
              msg = e.what();
            }
            blob.push_back('F');
            put_u64(blob, mine_idx[k]);
            put_u64(blob, msg.size());
            blob += msg;
            continue;
          }
          std::string bytes = trace::serialize_rank(loaded[k]);
          blob.push_back('R');
          put_u64(blob, mine_idx[k]);
          put_u64(blob, bytes.size());
          blob += bytes;
        }
      } catch (...) {
        // Whatever it is, it reaches process 0 (an exception escaping here would leave the other
        // processes waiting in the gather).
        std::string msg = "unknown error";
        try {
          throw;
        } catch (const std::exception& e) {
          msg = e.what();
        } catch (...) {
        }
        blob.assign(1, 'E');
        put_u64(blob, mine_idx.empty() ? 0 : mine_idx.front());
        put_u64(blob, msg.size());
        blob += msg;
      }
      const std::string all = world.all_gather(blob);
      std::vector<trace::RankTrace> loaded(files.size());
      std::vector<char> have(files.size(), 0);
      int64_t cache_hits = 0;
      size_t pos = 0;
      auto get_u64 = [&](uint64_t& v) {
        if (all.size() - pos < sizeof v) throw Error("mpirun: damaged gather buffer");
        std::memcpy(&v, all.data() + pos, sizeof v);
        pos += sizeof v;
      };
      while (pos < all.size()) {
        char tag = all[pos++];
        uint64_t idx = 0, len = 0;
        get_u64(idx);
        get_u64(len);
        if (len > all.size() - pos || idx >= std::max<size_t>(files.size(), 1)) throw Error("mpirun: damaged gather buffer");
        std::string payload = all.substr(pos, len);
        pos += len;
        if (tag == 'E') throw Error(payload);
        if (tag == 'H') {
          if (payload.size() != sizeof(uint64_t)) throw Error("mpirun: damaged gather buffer");
          uint64_t h = 0;
          std::memcpy(&h, payload.data(), sizeof h);
          cache_hits += static_cast<int64_t>(h);
          continue;
        }
        if (tag == 'F') {
          loaded[idx] = trace::RankTrace{};
          loaded[idx].file = files[idx];
          loaded[idx].load_error = std::make_exception_ptr(Error(payload));
          have[idx] = 1;
          continue;
        }
        loaded[idx] = trace::deserialize_rank(payload, files[idx]);
        loaded[idx].file = files[idx];
        have[idx] = 1;
      }
      for (size_t i = 0; i < files.size(); ++i)
        if (!have[i]) throw Error(SourceLocation{files[i], 0, 0, ""}, "mpirun: rank file not gathered");
      trace::TraceSet set = trace::assemble_trace_set(files, std::move(loaded));
      set.cache_hits = cache_hits;
      set.load_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      Result r = trace::analyze_loaded(set, req);
      if (world.rank() == 0) emit(r, a->out);
      return;
    }
#endif
    trace::TraceSet set = trace::load_traces(req.inputs, req.load);
#ifdef __GLIBC__
    // Below the sizes where the memory bound applies (half the JSON size, from 50 MB of JSON;
    // analyze_loaded runs the analyses concurrently there too), speed comes first: the analyses'
    // growing arrays then stay in the heap when freed and are reused by the next ones, instead
    // of each being a fresh mapping whose pages the kernel faults in and clears again (resnet_kineto,
    // 25.8 MB of JSON: 8,400-9,000 page faults, about 6 us each on this project's VMs).
    if (set.raw_bytes < trace::kConcurrentAnalysesMaxRawBytes) {
      mallopt(M_MMAP_THRESHOLD, 64 << 20);
      mallopt(M_TRIM_THRESHOLD, 128 << 20);
    }
#endif
    emit(trace::analyze_loaded(set, req), a->out);
  });
}

}  // namespace sextant::cli
