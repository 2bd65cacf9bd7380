#include "infer/validate_inference.hpp"

#include <cctype>
#include <algorithm>
#include <map>
#include <limits>
#include <array>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "infer/config.hpp"
#include "infer/csv.hpp"
#include "infer/deployment.hpp"
#include "infer/stats.hpp"

namespace sextant {

namespace {
const std::vector<std::string>& required_columns() {
  static const std::vector<std::string> c = {"id", "model", "accelerator", "tp", "engine", "weight_format",
                                             "activation_format", "kv_format", "batch", "prompt_len", "gen_len",
                                             "metric", "value"};
  return c;
}
}  // namespace

std::vector<std::string> missing_inference_columns(const std::vector<std::string>& header_columns) {
  std::vector<std::string> out;
  for (const auto& c : required_columns())
    if (std::find(header_columns.begin(), header_columns.end(), c) == header_columns.end()) out.push_back(c);
  return out;
}

bool looks_like_inference_csv(const std::vector<std::string>& header_columns) { return missing_inference_columns(header_columns).empty(); }

Result validate_inference_csv(const std::string& csv_path, const Catalog& cat) {
  return infer::validate_inference_csv(csv_path, cat, *infer::InferData::load_default());
}

namespace infer {

const std::vector<std::string>& inference_metrics() {
  static const std::vector<std::string> m = {"prefill_tokens_per_s", "decode_tokens_per_s", "prompt_time_ms",
                                             "time_per_output_token_ms"};
  return m;
}

std::vector<InferenceRow> read_inference_rows(const std::string& csv_path) {
  CsvTable t = read_csv(csv_path);
  if (!looks_like_inference_csv(t.header)) {
    std::string missing;
    for (const auto& c : required_columns())
      if (t.column(c) < 0) missing += (missing.empty() ? "" : ", ") + c;
    throw Error(SourceLocation{csv_path, 1, 0, ""}, "not an inference validation CSV: missing columns " + missing);
  }
  const int cid = t.require("id"), cmodel = t.require("model"), cacc = t.require("accelerator"), ctp = t.require("tp"),
            ceng = t.require("engine"), cw = t.require("weight_format"), ca = t.require("activation_format"),
            ckv = t.require("kv_format"), cb = t.require("batch"), cp = t.require("prompt_len"), cg = t.require("gen_len"),
            cm = t.require("metric"), cv = t.require("value");
  const int csrc = t.column("source"), cnd = t.column("num_devices"), cunit = t.column("unit"), cpb = t.column("params_b");
  // Columns it does not read are accepted (confidence, notes, a user's own), but not a
  // near miss of one it reads: a misspelt num_devices had silently costed every row on one device
  // (2026-12-05 review), as the training harness already refused.
  {
    std::vector<std::string> read = required_columns();
    for (const char* c : {"source", "num_devices", "unit", "params_b"}) read.push_back(c);
    for (size_t i = 0; i < t.header.size(); ++i) {
      const std::string& h = t.header[i];
      if (h.empty() || std::find(read.begin(), read.end(), h) != read.end()) continue;
      const std::string near = closest_match(h, read);
      if (!near.empty() && std::find(t.header.begin(), t.header.end(), near) == t.header.end())
        throw Error(SourceLocation{csv_path, 1, static_cast<int>(i + 1), h},
                    "column '" + h + "' is not one the harness reads, and it is close to '" + near +
                        "', which it does read: as written the column would be ignored",
                    "rename it to '" + near + "'; columns the harness does not read are accepted when they are not near misses");
    }
  }
  std::vector<InferenceRow> out;
  std::map<std::string, int> first_line;  // id -> its line (an id given twice is an error, as in validate)
  if (t.rows.empty()) throw Error(SourceLocation{csv_path, 1, 0, ""}, "no data rows: the file has a header only", "add rows below the header");
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    InferenceRow x;
    x.line = t.lines[i];
    // Integer columns range-checked before use (0 or negative lengths give infinite rates, a value
    // past INT_MAX would wrap): the error names the file, line and column.
    auto int_col = [&](int col, const char* name, int64_t lo) -> int {
      const int64_t v = cell_i64(t, i, col);
      if (v < lo || v > std::numeric_limits<int>::max())
        throw Error(SourceLocation{csv_path, x.line, col + 1, name},
                    std::string(name) + " must be an integer from " + std::to_string(lo) + " to " +
                        std::to_string(std::numeric_limits<int>::max()) + ", got '" + r[static_cast<size_t>(col)] + "'");
      return static_cast<int>(v);
    };
    // Text cells without the blanks around them, as numbers are read; a required one empty is an
    // error at its column (an empty weight_format had run the checkpoint's f16 at -68% without a
    // word, a padded source had made a source of its own; review of 2026-12-05).
    auto text = [&](int col, const char* name, bool required) {
      if (col < 0) return std::string();
      const std::string& raw = r[static_cast<size_t>(col)];
      const auto a = raw.find_first_not_of(" \t"), b = raw.find_last_not_of(" \t");
      std::string v = a == std::string::npos ? std::string() : raw.substr(a, b - a + 1);
      if (required && v.empty())
        throw Error(SourceLocation{csv_path, x.line, col + 1, name}, std::string(name) + " is empty", "every row states it");
      return v;
    };
    x.id = text(cid, "id", true);
    x.source = text(csrc, "source", true);
    x.model = text(cmodel, "model", true);
    x.accelerator = text(cacc, "accelerator", true);
    x.engine = text(ceng, "engine", true);
    x.weight_format = text(cw, "weight_format", true);
    x.activation_format = text(ca, "activation_format", true);
    x.kv_format = text(ckv, "kv_format", true);
    x.metric = text(cm, "metric", true);
    x.unit = text(cunit, "unit", false);
    if (const auto [it, fresh] = first_line.emplace(x.id, x.line); !fresh)
      throw Error(SourceLocation{csv_path, x.line, cid + 1, "id"}, "id '" + x.id + "' is given twice (first at line " + std::to_string(it->second) + ")",
                  "each row is one measurement: remove or rename one");
    x.tp = int_col(ctp, "tp", 1);
    x.num_devices = cnd >= 0 ? int_col(cnd, "num_devices", 1) : x.tp;
    x.batch = int_col(cb, "batch", 1);
    x.prompt_len = int_col(cp, "prompt_len", 0);  // 0: decode from an empty context (llama-bench tg)
    x.gen_len = int_col(cg, "gen_len", 0);  // 0: a prefill-only row
    x.target = cell_f64(t, i, cv);
    // params_b is checked against the model's parameter count (inference_row_run_problem): a row of
    // a 70B measurement named llama-2-7b had been scored against the 7B (2026-12-06 review).
    if (cpb >= 0 && !text(cpb, "params_b", false).empty()) {
      x.params_b = cell_f64(t, i, cpb);
      if (!(x.params_b > 0))
        throw Error(SourceLocation{csv_path, x.line, cpb + 1, "params_b"},
                    "params_b must be the model's parameters in billions (> 0), got '" + r[static_cast<size_t>(cpb)] + "'",
                    "e.g. 6.74 for Llama-2-7B; leave the cell empty when the source does not say");
    }
    if (!(x.target > 0) || !std::isfinite(x.target))
      throw Error(SourceLocation{csv_path, x.line, cv + 1, "value"}, "value must be a positive measured rate or time, got '" +
                                                                         r[static_cast<size_t>(cv)] + "'");
    const auto& ms = inference_metrics();
    if (std::find(ms.begin(), ms.end(), x.metric) == ms.end())
      throw Error(SourceLocation{csv_path, x.line, cm + 1, "metric"}, "unknown metric '" + x.metric + "'",
                  valid_choices_hint(x.metric, ms));
    // The metric's name carries its unit: a unit column that says otherwise (0.007 with unit s for
    // time_per_output_token_ms was scored at face value, an error of 83,198%; 2026-12-04 review)
    // is refused rather than guessed at.
    if (!x.unit.empty()) {
      const bool rate = x.metric.size() > 6 && x.metric.compare(x.metric.size() - 6, 6, "_per_s") == 0;
      const std::vector<std::string> ok = rate ? std::vector<std::string>{"tok/s", "tokens/s"} : std::vector<std::string>{"ms"};
      if (std::find(ok.begin(), ok.end(), x.unit) == ok.end())
        throw Error(SourceLocation{csv_path, x.line, cunit + 1, "unit"},
                    "unit '" + x.unit + "' is not the unit of " + x.metric + " (" + ok.front() + ")",
                    "convert the value to " + ok.front() + " or leave the unit empty");
    }
    if (x.prompt_len < 1 && (x.metric == "prefill_tokens_per_s" || x.metric == "prompt_time_ms"))
      throw Error(SourceLocation{csv_path, x.line, cp + 1, "prompt_len"}, "a " + x.metric + " row needs prompt_len >= 1");
    if (x.gen_len < 1 && (x.metric == "decode_tokens_per_s" || x.metric == "time_per_output_token_ms"))
      throw Error(SourceLocation{csv_path, x.line, cg + 1, "gen_len"}, "a " + x.metric + " row needs gen_len >= 1");
    // (batch and tp are >= 1 by int_col) The tp named at its column (the message had named batch).
    if (x.num_devices % x.tp != 0)
      throw Error(SourceLocation{csv_path, x.line, ctp + 1, "tp"},
                  "tp " + std::to_string(x.tp) + " does not divide num_devices " + std::to_string(x.num_devices),
                  "a tp that divides the devices the row ran on");
    out.push_back(std::move(x));
  }
  return out;
}

namespace {
DeploymentSpec row_spec(const InferenceRow& row, const InferData& data) {
  DeploymentSpec s;
  s.model = row.model;
  s.accelerator = row.accelerator;
  s.tp = row.tp;
  s.pp = row.num_devices / row.tp;
  s.weight_format = row.weight_format;
  s.activation_format = row.activation_format;
  s.kv_format = row.kv_format;
  s.engine = data.has_engine(row.engine) ? row.engine : "generic";
  return s;
}

Deployment row_deployment(const InferenceRow& row, const Catalog& cat, const InferData& data) {
  const DeploymentSpec s = row_spec(row, data);
  try {
    return make_deployment(cat, data, s, SourceLocation{"", row.line, 0, row.id});
  } catch (const Error& e) {
    // The file has no pp column: the pipeline is num_devices / tp, which the error names (it had
    // read "key 'x1.pp': pp 2 needs 2 devices" for a row of num_devices 2; 2026-12-06 review).
    if (s.pp <= 1 || e.where().key != row.id + ".pp") throw;
    throw Error(SourceLocation{"", row.line, 0, row.id + ".num_devices"},
                "num_devices " + std::to_string(row.num_devices) + " with tp " + std::to_string(row.tp) + " is a pipeline of " +
                    std::to_string(s.pp) + " stages (pp = num_devices / tp): " + e.message(),
                e.hint());
  }
}

double predict_cm(const InferenceRow& row, const CostModel& cm) {
  const int b = row.batch;
  // Mean decode iteration over contexts prompt_len .. prompt_len + gen_len - 1 (at most 16 evenly
  // spaced midpoints: the cost is piecewise linear in the context).
  auto mean_decode_s = [&](int gen) {
    const int n = std::min(gen, 16);
    double sum = 0;
    for (int k = 0; k < n; ++k) {
      const double ctx = row.prompt_len + (k + 0.5) * gen / n - 0.5;
      sum += cm.iteration(cm.decode(b, ctx)).total_s;
    }
    return sum / n;
  };
  if (row.metric == "prefill_tokens_per_s")
    return static_cast<double>(b) * row.prompt_len / cm.iteration(cm.prefill(b, row.prompt_len)).total_s;
  if (row.metric == "prompt_time_ms") return 1e3 * cm.iteration(cm.prefill(b, row.prompt_len)).total_s;
  if (row.metric == "decode_tokens_per_s") return b / mean_decode_s(std::max(row.gen_len, 1));
  if (row.metric == "time_per_output_token_ms") return 1e3 * mean_decode_s(std::max(row.gen_len, 1));
  throw Error(SourceLocation{"", row.line, 0, "metric"}, "unknown metric '" + row.metric + "'",
              valid_choices_hint(row.metric, inference_metrics()));
}
}  // namespace

double predict_inference_row(const InferenceRow& row, const Catalog& cat, const InferData& data, const EngineProfile& engine) {
  Deployment d = row_deployment(row, cat, data);
  d.engine = engine;
  return predict_cm(row, CostModel(std::move(d)));
}

std::string inference_row_run_problem(const InferenceRow& row, const Catalog& cat, const InferData& data) {
  // Before 2026-12-06 a row was scored whatever it described: 13.5 GB of fp16 weights on a 6 GiB
  // iPhone and params_b 70 for llama-2-7b, each with an empty problem column (review).
  const Deployment d = row_deployment(row, cat, data);
  std::vector<std::string> out;
  if (std::isfinite(row.params_b)) {
    const double computed_b = static_cast<double>(d.model.params_total()) / 1e9;
    if (std::fabs(row.params_b / computed_b - 1.0) > 0.10)
      out.push_back("params_b " + format_double(row.params_b) + " is not " + d.model.id + "'s " +
                    format_double(std::round(computed_b * 100) / 100) +
                    " billion parameters (the catalog's count, more than 10% apart): the row measured another model, or params_b is wrong");
  }
  // The memory: estimate's own accounting (weights, the batch's KV cache, one pass's workspace,
  // the engine's and the device's memory shares), with its note.
  const Result est = run_estimate(row_spec(row, data), cat, data, std::max(row.prompt_len, 1), std::max(row.gen_len, 1), row.batch);
  if (const Value* fits = est.scalar("fits_memory"); fits && std::holds_alternative<bool>(*fits) && !std::get<bool>(*fits))
    for (const auto& n : est.notes)
      if (n.starts_with("does not fit: weights")) out.push_back(n + " (infer estimate)");
  std::string joined;
  for (const auto& p : out) joined += (joined.empty() ? "" : "; ") + p;
  return joined;
}

std::string inference_row_caveat(const InferenceRow& row, const Catalog& cat, const InferData& data) {
  // estimate's fits_context at the row's own lengths (a llama-bench tg row has no prompt). A caveat,
  // not a problem: an engine runs past the window when told to (vLLM's max_model_len with
  // VLLM_ALLOW_LONG_MAX_MODEL_LEN, llama.cpp's -c with a warning), and the Splitwise rows of
  // Llama-2-70B at 4,096 and 8,192-token prompts were measured so. Before 2026-12-06 a
  // 100,000-token prompt on Llama-2-7B was scored at -90.8% without a word (review).
  const Deployment d = row_deployment(row, cat, data);
  const int64_t context = static_cast<int64_t>(row.prompt_len) + row.gen_len;
  if (d.context_window_tokens <= 0 || context <= d.context_window_tokens) return "";
  return "prompt_len + gen_len = " + std::to_string(context) + " tokens is beyond " + context_window_text(d) +
         " (infer estimate: fits_context false): the run was configured past it, and the speed is scored as measured";
}

namespace {
constexpr int kParams = 6;
double logit(double p) {
  p = std::clamp(p, 1e-4, 1 - 1e-4);
  return std::log(p / (1 - p));
}
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

std::array<double, kParams> encode(const EngineProfile& e) {
  return {logit(e.bandwidth_fraction.value), logit(e.gemm_fraction.value), logit(e.dequant_fraction.value),
          logit(e.overlap_fraction.value), std::log(std::max(e.iteration_overhead_s.value * 1e6, 0.1)),
          std::log(std::max(e.sequence_overhead_s.value * 1e6, 0.1))};
}

EngineProfile decode_params(const EngineProfile& base, const std::array<double, kParams>& x, const std::string& basis) {
  EngineProfile e = base;
  auto set = [&](Sourced& s, double v) {
    s.value = v;
    s.known = true;
    s.source.clear();
    s.estimated = basis;
  };
  set(e.bandwidth_fraction, sigmoid(x[0]));
  set(e.gemm_fraction, sigmoid(x[1]));
  set(e.dequant_fraction, sigmoid(x[2]));
  set(e.overlap_fraction, sigmoid(x[3]));
  set(e.iteration_overhead_s, std::exp(x[4]) * 1e-6);
  set(e.sequence_overhead_s, std::exp(x[5]) * 1e-6);
  return e;
}

void require_complete(const EngineProfile& p) {
  for (const Sourced* s : {&p.bandwidth_fraction, &p.gemm_fraction, &p.dequant_fraction, &p.overlap_fraction,
                           &p.iteration_overhead_s, &p.sequence_overhead_s})
    if (!s->known)
      throw Error(SourceLocation{p.file, 0, 0, p.id}, "the prior engine '" + p.id + "' of a fit must give every fitted constant");
}

// Deterministic Nelder-Mead minimisation.
template <class F>
std::array<double, kParams> nelder_mead(F f, std::array<double, kParams> x0, double step, int max_evals) {
  using P = std::array<double, kParams>;
  std::vector<P> s(kParams + 1, x0);
  std::vector<double> fv(kParams + 1);
  for (int i = 0; i < kParams; ++i) s[i + 1][i] += step;
  int evals = 0;
  for (int i = 0; i <= kParams; ++i) fv[i] = f(s[i]), ++evals;
  while (evals < max_evals) {
    std::vector<int> idx(kParams + 1);
    for (int i = 0; i <= kParams; ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return fv[a] < fv[b]; });
    std::vector<P> s2;
    std::vector<double> f2;
    for (int i : idx) s2.push_back(s[i]), f2.push_back(fv[i]);
    s = s2;
    fv = f2;
    if (std::abs(fv[kParams] - fv[0]) < 1e-12 * (1 + std::abs(fv[0]))) break;
    P c{};
    for (int i = 0; i < kParams; ++i)
      for (int j = 0; j < kParams; ++j) c[j] += s[i][j] / kParams;
    auto along = [&](double t) {
      P p;
      for (int j = 0; j < kParams; ++j) p[j] = c[j] + t * (s[kParams][j] - c[j]);
      return p;
    };
    P xr = along(-1);
    double fr = f(xr);
    ++evals;
    if (fr < fv[0]) {
      P xe = along(-2);
      double fe = f(xe);
      ++evals;
      if (fe < fr) s[kParams] = xe, fv[kParams] = fe;
      else s[kParams] = xr, fv[kParams] = fr;
    } else if (fr < fv[kParams - 1]) {
      s[kParams] = xr, fv[kParams] = fr;
    } else {
      P xc = fr < fv[kParams] ? along(-0.5) : along(0.5);
      double fc = f(xc);
      ++evals;
      if (fc < std::min(fr, fv[kParams])) {
        s[kParams] = xc, fv[kParams] = fc;
      } else {
        for (int i = 1; i <= kParams; ++i) {
          for (int j = 0; j < kParams; ++j) s[i][j] = s[0][j] + 0.5 * (s[i][j] - s[0][j]);
          fv[i] = f(s[i]);
          ++evals;
        }
      }
    }
  }
  int best = 0;
  for (int i = 1; i <= kParams; ++i)
    if (fv[i] < fv[best]) best = i;
  return s[best];
}
}  // namespace

