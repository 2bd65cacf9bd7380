// sextant analyze TRACE... : analysis of PyTorch profiler (Kineto) traces. See docs/trace-analysis.md.
#include <memory>

#include "cli/cli.hpp"
#include "core/error.hpp"
#include "trace/analyze.hpp"
#include "trace/diff.hpp"

namespace sextant::cli {

namespace {
struct AnalyzeArgs {
  std::vector<std::string> inputs;
  std::string compat = "sextant";
  std::vector<std::string> only;
  int threads = 0;
  bool per_launch = false;
  bool diff = false;
  int64_t kernel_delay_us = 30;
  int64_t max_inflate_bytes = trace::kDefaultInflateLimit;
  int stragglers = 2;
  int top = 10;
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
                  "Run only these analyses (repeatable): temporal_breakdown, comm_comp_overlap, kernel_breakdown, "
                  "idle_time, launch_stats, queue_length, collectives, iterations, memory_timeline");
  cmd->add_option("--threads", a->threads, "Threads for reading ranks in parallel (default: all cores)");
  cmd->add_flag("--diff", a->diff,
                "Compare two traces (or two directories): kernels and operators added, removed, slower, faster");
  cmd->add_flag("--per-launch", a->per_launch, "Also list every kernel launch (always on with --compat hta)");
  cmd->add_option("--kernel-delay-us", a->kernel_delay_us, "Idle gaps shorter than this are kernel waits (default 30)");
  cmd->add_option("--stragglers", a->stragglers, "Straggler candidates reported with --compat hta (default 2)");
  cmd->add_option("--top", a->top, "Top kernels listed (default 10)");
  cmd->add_option("--max-inflate-bytes", a->max_inflate_bytes,
                  "Decompression limit per .gz file in bytes (gzip-bomb guard; 0: no limit; default: the larger of "
                  "1 GiB and 100x the compressed size)")
      ->check(CLI::NonNegativeNumber);
  add_output_options(*cmd, a->out);
  cmd->callback([a] {
    if (a->diff) {
      if (a->inputs.size() != 2)
        throw Error(SourceLocation{"", 0, 0, "--diff"}, "--diff takes exactly two traces (A B), got " +
                                                          std::to_string(a->inputs.size()));
      trace::LoadOptions lo;
      lo.threads = a->threads;
      lo.scan.max_inflate_bytes = a->max_inflate_bytes;
      auto A = trace::load_traces({a->inputs[0]}, lo);
      auto B = trace::load_traces({a->inputs[1]}, lo);
      trace::DiffOptions d;
      d.top = a->top > 10 ? a->top : 50;
      emit(trace::diff_traces(A, B, d), a->out);
      return;
    }
    trace::AnalyzeRequest req;
    req.inputs = a->inputs;
    req.only = a->only;
    req.options.hta = a->compat == "hta";
    req.options.per_launch_rows = a->per_launch;
    req.options.consecutive_kernel_delay_us = a->kernel_delay_us;
    req.options.straggler_candidates = a->stragglers;
    req.options.top_kernels = a->top;
    req.load.threads = a->threads;
    req.load.scan.max_inflate_bytes = a->max_inflate_bytes;
    emit(trace::analyze(req), a->out);
  });
}

}  // namespace sextant::cli
