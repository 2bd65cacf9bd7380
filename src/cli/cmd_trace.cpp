// sextant trace synth : synthetic Kineto traces for benchmarks and tests.
#include <memory>

#include "cli/cli.hpp"
#include "core/error.hpp"
#include "trace/synth.hpp"

namespace sextant::cli {

namespace {
struct SynthArgs {
  std::string out;
  trace::SynthOptions o;
  double size_mb = 1.0;
  int threads = 0;
  OutputOptions outopt;
};
}  // namespace

void add_trace_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("trace", "Trace utilities (synthetic traces)");
  cmd->require_subcommand(1);
  auto a = std::make_shared<SynthArgs>();
  auto* s = cmd->add_subcommand("synth",
                                "Write synthetic PyTorch profiler traces (one file per rank) with compute kernels, "
                                "launches, memcpys and NCCL all-reduces; optional injected stragglers");
  s->add_option("--out", a->out, "Output directory")->required();
  s->add_option("--ranks", a->o.ranks, "Number of ranks (default 2)")->check(positive_number());
  s->add_option("--size-mb", a->size_mb, "Approximate uncompressed size per rank in MB (default 1)")
      ->check(positive_number());
  s->add_option("--steps", a->o.steps, "ProfilerSteps per rank (overrides --size-mb)")->check(positive_number());
  s->add_option("--layers", a->o.layers, "Compute kernels per step (default 40)")->check(positive_number());
  s->add_option("--straggler", a->o.straggler_ranks, "Rank that starts every step late (repeatable)");
  s->add_option("--straggler-delay-us", a->o.straggler_delay_us, "Lateness of stragglers (default 2000 us)");
  s->add_option("--allreduce-bytes", a->o.allreduce_bytes, "All-reduce size per step in bytes (default 64e6)");
  s->add_option("--clock-skew-us", a->o.clock_skew_us,
                "Injected clock skew: rank r's timestamps are shifted by r times this (default 0)");
  s->add_flag("--gzip", a->o.gzip, "Write .json.gz");
  s->add_flag("--float-ts", a->o.float_timestamps, "ns-resolution decimal timestamps instead of integer us");
  s->add_option("--seed", a->o.seed, "Random seed, 0 to 2^63-1 (default 1)")->check(unsigned_64());
  s->add_option("--threads", a->threads, "Writer threads (default 0: the CPUs this process may use)");
  add_output_options(*s, a->outopt);
  s->callback([a] {
    for (int64_t r : a->o.straggler_ranks)  // not cut to an int: 4294967296 had read as rank 0 (2026-12-04)
      if (r < 0 || r >= a->o.ranks)
        throw sextant::Error(sextant::SourceLocation{"--straggler", 0, 0, ""}, "rank " + std::to_string(r) + " is not one of the " +
                                                                 std::to_string(a->o.ranks) + " ranks (0 to " +
                                                                 std::to_string(a->o.ranks - 1) + ")");
    // Bounded so that every timestamp fits the trace's 64-bit nanoseconds (1e20 us of skew wrote
    // negative timestamps, 1e30 bytes a negative step, with exit 0, before 2026-12-03).
    auto in_range = [](const char* opt, double v, double lo, double hi, const char* what) {
      if (!(v >= lo && v <= hi))
        throw sextant::Error(sextant::SourceLocation{opt, 0, 0, ""}, std::string("must be ") + what + ", got " + format_double(v));
    };
    in_range("--straggler-delay-us", a->o.straggler_delay_us, 0, 1e9, "from 0 to 1e9 us (1,000 s)");
    in_range("--allreduce-bytes", a->o.allreduce_bytes, 1, 1e15, "from 1 to 1e15 bytes");
    in_range("--clock-skew-us", a->o.clock_skew_us, 0, 1e12 / static_cast<double>(a->o.ranks), "from 0 to 1e12 us over the ranks (1e12 / ranks)");
    if (a->o.ranks > 1000000)
      throw sextant::Error(sextant::SourceLocation{"--ranks", 0, 0, ""}, "at most 1,000,000 ranks, got " + std::to_string(a->o.ranks));
    if (a->threads < 0) throw sextant::Error(sextant::SourceLocation{"--threads", 0, 0, ""}, "must not be negative (0: the CPUs this process may use)");
    // Each rank's trace is built in memory before it is written: bounded, as the size of one
    // rank (--steps 2^63 had grown until killed, and --size-mb 1e18 wrapped to one step with exit
    // 0; 2026-12-05 review).
    constexpr double kMaxRankMb = 65536;
    in_range("--size-mb", a->size_mb, 0, kMaxRankMb, "at most 65,536 MB per rank");
    if (a->o.steps > 0) {
      trace::SynthOptions one = a->o;
      one.steps = 1;
      one.ranks = 1;
      one.straggler_ranks.clear();
      const double per_step = static_cast<double>(trace::synth_rank_json(one, 0).size());
      const auto most = static_cast<int64_t>(kMaxRankMb * 1e6 / per_step);
      if (static_cast<double>(a->o.steps) * per_step > kMaxRankMb * 1e6)
        throw sextant::Error(sextant::SourceLocation{"--steps", 0, 0, ""},
                             std::to_string(a->o.steps) + " steps of about " + format_double(per_step) + " bytes exceed 65,536 MB per rank",
                             "at most " + std::to_string(most) + " steps with these options");
    }
    a->o.target_bytes_per_rank = a->size_mb * 1e6;
    auto files = trace::write_synthetic_traces(a->out, a->o, a->threads);
    Result r;
    r.command = "trace synth";
    r.set("directory", a->out);
    r.set("ranks_count", a->o.ranks);
    r.set("steps_count", trace::synth_steps(a->o));
    Table& t = r.add_table("files", "files written");
    t.add_i64("rank");
    t.add_str("path");
    t.add_i64("raw_bytes");
    t.add_i64("events_count");
    uint64_t total = 0;
    for (const auto& f : files) {
      t.add_row({f.rank, f.path, static_cast<int64_t>(f.raw_bytes), static_cast<int64_t>(f.events)});
      total += f.raw_bytes;
    }
    r.set("raw_bytes", static_cast<int64_t>(total));
    emit(r, a->outopt);
  });
}

}  // namespace sextant::cli
