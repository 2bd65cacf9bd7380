// Trace arrivals: a CSV with columns arrival_s (or timestamp_s), prompt_tokens, output_tokens and
// optional prefix_group, prefix_tokens; rows are sorted by time and shifted to start at 0.
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
    std::vector<Request> r;
    for (size_t i = 0; i < t.rows.size(); ++i) {
      Request q;
      q.arrival_s = cell_f64(t, i, ct);
      q.prompt_tokens = i32(i, cp);
      q.output_tokens = i32(i, co);
      if (cg >= 0 && cx >= 0) {
        q.prefix_group = i32(i, cg);
        q.prefix_tokens = i32(i, cx);
      }
      if (q.prompt_tokens < 1 || q.output_tokens < 1 || q.prefix_tokens > q.prompt_tokens)
        throw Error(SourceLocation{spec.trace_file, t.lines[i], 0, "prompt_tokens"},
                    "prompt_tokens and output_tokens must be >= 1 and prefix_tokens <= prompt_tokens");
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