EngineProfile fit_engine(const std::vector<InferenceRow>& rows, const Catalog& cat, const InferData& data,
                         const EngineProfile& prior, double prior_weight) {
  require_complete(prior);
  if (rows.empty()) return prior;
  const auto x0 = encode(prior);
  const std::string basis = "fitted to " + std::to_string(rows.size()) + " rows of the inference validation set";
  // The fitted constants replace the rows' engine's six and keep what it states beside them
  // (overhead_reference_layers: its iteration overhead is per that many layers, so the refit is
  // comparable with the catalogued value); the prior only pulls.
  const EngineProfile& base = data.has_engine(rows.front().engine) ? data.engine(rows.front().engine) : prior;
  std::vector<CostModel> models;
  for (const auto& r : rows) models.emplace_back(row_deployment(r, cat, data));
  auto objective = [&](const std::array<double, kParams>& x) {
    const EngineProfile e = decode_params(base, x, basis);
    double sse = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      models[i].set_engine(e);
      const double p = predict_cm(r, models[i]);
      const double l = std::log(p / r.target);
      sse += l * l;
    }
    double pen = 0;
    for (int j = 0; j < kParams; ++j) pen += (x[j] - x0[j]) * (x[j] - x0[j]);
    return sse + prior_weight * pen;
  };
  auto x = nelder_mead(objective, x0, 1.0, 1500);
  for (double step : {0.5, 0.2, 0.05}) x = nelder_mead(objective, x, step, 800);  // restarts: escape a collapsed simplex
  EngineProfile out = decode_params(base, x, basis);
  out.id = rows.front().engine;
  return out;
}

