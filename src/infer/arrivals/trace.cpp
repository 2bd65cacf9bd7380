// Trace arrivals: a CSV with columns arrival_s (or timestamp_s), prompt_tokens, output_tokens and
// optional prefix_group, prefix_tokens; rows are sorted by time (stably: rows of one time keep
// the file's order) and shifted to start at 0, then the first `requests` of them in time kept. Each
// request keeps its row's line and stated arrival (Request::trace_line, trace_arrival_s).
#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "infer/arrivals/arrival.hpp"
#include "infer/csv.hpp"

namespace sextant::infer {
namespace {
class TraceArrivals final : public ArrivalProcess {
 public:
  std::vector<Request> generate(const WorkloadSpec& spec) const override {
    if (spec.trace_file.empty()) throw Error(SourceLocation{"", 0, 0, "workload.trace_file"}, "trace arrivals need a trace_file");
    const CsvTable t = read_csv(spec.trace_file);
    int ct = t.column("arrival_s");
    if (ct < 0) ct = t.column("timestamp_s");
    if (ct < 0) throw Error(SourceLocation{spec.trace_file, 1, 0, "arrival_s"}, "trace needs an arrival_s (or timestamp_s) column");
    const int cp = t.require("prompt_tokens"), co = t.require("output_tokens");
    const int cg = t.column("prefix_group"), cx = t.column("prefix_tokens");
    // Other columns are read past (public traces carry more: model, log_type, ...), but a near miss
    // of a column read here is an error: `prefix_grup` had been ignored.
    {
      static const char* const kRead[] = {"arrival_s", "timestamp_s", "prompt_tokens", "output_tokens", "prefix_group", "prefix_tokens"};
      for (size_t c = 0; c < t.header.size(); ++c) {
        const std::string& h = t.header[c];
        bool known = false;
        for (const char* k : kRead) known = known || h == k;
        if (known) continue;
        for (const char* k : kRead) {
          const int d = edit_distance_capped(h, k, 2);
          if (d <= 2 && 3 * d < static_cast<int>(std::max(h.size(), std::string(k).size())))
            throw Error(SourceLocation{spec.trace_file, 1, static_cast<int>(c) + 1, h}, "unknown column '" + h + "'",
                        std::string("did you mean '") + k + "'?");
        }
      }
    }
    // The prefix needs both columns: one alone had dropped the prefixes silently (2026-12-03 review).
    if ((cg >= 0) != (cx >= 0))
      throw Error(SourceLocation{spec.trace_file, 1, 0, cg >= 0 ? "prefix_tokens" : "prefix_group"},
                  std::string("the trace has ") + (cg >= 0 ? "prefix_group but no prefix_tokens" : "prefix_tokens but no prefix_group") + " column",
                  "a shared prefix is named by both: its group and its length in tokens");
    if (t.rows.empty())
      throw Error(SourceLocation{spec.trace_file, 1, 0, ""}, "the request trace has no requests (a header and no rows)");
    // Token counts are 32-bit: a larger value is an error, never a silent wrap.
    auto i32 = [&](size_t i, int col) {
      const int64_t v = cell_i64(t, i, col);
      if (v < INT32_MIN || v > INT32_MAX)
        throw Error(SourceLocation{spec.trace_file, t.lines[i], col + 1, t.header[static_cast<size_t>(col)]},
                    "integer out of range: " + std::to_string(v));
      return static_cast<int32_t>(v);
    };
    // A token count is at most kMaxRequestTokens (prompt + output had wrapped at 2^31 - 1).
    auto tokens = [&](size_t i, int col) {
      const int32_t v = i32(i, col);
      if (v > kMaxRequestTokens)
        throw Error(SourceLocation{spec.trace_file, t.lines[i], col + 1, t.header[static_cast<size_t>(col)]},
                    "a request length is at most " + std::to_string(kMaxRequestTokens) + " tokens, got " + std::to_string(v),
                    "beyond any model's context window");
      return v;
    };
    std::vector<Request> r;
    for (size_t i = 0; i < t.rows.size(); ++i) {
      Request q;
      q.arrival_s = cell_f64(t, i, ct);
      q.trace_line = t.lines[i];
      q.trace_arrival_s = q.arrival_s;
      q.prompt_tokens = tokens(i, cp);
      q.output_tokens = tokens(i, co);
      if (cg >= 0 && cx >= 0) {
        q.prefix_group = i32(i, cg);
        q.prefix_tokens = tokens(i, cx);
      }
      // A group is an id >= 0 and a shared prefix a token count >= 0 (negative ones had been
      // accepted and served, 2026-12-03 review).
      if (cg >= 0 && cx >= 0 && (q.prefix_group < 0 || q.prefix_tokens < 0))
        throw Error(SourceLocation{spec.trace_file, t.lines[i], 0, q.prefix_group < 0 ? "prefix_group" : "prefix_tokens"},
                    q.prefix_group < 0 ? "prefix_group must be an id >= 0, got " + std::to_string(q.prefix_group)
                                       : "prefix_tokens must be >= 0, got " + std::to_string(q.prefix_tokens),
                    "the shared prompt prefix of a group of requests: prefix_group an id, prefix_tokens its length");
      // The column at fault is named (output_tokens 0 had been reported as prompt_tokens).
      if (q.prompt_tokens < 1 || q.output_tokens < 1 || q.prefix_tokens > q.prompt_tokens) {
        const char* col = q.prompt_tokens < 1 ? "prompt_tokens" : q.output_tokens < 1 ? "output_tokens" : "prefix_tokens";
        throw Error(SourceLocation{spec.trace_file, t.lines[i], 0, col},
                    q.prefix_tokens > q.prompt_tokens && q.prompt_tokens >= 1 && q.output_tokens >= 1
                        ? "prefix_tokens " + std::to_string(q.prefix_tokens) + " is more than the prompt's " + std::to_string(q.prompt_tokens)
                        : std::string(col) + " must be >= 1, got " + std::to_string(q.prompt_tokens < 1 ? q.prompt_tokens : q.output_tokens),
                    "prompt_tokens and output_tokens are >= 1, and prefix_tokens at most prompt_tokens");
      }
      r.push_back(q);
    }
    std::stable_sort(r.begin(), r.end(), [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
    if (!r.empty()) {
      const double t0 = r.front().arrival_s;
      for (auto& q : r) q.arrival_s -= t0;
    }
    if (spec.requests > 0 && static_cast<int64_t>(r.size()) > spec.requests) r.resize(static_cast<size_t>(spec.requests));
    return r;
  }
};
}  // namespace
std::unique_ptr<ArrivalProcess> make_trace_arrivals() { return std::make_unique<TraceArrivals>(); }
}  // namespace sextant::infer
