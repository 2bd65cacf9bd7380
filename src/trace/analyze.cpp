#include "trace/analyze.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "trace/analyses/replay_pass.hpp"

namespace sextant::trace {

Result analyze(const AnalyzeRequest& req) {
  TraceSet set = load_traces(req.inputs, req.load);
  return analyze_loaded(set, req);
}

Result analyze_loaded(const TraceSet& set, const AnalyzeRequest& req) {
  auto t0 = std::chrono::steady_clock::now();
  const auto registry = analysis_registry();
  std::vector<std::string> names;
  for (const auto& a : registry) names.push_back(a.name);
  for (const auto& n : req.only)
    if (std::find(names.begin(), names.end(), n) == names.end())
      throw Error(SourceLocation{"", 0, 0, "--only"}, "unknown analysis '" + n + "'", valid_choices_hint(n, names));

  // Frames in parallel, one rank per task.
  std::vector<Frame> frames(set.ranks.size());
  std::atomic<size_t> next{0};
  int threads = req.load.threads > 0 ? req.load.threads : usable_cpus();
  threads = std::max(1, std::min<int>(threads, static_cast<int>(frames.size())));
  // An exception on a worker (std::bad_alloc, a frame beyond its limits) is carried to this thread
  // and rethrown after the join, the first by rank order; it ended the process through
  // std::terminate (the Python interpreter with it) before 2026-12-03.
  std::vector<std::exception_ptr> failed(frames.size());
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < frames.size();) {
      try {
        frames[i] = build_frame(set.ranks[i], req.options.hta);
      } catch (...) {
        failed[i] = std::current_exception();
        next.store(frames.size());  // the others stop at their next rank
      }
    }
  };
  run_workers(threads, [&](int) { work(); });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);

  Result r;
  r.command = "analyze";
  r.set("compat", std::string(req.options.hta ? "hta" : "sextant"));
  // Files read, kept or skipped (it counted the ranks kept before 2026-12-02, beside a cache-hit
  // count of every file read).
  r.set("files_count", static_cast<int64_t>(set.ranks.size() + set.skipped_files.size()));
  r.set("skipped_files_count", static_cast<int64_t>(set.skipped_files.size()));
  r.set("ranks_count", static_cast<int64_t>(set.ranks.size()));
  r.set("raw_json_bytes", static_cast<int64_t>(set.raw_bytes));
  r.set("file_bytes", static_cast<int64_t>(set.file_bytes));
  r.set("load_wall_s", set.load_wall_s);
  r.set("cache_hits_count", set.cache_hits);
  r.set("load_raw_bytes_per_s", set.load_wall_s > 0 ? static_cast<double>(set.raw_bytes) / set.load_wall_s : 0.0);

  Table& ld = r.add_table("load_summary", "per rank: what was read and kept");
  ld.add_i64("rank");
  ld.add_str("rank_source");
  ld.add_str("file");
  ld.add_i64("json_events_count");
  ld.add_i64("rows_after_load");
  ld.add_i64("gpu_rows");
  ld.add_i64("profiler_steps_count");
  ld.add_str("last_step_dropped");
  ld.add_str("timestamps");
  // distributedInfo.world_size; unknown (no distributedInfo) is null in JSON and "-" in the table,
  // not 0, which read as a world of no ranks.
  ld.add_f64("world_size_ranks_count");
  for (const Frame& f : frames)
    // Under --compat hta the GPU rows are HTA's (stream != -1): its cuda_sync waits too (98 where
    // HTA's load_facts says 139 on the alexnet trace, review of 2026-12-05).
    ld.add_row({f.rank(), f.trace->rank_source, f.trace->file, static_cast<int64_t>(f.trace->json_events), f.rows,
                static_cast<int64_t>(f.gpu.size() + (f.hta ? f.sync.size() : 0)), f.profiler_steps, std::string(f.last_step_dropped ? "true" : "false"),
                std::string(f.trace->float_timestamps ? "float (ns)" : "integer (us)"),
                f.trace->world_size > 0 ? static_cast<double>(f.trace->world_size) : std::nan("")});

  Diagnostics diag;
  diag.merge(set.diagnostics);
  // In a job of several files, an event's example names the file it came from (it did not say
  // which of the files held the bad event).
  for (const auto& rt : set.ranks) {
    if (set.ranks.size() == 1) {
      diag.merge(rt.diagnostics);
      continue;
    }
    for (const auto& [k, d] : rt.diagnostics.items())
      diag.add_count(k, d.severity, d.example.rfind(rt.file, 0) == 0 ? d.example : rt.file + ": " + d.example, d.count);
  }
  // Step names no analysis can number (Frame::unnumbered_steps): every analysis that reads steps
  // passes them over, so they are counted once here (review of 2026-12-07: dropped silently).
  for (const Frame& f : frames)
    if (f.unnumbered_steps > 0)
      diag.add_count("ProfilerStep name without a step number (ProfilerStep#N, N of at most 18 digits): not taken as a step", "warning",
                     (set.ranks.size() == 1 ? std::string() : f.trace->file + ": ") + f.unnumbered_step_example, f.unnumbered_steps);
  // The selected analyses run concurrently, each into its own Result and Diagnostics (they only
  // read the frames and the traces); their outputs are then appended in registry order, so the
  // result is the same, byte for byte, as running them one after the other. Two analyses at once
  // hold two working sets (a 507 MB rank peaked at 270 MB instead of 244 MB, a 50 MB one at 37.7
  // instead of 33.8 MB), so from kConcurrentAnalysesMaxRawBytes of JSON on, the sizes where the
  // memory bound (half the JSON size, from 50 MB) applies, they run one after the other.
  std::vector<const Analysis*> selected;
  for (const auto& a : registry) {
    bool sel = req.only.empty() ? (!req.options.hta || a.hta_parity)
                                : std::find(req.only.begin(), req.only.end(), a.name) != req.only.end();
    if (sel) selected.push_back(&a);
  }
  std::vector<Result> parts(selected.size());
  std::vector<Diagnostics> part_diag(selected.size());
  std::vector<std::exception_ptr> part_error(selected.size());
  // Jobs: one per selected analysis, except that critical_path and whatif, when both are
  // selected, are one job walking the iteration graphs once (replay_pass.hpp); each still writes
  // its own part and diagnostics, as if run alone. The costliest jobs are started first (the
  // order of the parts, and so of the output, stays the registry's).
  auto index_of = [&](const char* name) {
    for (size_t i = 0; i < selected.size(); ++i)
      if (selected[i]->name == name) return static_cast<ptrdiff_t>(i);
    return ptrdiff_t{-1};
  };
  const ptrdiff_t cp_i = index_of("critical_path"), wi_i = index_of("whatif");
  const bool paired = cp_i >= 0 && wi_i >= 0;
  std::vector<size_t> jobs;
  for (const char* heavy : {"critical_path", "whatif", "workload", "findings", "kernel_sequences", "queue_length"}) {
    const ptrdiff_t i = index_of(heavy);
    if (i >= 0 && !(paired && i == wi_i)) jobs.push_back(static_cast<size_t>(i));
  }
  for (size_t i = 0; i < selected.size(); ++i)
    if (std::find(jobs.begin(), jobs.end(), i) == jobs.end() && !(paired && static_cast<ptrdiff_t>(i) == wi_i))
      jobs.push_back(i);
  auto run_paired_replay = [&] {
    const auto c = static_cast<size_t>(cp_i), w = static_cast<size_t>(wi_i);
    AnalysisContext cctx{set, frames, req.options, part_diag[c]};
    AnalysisContext wctx{set, frames, req.options, part_diag[w]};
    std::unique_ptr<ReplayPass> cpass, wpass;
    try {
      cpass = make_critical_path_pass(cctx, parts[c]);
    } catch (...) {
      part_error[c] = std::current_exception();
    }
    try {
      wpass = make_whatif_pass(wctx, parts[w]);
    } catch (...) {
      part_error[w] = std::current_exception();
    }
    std::vector<ReplayPass*> passes;
    if (cpass) passes.push_back(cpass.get());
    if (wpass) passes.push_back(wpass.get());
    if (passes.empty()) return;
    Diagnostics build_diag;
    try {
      run_replay_passes(cctx, build_diag, passes);
    } catch (...) {
      if (cpass) part_error[c] = std::current_exception();
      if (wpass) part_error[w] = std::current_exception();
    }
    // The graphs were built once for both passes: their oddities are counted once (they had been
    // merged into both parts' diagnostics and reported twice, 2026-12-03 review).
    if (cpass) part_diag[c].merge(build_diag);
    else part_diag[w].merge(build_diag);
  };
  std::atomic<size_t> next_job{0};
  auto run_analyses = [&] {
    for (size_t j; (j = next_job.fetch_add(1)) < jobs.size();) {
      const size_t i = jobs[j];
      if (paired && static_cast<ptrdiff_t>(i) == cp_i) {
        run_paired_replay();
        continue;
      }
      try {
        AnalysisContext ctx{set, frames, req.options, part_diag[i]};
        selected[i]->run(ctx, parts[i]);
      } catch (...) {
        part_error[i] = std::current_exception();
      }
    }
  };
  int analysis_threads = req.load.threads > 0 ? req.load.threads
                                              : usable_cpus();
  if (set.raw_bytes >= kConcurrentAnalysesMaxRawBytes) analysis_threads = 1;
  analysis_threads = std::max(1, std::min<int>(analysis_threads, static_cast<int>(jobs.size())));
  run_workers(analysis_threads, [&](int) { run_analyses(); });
  for (size_t i = 0; i < selected.size(); ++i) {
    if (part_error[i]) std::rethrow_exception(part_error[i]);  // the first in registry order, as run serially
    diag.merge(part_diag[i]);
    for (auto& [k, v] : parts[i].scalars) r.set(k, std::move(v));
    for (auto& t : parts[i].tables) r.tables.push_back(std::move(t));
    for (auto& n : parts[i].notes) r.notes.push_back(std::move(n));
  }
  // The what-if options act only through the whatif analysis: given without it, they did nothing.
  if (wi_i < 0 && (!req.options.scales.empty() || req.options.drop_host_gaps || req.options.drop_gpu_gaps))
    r.notes.push_back("--scale and --drop-gaps act through the whatif analysis, which is not selected (add --only whatif): "
                      "no prediction was made");
  if (!req.options.hta) {
    for (auto& t : r.tables)
      for (auto& c : t.columns()) c.name = sextant_column_name(c.name);
  }

  // Events dropped for corrupt values (severity "error"): the analyses ran without them, which the
  // reader should know before trusting a total.
  {
    int64_t dropped = 0;
    std::string kinds;
    for (const auto& [k, d] : diag.items())
      if (d.severity == "error") {
        dropped += d.count;
        kinds += (kinds.empty() ? "" : "; ") + k;
      }
    if (dropped > 0)
      r.notes.push_back(std::to_string(dropped) + " event" + (dropped == 1 ? "" : "s") +
                        " with corrupt times dropped (" + kinds + "): the analyses ran without them; see the diagnostics table");
  }
  Table& dt = r.add_table("diagnostics", "recoverable oddities found in the traces (never fatal)");
  dt.add_str("name");
  dt.add_str("severity");
  dt.add_i64("count");
  dt.add_str("example");
  for (const auto& [k, d] : diag.items()) dt.add_row({k, d.severity, d.count, d.example});
  r.set("analysis_wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return r;
}

}  // namespace sextant::trace