namespace {
// The chip of an accelerator id: the id without a trailing GPU-core bin ("-<digits>c").
std::string chip_of(const std::string& id) {
  const size_t dash = id.rfind('-');
  if (dash == std::string::npos || id.size() < dash + 3 || id.back() != 'c') return id;
  for (size_t i = dash + 1; i + 1 < id.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(id[i]))) return id;
  return id.substr(0, dash);
}
}  // namespace

Result validate_inference_csv(const std::string& csv_path, const Catalog& cat, const InferData& data) {
  const auto rows = read_inference_rows(csv_path);
  Result r;
  r.command = "infer validate";  // as the other infer commands name theirs (it read "validate")
  r.set("schema", std::string("inference"));
  r.set("file", csv_path);
  const EngineProfile& prior = data.engine("generic");
  // A row names a catalogued engine (an unknown one is an input error, not the prior in disguise).
  // The error names the engine's column as other cell errors do (review of 2026-12-07: it gave
  // column 0, "i_eng.csv:4: key 'engine'"); the header is read again only on this error's path.
  for (const auto& row : rows)
    if (!data.has_engine(row.engine))
      throw Error(SourceLocation{csv_path, row.line, read_csv(csv_path).column("engine") + 1, "engine"},
                  "unknown inference engine '" + row.engine + "'", valid_choices_hint(row.engine, data.engine_ids()));
  auto engine_for = [&](const std::string& id) -> const EngineProfile& {
    return data.has_engine(id) ? data.engine(id) : prior;
  };

  // Predictions with the catalogued constants; rows that cannot be predicted are reported.
  std::vector<double> pred(rows.size(), std::nan("")), lodo(rows.size(), std::nan(""));
  std::vector<std::string> problem(rows.size()), caveat(rows.size());
  int64_t unpredicted = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    try {
      pred[i] = predict_inference_row(rows[i], cat, data, engine_for(rows[i].engine));
    } catch (const Error& e) {
      problem[i] = e.what();
      ++unpredicted;
      continue;
    }
    // A run that cannot have happened as the row states it is predicted but not scored.
    try {
      problem[i] = inference_row_run_problem(rows[i], cat, data);
      caveat[i] = inference_row_caveat(rows[i], cat, data);
    } catch (const Error& e) {
      problem[i] = e.what();  // (estimate refuses a batch beyond 2^24)
    }
  }
  // Leave one chip out: refit each engine's constants without the rows of that device and of its
  // binned variants (the same die with fewer GPU cores, ids differing only in the "-<n>c" suffix:
  // apple-m2-ultra-60c and -76c share a die and a memory system, so leaving one out while the other
  // stayed in the fit read optimistic: 7.0% median for the 60c, 11.1% with both out; 2026-12-04
  // review).
  std::set<std::string> devices, engines;
  for (size_t i = 0; i < rows.size(); ++i)
    if (problem[i].empty()) devices.insert(chip_of(rows[i].accelerator)), engines.insert(rows[i].engine);
  std::map<std::string, EngineProfile> full_fit;
  for (const auto& eng : engines) {
    std::vector<InferenceRow> sub;
    for (size_t i = 0; i < rows.size(); ++i)
      if (problem[i].empty() && rows[i].engine == eng) sub.push_back(rows[i]);
    full_fit[eng] = fit_engine(sub, cat, data, prior);
  }
  for (const auto& dev : devices) {
    std::map<std::string, EngineProfile> fits;
    for (const auto& eng : engines) {
      std::vector<InferenceRow> sub;
      for (size_t i = 0; i < rows.size(); ++i)
        if (problem[i].empty() && rows[i].engine == eng && chip_of(rows[i].accelerator) != dev) sub.push_back(rows[i]);
      fits[eng] = sub.empty() ? prior : fit_engine(sub, cat, data, prior);
    }
    for (size_t i = 0; i < rows.size(); ++i)
      if (problem[i].empty() && chip_of(rows[i].accelerator) == dev)
        lodo[i] = predict_inference_row(rows[i], cat, data, fits.at(rows[i].engine));
  }

  auto err = [](double p, double t) { return 100.0 * (p / t - 1.0); };  // (p - t) x 100 overflowed at t = 1e308 (2026-12-06 review)
  Table& t = r.add_table("validation_rows", "one row per measurement: predicted vs target, signed error");
  t.add_str("id"); t.add_str("source"); t.add_str("accelerator"); t.add_str("engine"); t.add_str("metric");
  t.add_f64("predicted"); t.add_f64("target"); t.add_f64("error_pct"); t.add_f64("lodo_predicted");
  t.add_f64("lodo_error_pct"); t.add_str("unit"); t.add_str("problem"); t.add_str("caveat");
  std::vector<double> all_abs, all_lodo;
  std::map<std::string, std::vector<double>> by_src, by_src_lodo, by_dev, by_dev_lodo;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& x = rows[i];
    // A row with a problem is not scored: no error (its prediction is shown).
    const double e = problem[i].empty() ? err(pred[i], x.target) : std::nan(""), el = err(lodo[i], x.target);
    t.add_row({x.id, x.source, x.accelerator, x.engine, x.metric, pred[i], x.target, e, lodo[i], el, x.unit, problem[i], caveat[i]});
    if (!problem[i].empty()) continue;
    all_abs.push_back(std::abs(e));
    all_lodo.push_back(std::abs(el));
    by_src[x.source].push_back(std::abs(e));
    by_src_lodo[x.source].push_back(std::abs(el));
    by_dev[x.accelerator].push_back(std::abs(e));
    by_dev_lodo[x.accelerator].push_back(std::abs(el));
  }
  int64_t excluded = 0;
  for (const auto& p : problem) excluded += p.empty() ? 0 : 1;
  r.set("rows_count", static_cast<int64_t>(rows.size()));
  r.set("rows_unpredicted_count", unpredicted);
  r.set("rows_excluded_count", excluded);
  r.set("median_abs_error_pct", percentile(all_abs, 0.5));
  r.set("p90_abs_error_pct", percentile(all_abs, 0.9));
  r.set("max_abs_error_pct", percentile(all_abs, 1.0));
  r.set("lodo_median_abs_error_pct", percentile(all_lodo, 0.5));
  r.set("lodo_p90_abs_error_pct", percentile(all_lodo, 0.9));
  r.set("lodo_max_abs_error_pct", percentile(all_lodo, 1.0));
  Table& s = r.add_table("per_source", "|error| by source; lodo = leave-one-chip-out refit of the engine constants");
  s.add_str("source"); s.add_i64("rows_count"); s.add_f64("median_abs_error_pct"); s.add_f64("p90_abs_error_pct");
  s.add_f64("max_abs_error_pct"); s.add_f64("lodo_median_abs_error_pct"); s.add_f64("lodo_max_abs_error_pct");
  for (const auto& [src, v] : by_src)
    s.add_row({src, static_cast<int64_t>(v.size()), percentile(v, 0.5), percentile(v, 0.9), percentile(v, 1.0),
               percentile(by_src_lodo[src], 0.5), percentile(by_src_lodo[src], 1.0)});
  Table& dv = r.add_table("per_device", "|error| by accelerator, with the rows of its chip (the device and its binned variants) left out of the fit (lodo)");
  dv.add_str("accelerator"); dv.add_i64("rows_count"); dv.add_f64("median_abs_error_pct"); dv.add_f64("max_abs_error_pct");
  dv.add_f64("lodo_median_abs_error_pct"); dv.add_f64("lodo_max_abs_error_pct");
  for (const auto& [dev, v] : by_dev)
    dv.add_row({dev, static_cast<int64_t>(v.size()), percentile(v, 0.5), percentile(v, 1.0), percentile(by_dev_lodo[dev], 0.5),
                percentile(by_dev_lodo[dev], 1.0)});
  Table& fc = r.add_table("fitted_constants", "engine constants: catalogued (data/infer/engines.yaml) vs refitted on all rows");
  fc.add_str("engine"); fc.add_str("constant"); fc.add_f64("catalog_value"); fc.add_f64("refit_value"); fc.add_f64("prior_value");
  fc.add_str("catalog_provenance");
  for (const auto& [eng, f] : full_fit) {
    const EngineProfile& c = engine_for(eng);
    auto row = [&](const char* name, const Sourced EngineProfile::*m, double scale) {
      const Sourced& cv = c.*m;
      fc.add_row({eng, std::string(name), cv.known ? cv.value * scale : std::nan(""), (f.*m).value * scale,
                  (prior.*m).value * scale, cv.known ? (cv.estimated.empty() ? cv.source : "estimated: " + cv.estimated) : std::string("unknown")});
    };
    row("bandwidth_fraction", &EngineProfile::bandwidth_fraction, 1);
    row("gemm_fraction", &EngineProfile::gemm_fraction, 1);
    row("dequant_fraction", &EngineProfile::dequant_fraction, 1);
    row("overlap_fraction", &EngineProfile::overlap_fraction, 1);
    row("iteration_overhead_us", &EngineProfile::iteration_overhead_s, 1e6);
    row("sequence_overhead_us", &EngineProfile::sequence_overhead_s, 1e6);
  }
  if (unpredicted > 0) r.notes.push_back(std::to_string(unpredicted) + " row(s) could not be predicted; see the problem column");
  if (excluded > unpredicted)
    r.notes.push_back(std::to_string(excluded - unpredicted) +
                      " row(s) describe a run that cannot have happened as stated (params_b not the model's, or beyond the "
                      "device's memory by `infer estimate`): predicted, but left out of the fit and the error statistics; see the "
                      "problem column");
  int64_t beyond_window = 0;
  for (const auto& c : caveat) beyond_window += c.empty() ? 0 : 1;
  if (beyond_window > 0)
    r.notes.push_back(std::to_string(beyond_window) + " row(s) run beyond the model's context window (an engine does so when told to): "
                      "scored as measured; see the caveat column");
  r.notes.push_back("error_pct = (predicted - target) / target; lodo = engine constants refitted without the row's chip (its device and the binned variants of the same die, e.g. apple-m1-7c and -8c)");
  return r;
}

}  // namespace infer
}  // namespace sextant
