#include "validate/training_validation.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/paths.hpp"
#include "estimate/estimate.hpp"
#include "sim/simulate.hpp"

namespace sextant {

static const std::vector<std::string> kRequired = {
    "id", "source", "model", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len", "mlp",
    "accelerator", "system", "num_gpus", "tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "global_batch",
    "sequence_parallel", "recompute", "zero_stage", "precision", "target_step_time_s"};

// Where a row's value is: file, line and the column's number when the file has the column (its
// range and choice errors had given column 0; review of 2026-12-06).
static SourceLocation cell(const CsvTable& t, size_t row, const std::string& col) {
  return SourceLocation{t.file(), t.line_of(row), t.has(col) ? static_cast<int>(t.col(col)) + 1 : 0, col};
}

double target_step_time_of(const CsvTable& t, size_t row) {
  const double v = t.f64(row, "target_step_time_s");
  if (!(v > 0) || !std::isfinite(v))
    throw Error(cell(t, row, "target_step_time_s"),
                "target_step_time_s must be a positive number of seconds, got '" + t.at(row, "target_step_time_s") + "'");
  return v;
}

// Optional columns the harness reads (docs/validation.md), and the descriptive columns of the
// bundled file that it does not: a header column that is neither, but a near miss of one the
// harness reads (`head_dims`, `frameworks`), is an error. It had been ignored as an extra column,
// silently, and the row ran without it (the SC'21 rows went from +3% to -30% without their
// framework; a misspelt known_issue put the regression row into --fit).
static const std::vector<std::string> kOptional = {
    "num_experts", "moe_topk", "moe_ffn_hidden", "shared_experts", "dense_layers", "gpus_per_node", "tp_comm_overlap",
    "overlap_grad_reduce", "overlap_param_gather", "ep_comm_overlap", "framework", "head_dim", "fp8_recipe", "moe_dispatcher",
    "known_issue", "qk_norm"};
// A text cell as every other cell is read: without the blanks around it (a padded id or source
// had made a second row of the same id, and a third group of one source that leave-one-source-out
// then held out alone; review of 2026-12-05).
static std::string cell_text(const CsvTable& t, size_t row, const char* col) {
  const std::string& raw = t.at(row, col);
  const auto a = raw.find_first_not_of(" \t"), b = raw.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : raw.substr(a, b - a + 1);
}

// Descriptive: not read by the model. target_tokens_per_s_per_gpu is still checked to be a
// positive number (scenario_from_training_row), the others are free text.
static const std::vector<std::string> kDescriptive = {"target_tokens_per_s_per_gpu", "derivation", "confidence", "notes"};

void check_training_columns(const CsvTable& t) {
  std::vector<std::string> read = kRequired;
  read.insert(read.end(), kOptional.begin(), kOptional.end());
  std::vector<std::string> known = read;
  known.insert(known.end(), kDescriptive.begin(), kDescriptive.end());
  const auto& header = t.header();
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& h = header[i];
    if (h.empty() || std::find(known.begin(), known.end(), h) != known.end()) continue;
    // A near miss is a misspelling: few edits for the length of the shorter name (one up to 7
    // characters, two up to 11, ...; letter case aside). closest_match also takes a column that a
    // read one contains or begins with, and `dim`, `issue`, `fp8`, `recipe` or `dispatcher`, plausible
    // columns of one's own, had been refused as near misses of head_dim, known_issue, fp8_recipe
    // and moe_dispatcher (review of 2026-12-06).
    std::string near;
    int near_d = 0;
    for (const auto& c : read) {
      const int limit = std::max<int>(1, static_cast<int>(std::min(h.size(), c.size())) / 4);
      const int d = edit_distance_capped(h, c, limit);
      if (d <= limit && (near.empty() || d < near_d)) {
        near = c;
        near_d = d;
      }
    }
    if (near.empty()) continue;
    // Beside the correctly named column too (review of 2026-12-07): `head_dims` next to an empty
    // `head_dim` had been skipped, silently, and the row ran without the value it gave. There the
    // read column's presence had also let columns of one's own pass that one edit puts near an
    // always-present required column; they still do: a name the read one contains (`head` beside
    // `heads`, `layer`) and names under 4 characters (`sp`, `cpu` beside `cp`), where one edit is no
    // sign of a misspelling.
    if (std::find(header.begin(), header.end(), near) != header.end()) {
      auto lower = [](std::string v) {
        for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return v;
      };
      if (std::min(h.size(), near.size()) < 4 || lower(near).find(lower(h)) != std::string::npos) continue;
      // The read column in another unit (`target_step_time_ms` beside `target_step_time_s`) is a
      // column of one's own, not a misspelling: the hint to move its values into the read one would
      // have scaled every target 1000x (second review of 2026-12-07).
      auto unit_variant = [&lower](const std::string& a, const std::string& b) {
        static const char* const units[] = {"s", "ms", "us", "ns", "min", "h", "hours", "bytes", "kb", "mb", "gb", "tb",
                                            "kib", "mib", "gib", "tib", "pct", "percent", "fraction", "flops", "tflops", "gbps"};
        const size_t ia = a.rfind('_'), ib = b.rfind('_');
        if (ia == std::string::npos || ib == std::string::npos || lower(a.substr(0, ia)) != lower(b.substr(0, ib))) return false;
        auto is_unit = [&](const std::string& u) { return std::find(std::begin(units), std::end(units), lower(u)) != std::end(units); };
        return is_unit(a.substr(ia + 1)) && is_unit(b.substr(ib + 1));
      };
      if (unit_variant(h, near)) continue;
      throw Error(SourceLocation{t.file(), 1, static_cast<int>(i + 1), h},
                  "column '" + h + "' is not one the harness reads, and it is close to '" + near +
                      "', which it does read and which the header also has: both are present, and as written '" + h +
                      "' would be ignored",
                  "keep one column named '" + near + "' (move the values of '" + h + "' into it), or give '" + h +
                      "' a name that is not a near miss");
    }
    throw Error(SourceLocation{t.file(), 1, static_cast<int>(i + 1), h},
                "column '" + h + "' is not one the harness reads, and it is close to '" + near +
                    "', which it does read: as written the column would be ignored",
                "rename it to '" + near + "'; columns the harness does not read are accepted when they are not near misses");
  }
}

std::vector<std::string> missing_training_columns(const std::vector<std::string>& header) {
  std::vector<std::string> out;
  for (const auto& c : kRequired)
    if (std::find(header.begin(), header.end(), c) == header.end()) out.push_back(c);
  return out;
}

bool looks_like_training_csv(const std::vector<std::string>& header) { return missing_training_columns(header).empty(); }

namespace {
// The CSV column a scenario key comes from, for errors raised by the scenario's own checks
// (check_plan, ModelConfig::validate), which name scenario keys: `parallel.dp` is the column
// `dp`, `moe.topk` is `moe_topk`. Every key a column sets is listed (review of 2026-12-06: the
// overlap keys were not, and an error of parallel.overlap.tp_comm named no column); keys the
// harness derives have none (empty).
const std::vector<std::pair<std::string, std::string>>& scenario_key_columns() {
  static const std::vector<std::pair<std::string, std::string>> kMap = {
      {"num_gpus", "num_gpus"},
      {"accelerator", "accelerator"},
      {"system", "system"},
      {"framework", "framework"},
      {"parallel.tp", "tp"},
      {"parallel.pp", "pp"},
      {"parallel.dp", "dp"},
      {"parallel.cp", "cp"},
      {"parallel.ep", "ep"},
      {"parallel.vpp", "vpp"},
      {"parallel.sequence_parallel", "sequence_parallel"},
      {"parallel.zero_stage", "zero_stage"},
      {"parallel.overlap.tp_comm", "tp_comm_overlap"},
      {"parallel.overlap.grad_reduce", "overlap_grad_reduce"},
      {"parallel.overlap.param_gather", "overlap_param_gather"},
      {"parallel.overlap.ep_comm", "ep_comm_overlap"},
      {"parallel.moe_dispatcher", "moe_dispatcher"},
      {"training.global_batch", "global_batch"},
      {"training.micro_batch", "micro_batch"},
      {"training.seq_len", "seq_len"},
      {"training.precision", "precision"},
      {"training.recompute", "recompute"},
      {"training.fp8_recipe", "fp8_recipe"},
      {"model.layers", "layers"},
      {"model.hidden", "hidden"},
      {"model.heads", "heads"},
      {"model.kv_heads", "kv_heads"},
      {"model.head_dim", "head_dim"},
      {"model.ffn_hidden", "ffn_hidden"},
      {"model.vocab", "vocab"},
      {"model.mlp", "mlp"},
      {"model.qk_norm", "qk_norm"},
      {"moe.num_experts", "num_experts"},
      {"moe.topk", "moe_topk"},
      {"moe.expert_ffn_hidden", "moe_ffn_hidden"},
      {"moe.shared_experts", "shared_experts"},
      {"moe.dense_layers", "dense_layers"},
      // ModelConfig::validate names its keys without the model. prefix.
      {"layers", "layers"},
      {"hidden", "hidden"},
      {"heads", "heads"},
      {"kv_heads", "kv_heads"},
      {"head_dim", "head_dim"},
      {"ffn_hidden", "ffn_hidden"},
      {"vocab", "vocab"},
      {"sequence_parallel", "sequence_parallel"},
      // Set by the harness from other columns: no column of their own.
      {"parallel.schedule", ""},
      {"parallel.stage_rule", ""},
      {"parallel.stage_layers", ""},
      {"stage_rule", ""},
      {"stage_layers", ""},
      {"parallel.etp", ""},
      {"training.flash_attention", ""},
  };
  return kMap;
}

// What the harness derives a key without a column from, for the error's note.
std::string derived_from(const std::string& key) {
  if (key == "parallel.schedule" || key == "parallel.stage_rule" || key == "parallel.stage_layers" || key == "stage_rule" ||
      key == "stage_layers")
    return "the harness derives it from layers, pp, vpp and the micro-batch count";
  if (key == "parallel.etp") return "the harness runs etp 1";
  if (key == "training.flash_attention") return "the harness takes it from the framework column";
  return "no CSV column sets it";
}

std::string csv_column_of(const std::string& key) {
  for (const auto& [k, c] : scenario_key_columns())
    if (key == k) return c;
  return {};  // a key no column sets (training.moe_load_imbalance, model.mtp_layers)
}

// A scenario check's text in the CSV's terms: each scenario key with a column is the column's
// name, and `key: value` (a scenario file's line) is `column = value` (review of 2026-12-06: the
// remedy had read "set parallel.sequence_parallel: true, or parallel.overlap.tp_comm: false" for
// a CSV row). Keys the harness derives are kept, with what they come from.
std::string in_csv_terms(std::string text, std::set<std::string>* derived_keys = nullptr) {
  auto is_key_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!is_key_char(text[i]) || (i > 0 && is_key_char(text[i - 1]))) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && is_key_char(text[j])) ++j;
    // A sentence's full stop is no part of the key.
    size_t k = j;
    while (k > i && text[k - 1] == '.') --k;
    const std::string word = text.substr(i, k - i);
    const auto& map = scenario_key_columns();
    const auto hit = std::find_if(map.begin(), map.end(), [&](const auto& e) { return e.first == word; });
    // Bare names (tp, layers) are the columns themselves; a dotted key is rewritten, and a bare
    // column name only where it is written as a key (`sequence_parallel: false`).
    const bool dotted = word.find('.') != std::string::npos;
    const bool as_key = text.compare(k, 2, ": ") == 0;
    if (hit == map.end() || (!dotted && !as_key)) {
      out += word;
      i = k;
      continue;
    }
    if (hit->second.empty()) {
      if (derived_keys) derived_keys->insert(word);
      out += word;
      i = k;
      continue;
    }
    out += hit->second;
    i = k;
    if (as_key) {
      out += " = ";
      i += 2;
    }
  }
  return out;
}

// Runs a scenario check and re-raises its error at the row's line, under the CSV column, with
// its message and remedy in the CSV's terms.
template <class F>
void at_row(const CsvTable& t, size_t r, F&& check) {
  try {
    check();
  } catch (const Error& e) {
    const std::string& key = e.where().key;
    std::string col = csv_column_of(key);
    std::set<std::string> derived;
    std::string msg = in_csv_terms(e.message(), &derived);
    std::string hint = in_csv_terms(e.hint(), &derived);
    // The plan's product has no key of its own in a scenario's derived dp; in the CSV every
    // degree is a column.
    if (col == "dp" && msg.find("tp*pp*dp*cp") != std::string::npos) col = "num_gpus";
    if (col.empty()) {
      // No column sets the key: the error stands on the row's line, with the key named.
      if (!key.empty()) derived.insert(key);
    } else if (!t.has(col)) {
      msg += " (scenario key " + key + ", column " + col + ", which this file does not have)";
      col.clear();
    }
    for (const auto& k : derived) msg += " (scenario key " + k + ": " + derived_from(k) + ")";
    throw Error(cell(t, r, col), msg, hint);
  }
}
}  // namespace

Scenario scenario_from_training_row(const CsvTable& t, size_t r, const Catalog& cat) {
  const SourceLocation where{t.file(), t.line_of(r)};
  // Integer columns are range-checked before any use (a 0 divides, a value past INT_MAX would
  // wrap in the int fields): the error names the file, line and column.
  auto int_col = [&](const char* col, int64_t lo, std::optional<int64_t> dflt = std::nullopt) -> int {
    const int64_t v = dflt ? t.i64(r, col, *dflt) : t.i64(r, col);
    if (v < lo || v > std::numeric_limits<int>::max())
      throw Error(cell(t, r, col),
                  std::string(col) + " must be an integer from " + std::to_string(lo) + " to " +
                      std::to_string(std::numeric_limits<int>::max()) + ", got '" + t.at(r, col) + "'");
    return static_cast<int>(v);
  };
  // Cells are read trimmed, as the numeric ones are (' 8' is 8): ' false' had been refused.
  auto trimmed = [&](const char* col) {
    const std::string& raw = t.at(r, col);
    const auto a = raw.find_first_not_of(" \t"), b = raw.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : raw.substr(a, b - a + 1);
  };
  auto choice_col = [&](const char* col, const std::vector<std::string>& valid) {
    const std::string v = trimmed(col);
    if (std::find(valid.begin(), valid.end(), v) == valid.end()) {
      // The empty choice is shown as "empty": it had read "valid: true, false, , unknown" (review
      // of 2026-12-06).
      std::vector<std::string> shown;
      for (const auto& c : valid) shown.push_back(c.empty() ? "empty" : c);
      throw Error(cell(t, r, col), "'" + v + "' is not a valid " + col, valid_choices_hint(v, shown));
    }
    return v;
  };
  // A boolean cell in any letter case: pandas and spreadsheets write True/False and TRUE/FALSE,
  // which had been refused as "'False' is not a valid sequence_parallel" (review of 2026-12-06).
  auto lower = [](std::string v) {
    for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return v;
  };
  auto lower_bool = [&](const std::string& v) {
    const std::string lc = lower(v);
    return lc == "true" || lc == "false" ? lc : v;
  };
  // Optional true/false columns: empty or absent leaves the default.
  auto flag = [&](const char* col, bool& field) {
    if (!t.has(col)) return;
    const std::string v = lower_bool(trimmed(col));
    if (v.empty()) return;
    if (v != "true" && v != "false")
      throw Error(cell(t, r, col), "'" + v + "' is not a boolean", "valid: true, false, or empty (not stated)");
    field = v == "true";
  };
  Scenario s;
  s.file = t.file();
  s.name = trimmed("id");
  ModelConfig& m = s.model;
  m.id = trimmed("model");
  m.name = m.id;
  m.source = "row " + s.name + " of " + t.file();
  m.layers = int_col("layers", 1);
  m.hidden = int_col("hidden", 1);
  m.heads = int_col("heads", 1);
  // Required columns have no default: an empty kv_heads, cp, ep, zero_stage or recompute had run
  // as no GQA, 1, 1, 0 and none, silently (an empty ep moved GPT-OSS from -18% to +27%).
  m.kv_heads = int_col("kv_heads", 1);
  // Optional `head_dim` column: models whose query width heads*head_dim differs from hidden
  // (Qwen3, GPT-OSS) state it; empty or absent: hidden / heads, which must then divide.
  if (t.has("head_dim") && !trimmed("head_dim").empty()) {
    m.head_dim = int_col("head_dim", 1);
  } else {
    if (m.hidden % m.heads != 0)
      throw Error(cell(t, r, "hidden"),
                  "hidden " + std::to_string(m.hidden) + " is not a multiple of heads " + std::to_string(m.heads) +
                      ", and the row gives no head_dim",
                  "state the model's head_dim (a column), or correct hidden or heads");
    m.head_dim = m.hidden / m.heads;
  }
  m.ffn_hidden = int_col("ffn_hidden", 0, 0);
  m.vocab = int_col("vocab", 1);
  const std::string mlp = trimmed("mlp");
  if (mlp != "gelu" && mlp != "relu2" && mlp != "swiglu" && mlp != "geglu")
    throw Error(cell(t, r, "mlp"), "unknown mlp '" + mlp + "'",
                valid_choices_hint(mlp, {"gelu", "relu2", "swiglu", "geglu"}));
  m.mlp = mlp;
  if (t.has("num_experts") && !trimmed("num_experts").empty()) {
    MoEConfig x;
    x.num_experts = int_col("num_experts", 1);
    x.topk = int_col("moe_topk", 1);
    x.expert_ffn_hidden = int_col("moe_ffn_hidden", 1);
    x.shared_experts = int_col("shared_experts", 0, 0);
    x.dense_layers = int_col("dense_layers", 0, 0);
    m.moe = x;
  } else {
    // A dense row's MoE columns are empty (data/validation/README.md): before 2026-12-06 they were
    // never read, so a row with a top-k or an expert width but no num_experts (a shifted cell, a
    // lost expert count) ran as a dense model without a word, whatever the cell held (review).
    for (const char* col : {"moe_topk", "moe_ffn_hidden", "shared_experts", "dense_layers"})
      if (t.has(col) && !trimmed(col).empty())
        throw Error(cell(t, r, col),
                    std::string(col) + " is '" + trimmed(col) + "' but " +
                        (t.has("num_experts") ? "num_experts is empty" : "the file has no num_experts column") +
                        ": the row is a dense model, whose MoE columns are empty",
                    "give num_experts for an MoE model, or leave moe_topk, moe_ffn_hidden, shared_experts and dense_layers empty");
  }
  // Optional `qk_norm` column: RMSNorm on each head's query and key (Qwen3, OLMo 2), with its
  // kernels, saved inputs and replicated weights (docs/models.md). Without it the Qwen3 rows had
  // run a model without QK-norm, unlike the catalog's (2026-12-05 review: 1.8 GB and 0.9% of the
  // step apart on the MBS-5225 row).
  flag("qk_norm", m.qk_norm);
  at_row(t, r, [&] { m.validate(where); });
  // The descriptive throughput is not read by the model, but it is a number of the row: before
  // 2026-12-06 it was never parsed, and 'abc', nan or -1 passed (review). Empty: not stated.
  if (t.has("target_tokens_per_s_per_gpu") && !trimmed("target_tokens_per_s_per_gpu").empty()) {
    const double tps = t.f64(r, "target_tokens_per_s_per_gpu");  // refuses text, nan and inf, naming the cell
    if (!(tps > 0))
      throw Error(cell(t, r, "target_tokens_per_s_per_gpu"),
                  "target_tokens_per_s_per_gpu must be a positive number of tokens per second per GPU, got '" +
                      trimmed("target_tokens_per_s_per_gpu") + "'",
                  "global_batch*seq_len/(target_step_time_s*num_gpus), or leave the cell empty");
  }

  const std::string sys = trimmed("system");
  if (!cat.has_system(sys))
    throw Error(cell(t, r, "system"), "unknown system '" + sys + "'",
                valid_choices_hint(sys, cat.system_ids()));
  s.system = cat.system(sys);
  const std::string acc = trimmed("accelerator");
  if (!cat.has_accelerator(acc))
    throw Error(cell(t, r, "accelerator"), "unknown accelerator '" + acc + "'",
                valid_choices_hint(acc, cat.accelerator_ids()));
  s.accelerator = cat.accelerator(acc);
  s.scale_up = cat.network(s.system.scale_up_network);
  if (!s.system.scale_out_network.empty()) s.scale_out = cat.network(s.system.scale_out_network);
  // The node the run used is the named system's: a different count (3 GPUs in a node of an
  // 8-GPU NVLink domain, 1,000) had been applied to that system without a check, moving the
  // prediction by up to 506% (review of 2026-12-05).
  if (t.has("gpus_per_node") && !trimmed("gpus_per_node").empty()) {
    const int gpn = int_col("gpus_per_node", 1);
    if (gpn != s.system.gpus_per_node)
      throw Error(cell(t, r, "gpus_per_node"),
                  "gpus_per_node " + std::to_string(gpn) + " is not system '" + sys + "''s " + std::to_string(s.system.gpus_per_node) +
                      " GPUs per node",
                  "name a catalog system whose nodes the run used, or leave the cell empty");
  }

  s.num_gpus = int_col("num_gpus", 1);
  auto& p = s.plan;
  p.tp = int_col("tp", 1);
  p.pp = int_col("pp", 1);
  p.dp = int_col("dp", 1);
  p.cp = int_col("cp", 1);
  p.ep = int_col("ep", 1);
  p.etp = 1;
  p.vpp = int_col("vpp", 1, 1);  // empty: 1, which the schema reads as "not stated"
  // `unknown` (data/validation/README.md) is the empty cell's policy, not an error.
  // (true, false and unknown in any letter case)
  std::string sp = lower_bool(trimmed("sequence_parallel"));
  if (lower(sp) == "unknown") sp.clear();
  if (sp != "true" && sp != "false" && !sp.empty()) sp = choice_col("sequence_parallel", {"true", "false", "", "unknown"});
  p.sequence_parallel = sp == "true" || (sp != "false" && p.tp > 1);
  p.zero_stage = int_col("zero_stage", 0);
  if (p.zero_stage > 3)
    throw Error(cell(t, r, "zero_stage"), "zero_stage must be 0, 1, 2 or 3, got '" + t.at(r, "zero_stage") + "'");
  p.schedule = p.vpp > 1 ? "interleaved-1f1b" : "1f1b";
  // The stage layout for the plan's pp*vpp virtual stages: even where they divide the layers,
  // else fewer-first-last where pp*vpp divides layers+2, else the remainder spread (documented
  // policy). One choice for the stated vpp and for the 1F1B fallback below (review of 2026-12-06:
  // the fallback set fewer-first-last whenever pp did not divide the layers, and a valid row with
  // 61 layers over pp 4 was refused, where vpp 1 ran).
  auto lay_out_stages = [&] {
    const int n = p.pp * p.vpp;
    p.stage_rule = "even";
    p.stage_layers.clear();
    if (m.layers % n == 0) return;
    if ((m.layers + 2) % n == 0) {
      p.stage_rule = "fewer-first-last";
      return;
    }
    p.stage_layers.assign(static_cast<size_t>(n), m.layers / n);
    for (int i = 0; i < m.layers % n; ++i) p.stage_layers[static_cast<size_t>(i + 1) % p.stage_layers.size()]++;
  };
  lay_out_stages();
  // Optional `framework` column: a catalog framework id whose implementation choices the row's
  // plan takes (empty or absent: the plan defaults).
  if (t.has("framework") && !trimmed("framework").empty()) {
    const std::string fw = trimmed("framework");
    if (!cat.has_framework(fw))
      throw Error(cell(t, r, "framework"), "unknown framework '" + fw + "'",
                  valid_choices_hint(fw, cat.framework_ids()));
    s.framework = fw;
    apply_framework_defaults(p, cat.framework(fw));
    if (sp.empty() && !framework_has_sequence_parallel(cat.framework(fw))) p.sequence_parallel = false;
  }
  auto& tr = s.train;
  tr.global_batch = int_col("global_batch", 1);
  tr.micro_batch_given = !trimmed("micro_batch").empty();
  tr.micro_batch = int_col("micro_batch", 1, 1);
  tr.seq_len = int_col("seq_len", 1);
  tr.precision = parse_dtype(trimmed("precision"), cell(t, r, "precision"));
  tr.grad_reduce_dtype = tr.precision == DType::FP16 ? DType::FP16 : DType::FP32;
  if (!s.framework.empty() && !cat.framework(s.framework).grad_reduce_dtype.value.empty())
    tr.grad_reduce_dtype = parse_dtype(cat.framework(s.framework).grad_reduce_dtype.value, SourceLocation{});
  if (!s.framework.empty()) {
    const Framework& fw = cat.framework(s.framework);
    tr.moe_weighting_in_expert = fw.moe_router_weighting.value == "in_expert";
    // The stack's attention kernel, as a scenario naming the framework takes it: an older kernel's
    // rate cap, and materialised scores where the stack has no flash attention (docs/validation.md).
    if (fw.attention_peak_fraction.known) tr.attention_peak_fraction = fw.attention_peak_fraction.value;
    tr.flash_attention = framework_has_flash_attention(fw);
  }
  // Dropout as a scenario naming the framework takes it: the row's model states none (no column),
  // so the framework's recipes decide (LLM Foundry's MPT: none), else the GELU convention.
  tr.dropout = dropout_default(s.model, s.framework.empty() ? nullptr : &cat.framework(s.framework));
  const std::string rc = choice_col("recompute", {"none", "selective", "full"});
  tr.recompute = rc == "full" ? Recompute::Full : rc == "selective" ? Recompute::Selective : Recompute::None;
  // Optional overlap columns (flag above; empty or absent: the scenario defaults, i.e. DP gradient
  // reduction and parameter gathering overlapped, TP communication not).
  flag("tp_comm_overlap", p.tp_comm_overlap);
  flag("overlap_grad_reduce", p.overlap_grad_reduce);
  flag("overlap_param_gather", p.overlap_param_gather);
  flag("ep_comm_overlap", p.ep_comm_overlap);
  p.ep_comm_overlap_stated = t.has("ep_comm_overlap") && !trimmed("ep_comm_overlap").empty();
  // Optional `fp8_recipe` column (delayed | current | blockwise | mxfp8; empty or absent:
  // delayed, Transformer Engine's default).
  if (t.has("fp8_recipe") && !trimmed("fp8_recipe").empty()) {
    const std::string v = trimmed("fp8_recipe");
    const auto& valid = fp8_recipe_names();
    if (std::find(valid.begin(), valid.end(), v) == valid.end())
      throw Error(cell(t, r, "fp8_recipe"), "unknown FP8 recipe '" + v + "'",
                  valid_choices_hint(v, valid));
    tr.fp8_recipe = v;
  }
  // Optional `moe_dispatcher` column (empty or absent: alltoall, Megatron-Core's all-to-all
  // dispatcher with one copy per token and expert).
  if (t.has("moe_dispatcher") && !trimmed("moe_dispatcher").empty()) {
    const std::string d = trimmed("moe_dispatcher");
    const auto& valid = moe_dispatcher_names();
    if (std::find(valid.begin(), valid.end(), d) == valid.end())
      throw Error(cell(t, r, "moe_dispatcher"), "unknown MoE dispatcher '" + d + "'",
                  valid_choices_hint(d, valid));
    p.moe_dispatcher = d;
  }
  // A micro-batch count that is not a multiple of pp cannot run interleaved: fall back.
  if (p.vpp > 1 && s.num_microbatches() % p.pp != 0) {
    p.vpp = 1;
    p.schedule = "1f1b";
    lay_out_stages();
  }
  at_row(t, r, [&] { check_plan(s, where); });
  return s;
}

ErrorSummary summarize_errors(std::vector<double> e) {
  ErrorSummary s;
  s.rows = e.size();
  if (e.empty()) return s;
  double sum = 0;
  for (double x : e) sum += x;
  s.mean_signed_pct = sum / e.size();
  for (double& x : e) x = std::fabs(x);
  std::sort(e.begin(), e.end());
  auto q = [&](double f) {
    const double pos = f * (e.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(e.size() - 1, lo + 1);
    return e[lo] + (e[hi] - e[lo]) * (pos - lo);
  };
  s.median_abs_pct = q(0.5);
  s.p90_abs_pct = q(0.9);
  s.max_abs_pct = e.back();
  return s;
}

namespace {
void apply(Scenario& s, const FittedConstants& f) {
  s.accelerator.sustained_compute_fraction = Sourced{f.sustained_compute_fraction, "fitted", "", true};
  s.accelerator.gemm_half_dim = Sourced{f.gemm_half_dim, "fitted", "", true};
  // The fit is of one symmetric half-dimension: it applies to every role (m, n, k).
  s.accelerator.gemm_half_dim_m = s.accelerator.gemm_half_dim_n = s.accelerator.gemm_half_dim_k = Sourced{};
}
}  // namespace

std::string known_issue_of(const CsvTable& t, size_t row) {
  if (!t.has("known_issue")) return {};
  const std::string& raw = t.at(row, "known_issue");
  const auto a = raw.find_first_not_of(" \t"), b = raw.find_last_not_of(" \t");
  const std::string v = a == std::string::npos ? std::string() : raw.substr(a, b - a + 1);  // trimmed, as every cell
  if (v.empty()) return v;
  // A citation, not a free-text excuse: the address of the publisher's own acknowledgement.
  if (v.rfind("https://", 0) != 0 || v.size() <= 8 || v.find_first_of(" \t\"") != std::string::npos)
    throw Error(cell(t, row, "known_issue"), "'" + v + "' is not an https address",
                "valid: empty, or the https address of the publisher's acknowledgement that this run is slower than "
                "its software should be (an issue or release note)");
  return v;
}

std::vector<FittedConstants> fit_constants(const CsvTable& t, const std::vector<Scenario>& rows,
                                           const std::string& exclude_source) {
  std::map<std::string, std::vector<size_t>> by_acc;
  // A run its publisher calls a regression measures that software's defect, not the hardware:
  // it does not calibrate the hardware's constants.
  for (size_t i = 0; i < rows.size(); ++i)
    if ((exclude_source.empty() || cell_text(t, i, "source") != exclude_source) && known_issue_of(t, i).empty())
      by_acc[rows[i].accelerator.id].push_back(i);
  const Estimator est;
  std::vector<FittedConstants> out;
  for (const auto& entry : by_acc) {
    // Named references, not a structured binding: clang 14 (the fuzz build) cannot capture
    // structured bindings in the lambda below.
    const auto& acc = entry.first;
    const auto& idx = entry.second;
    FittedConstants best;
    best.accelerator = acc;
    best.rows = idx.size();
    // Each row is lowered once: lowering reads none of the two constants (only the compute model
    // does), so the workloads stay valid as the constants of their scenarios change. The search
    // below evaluates some 700 points an accelerator (2026-12-06).
    std::vector<Scenario> sc;
    sc.reserve(idx.size());  // no reallocation: each workload points at its scenario
    std::vector<ir::Workload> ws;
    std::vector<double> target;
    for (size_t i : idx) {
      sc.push_back(rows[i]);
      ws.push_back(ir::lower(sc.back()));
      target.push_back(target_step_time_of(t, i));
    }
    auto cost = [&](double sus, double half) {
      const FittedConstants f{acc, sus, half, 0};
      double c = 0;
      for (size_t j = 0; j < sc.size(); ++j) {
        apply(sc[j], f);
        c += std::fabs(std::log(est.run(ws[j]).step_time_s / target[j]));
      }
      return c;
    };
    // The best sustained fraction for one half-dimension, rounded as reported, and its cost. The
    // cost is convex in log(sustained): golden-section search on [kFitSustainedLo, kFitSustainedHi].
    struct Point {
      double sus = 0, half = 0, cost = std::numeric_limits<double>::infinity();
    };
    auto best_sustained = [&](double half) {
      double lo = kFitSustainedLo, hi = kFitSustainedHi;
      const double g = (std::sqrt(5.0) - 1) / 2;
      double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = cost(x1, half), f2 = cost(x2, half);
      for (int it = 0; it < 24; ++it) {
        if (f1 < f2) {
          hi = x2; x2 = x1; f2 = f1; x1 = hi - g * (hi - lo); f1 = cost(x1, half);
        } else {
          lo = x1; x1 = x2; f1 = f2; x2 = lo + g * (hi - lo); f2 = cost(x2, half);
        }
      }
      const double sus = std::round(0.5 * (lo + hi) * 1000) / 1000;
      return Point{sus, half, cost(sus, half)};
    };
    // The half-dimension (review of 2026-12-06): it had been tried at 32, 64, ..., 1024 only, and
    // a fold of leave-one-source-out put the A100-80GB at 32, the grid's bottom, with the objective
    // still falling below it. Now 0 (no shape term) and every power of two from 1 to
    // kFitHalfDimMax, then a golden-section search in log(half) between the best one's
    // neighbours; the optimum, rounded to whole elements, says when it lies on a bound.
    std::vector<Point> grid{best_sustained(0.0)};
    for (double h = 1; h <= kFitHalfDimMax; h *= 2) grid.push_back(best_sustained(h));
    size_t k = 0;
    for (size_t j = 1; j < grid.size(); ++j)
      if (grid[j].cost < grid[k].cost) k = j;
    Point opt = grid[k];
    if (k > 0 && k + 1 < grid.size()) {
      // Between the neighbours in log2(half): half the best's down to twice it.
      double lo = std::log2(grid[k].half) - 1, hi = std::log2(grid[k].half) + 1;
      const double g = (std::sqrt(5.0) - 1) / 2;
      double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
      Point p1 = best_sustained(std::exp2(x1)), p2 = best_sustained(std::exp2(x2));
      for (int it = 0; it < 8; ++it) {  // the bracket, 2 in log2, to 0.04 (3% in half)
        if (p1.cost < p2.cost) {
          hi = x2; x2 = x1; p2 = p1; x1 = hi - g * (hi - lo); p1 = best_sustained(std::exp2(x1));
        } else {
          lo = x1; x1 = x2; p1 = p2; x2 = lo + g * (hi - lo); p2 = best_sustained(std::exp2(x2));
        }
      }
      const Point r = best_sustained(std::round(std::exp2(0.5 * (lo + hi))));
      if (r.cost < opt.cost) opt = r;
    }
    best.sustained_compute_fraction = opt.sus;
    best.gemm_half_dim = opt.half;
    best.objective = opt.cost;
    // A bound of the search is not an optimum the data chose: said (0 is the shape term's own
    // bound, no penalty for small GEMMs; the others are the search's).
    if (opt.half <= 0)
      best.at_bound = "gemm_half_dim at 0, its lower bound (no shape term)";
    else if (opt.half >= kFitHalfDimMax)
      best.at_bound = "gemm_half_dim at the search's upper bound " + format_double(kFitHalfDimMax);
    const double step = 0.001;
    if (opt.sus <= kFitSustainedLo + step || opt.sus >= kFitSustainedHi - step)
      best.at_bound += std::string(best.at_bound.empty() ? "" : "; ") + "sustained_compute_fraction at the search's bound " +
                       format_double(opt.sus <= kFitSustainedLo + step ? kFitSustainedLo : kFitSustainedHi);
    out.push_back(best);
  }
  return out;
}

namespace {
// The inputs a row leaves to the documented policy and that its prediction depends on (review of
// 2026-12-07): an empty micro_batch (1), an empty vpp where pp > 1 (1, no interleaving), a stated
// vpp the micro-batch count cannot interleave (1), an empty or `unknown` sequence_parallel where
// tp > 1 (on, or off under a framework without it). "; "-separated, empty when the row states them.
// Optional columns left empty take the scenario's defaults and are not listed (docs/validation.md).
std::string assumed_inputs(const CsvTable& t, size_t row, const Scenario& s) {
  std::string out;
  auto add = [&](const std::string& x) { out += (out.empty() ? "" : "; ") + x; };
  if (cell_text(t, row, "micro_batch").empty()) add("micro_batch=" + std::to_string(s.train.micro_batch));
  const std::string vpp = cell_text(t, row, "vpp");
  if (vpp.empty() && s.plan.pp > 1)
    add("vpp=1");
  else if (!vpp.empty() && t.i64(row, "vpp") > 1 && s.plan.vpp == 1)
    add("vpp=1 (stated " + vpp + ", the micro-batch count is not a multiple of pp)");
  std::string sp = cell_text(t, row, "sequence_parallel");
  for (auto& ch : sp) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if ((sp.empty() || sp == "unknown") && s.plan.tp > 1)
    add(std::string("sequence_parallel=") + (s.plan.sequence_parallel ? "true" : "false"));
  return out;
}
}  // namespace

Result validate_training_csv(const std::string& path, const Catalog& cat, const ValidationOptions& opt) {
  const CsvTable t = CsvTable::read_file(path);
  if (!looks_like_training_csv(t.header())) {
    std::string missing;
    for (const auto& c : kRequired)
      if (!t.has(c)) {
        missing += (missing.empty() ? "" : ", ") + c;
        const std::string near = closest_match(c, t.header());
        if (!near.empty()) missing += " (the header has '" + near + "')";
      }
    throw Error(SourceLocation{path, 1}, "not a training validation CSV: missing columns " + missing);
  }
  check_training_columns(t);
  if (t.rows() == 0) throw Error(SourceLocation{path, 1}, "no data rows: the file has a header only", "add rows below the header");
  if (opt.engine != "estimate" && opt.engine != "simulate")
    throw Error(SourceLocation{"", 0, 0, "--engine"}, "unknown engine '" + opt.engine + "'",
                valid_choices_hint(opt.engine, {"estimate", "simulate"}));
  Result r;
  r.command = "validate";
  r.set("file", path);
  r.set("schema", std::string("training"));
  r.set("engine", opt.engine);
  Table& rows = r.add_table("validation_rows", "predicted against published step time, per row");
  rows.add_str("id");
  rows.add_str("source");
  rows.add_str("model");
  rows.add_i64("num_gpus");
  rows.add_f64("predicted_step_time_s");
  rows.add_f64("target_step_time_s");
  rows.add_f64("error_pct");
  // MFU, both with the model's FLOP count (causal attention at its mean key length): over the
  // predicted step, and over the measured (target) step. The docs had called the first "the
  // model's FLOPs over the measured step" (review of 2026-12-06), which only the second is.
  rows.add_f64("predicted_mfu_fraction");
  rows.add_f64("measured_mfu_fraction");
  rows.add_f64("exposed_comm_share_fraction");
  rows.add_f64("bubble_share_fraction");
  rows.add_str("fits_memory");
  rows.add_f64("predicted_memory_per_gpu_bytes");
  rows.add_f64("memory_capacity_bytes");
  rows.add_str("known_issue");
  // The inputs the row leaves to the documented policy (review of 2026-12-07: an empty micro_batch
  // ran at 1 in 22 bundled rows, and neither a column nor a note said so, where micro-batch 2 moves
  // MLM-README-H100-04 from +32.5% to +4.0%).
  rows.add_str("assumed");
  // Under leave-one-source-out, each row's prediction with the constants refitted without its
  // source (review of 2026-12-07: only per-source median and max were given, so the pooled p90 and
  // the held-out figures could not be recomputed); loso_refitted false: the catalog's constants.
  if (opt.leave_one_source_out) {
    rows.add_f64("loso_predicted_step_time_s");
    rows.add_f64("loso_error_pct");
    rows.add_str("loso_refitted");
  }
  std::map<std::string, std::vector<double>> by_source;
  std::vector<double> all, unflagged;
  int64_t flagged = 0;
  const Estimator est;
  std::vector<Scenario> scen;
  std::vector<std::string> assumed;
  std::map<std::string, int> id_line;  // an id given twice counted twice in every statistic
  std::string vpp_dropped;
  for (size_t i = 0; i < t.rows(); ++i) {
    const std::string id = cell_text(t, i, "id");
    for (const char* col : {"id", "source"})
      if (cell_text(t, i, col).empty())
        throw Error(cell(t, i, col), std::string("the row's ") + col + " is empty",
                    std::string("every row names its ") + (std::string(col) == "id" ? "run (a unique id)" : "source (the publication it comes from)"));
    if (const auto [it, fresh] = id_line.emplace(id, t.line_of(i)); !fresh)
      throw Error(cell(t, i, "id"), "id '" + id + "' is given twice (first at line " + std::to_string(it->second) + ")",
                  "each row is one published run: remove or rename one");
    scen.push_back(scenario_from_training_row(t, i, cat));
    // A stated vpp the micro-batch count cannot interleave runs as vpp 1 (the policy): said.
    if (!t.at(i, "vpp").empty() && t.i64(i, "vpp") > 1 && scen.back().plan.vpp == 1)
      vpp_dropped += (vpp_dropped.empty() ? "" : ", ") + id;
    assumed.push_back(assumed_inputs(t, i, scen.back()));
  }
  if (!vpp_dropped.empty())
    r.notes.push_back("vpp stated but run as 1 (the micro-batch count is not a multiple of pp, which interleaving needs): " + vpp_dropped);
  {
    // How many rows rest on which policy values (the `assumed` column gives each row's).
    std::map<std::string, size_t> count;
    size_t with = 0;
    for (const auto& a : assumed) {
      if (a.empty()) continue;
      ++with;
      for (size_t at = 0; at < a.size();) {
        const size_t end = std::min(a.find("; ", at), a.size());
        const std::string entry = a.substr(at, end - at);
        ++count[entry.substr(0, entry.find(" ("))];
        at = end + 2;
      }
    }
    if (with > 0) {
      std::string list;
      for (const auto& [entry, n] : count)
        list += (list.empty() ? "" : ", ") + entry + " in " + std::to_string(n) + (n == 1 ? " row" : " rows");
      r.notes.push_back(std::to_string(with) + " of " + std::to_string(t.rows()) +
                        " rows do not state every input, and run on the documented policy's values (column `assumed`): " + list +
                        "; their errors rest on those values as much as on the model");
    }
  }
  // Leave-one-source-out starts from the catalog's constants, whatever --fit applies below: a row
  // no other source can refit keeps the catalog's values, as its table says (review of 2026-12-06:
  // with --fit it had kept the constants fitted to every row, its own source's included).
  const std::vector<Scenario> scen_catalog = opt.leave_one_source_out ? scen : std::vector<Scenario>{};
  // Each row held out with its source: its prediction with the constants refitted without that
  // source, whether they were refitted, and each source's refitted_constants text.
  std::vector<double> loso_pred(t.rows(), std::nan("")), loso_err(t.rows(), std::nan(""));
  std::vector<bool> loso_refit(t.rows(), false);
  std::map<std::string, std::string> loso_desc;
  if (opt.leave_one_source_out) {
    std::set<std::string> sources;
    for (size_t i = 0; i < t.rows(); ++i) sources.insert(cell_text(t, i, "source"));
    for (const auto& src : sources) {
      // Refit the fitted constants (docs/validation.md) without the source and predict its rows
      // with them: the error a new source would see.
      const auto fitted = fit_constants(t, scen_catalog, src);
      std::string desc;
      std::set<std::string> in_sample;  // accelerators of the held-out rows no other source could refit
      for (const auto& f : fitted)
        desc += (desc.empty() ? "" : "; ") + f.accelerator + " sustained=" + format_double(f.sustained_compute_fraction) +
                " half_dim=" + format_double(f.gemm_half_dim) + (f.at_bound.empty() ? "" : " (" + f.at_bound + ")");
      for (size_t i = 0; i < t.rows(); ++i) {
        if (cell_text(t, i, "source") != src) continue;
        Scenario s = scen_catalog[i];
        for (const auto& f : fitted)
          if (f.accelerator == s.accelerator.id) apply(s, f);
        const double target = target_step_time_of(t, i);
        // The held-out rows run on the engine asked for (the fit is estimate's): with --engine
        // simulate they were estimated before 2026-12-02, and the table did not say so.
        const ir::Workload w = ir::lower(s);
        loso_pred[i] = opt.engine == "simulate" ? sim::simulate(w).step.step_time_s : est.run(w).step_time_s;
        loso_err[i] = (loso_pred[i] - target) / target * 100.0;
        bool refit = false;
        for (const auto& f : fitted) refit = refit || f.accelerator == s.accelerator.id;
        loso_refit[i] = refit;
        if (!refit) in_sample.insert(s.accelerator.id);
      }
      // No other source has rows on an accelerator of the held-out rows: nothing to refit from, so
      // they ran on the catalog's constants, fitted with these very rows. Said, not passed off as
      // held out (the 43 A100-40GB rows of MPT-LLMFOUNDRY).
      for (const auto& a : in_sample)
        desc += (desc.empty() ? "" : "; ") + a + " not refitted (no other source has rows on it): the catalog's values, in-sample where they were fitted to these rows";
      loso_desc[src] = desc;
    }
  }
  if (opt.fit) {
    const auto fitted = fit_constants(t, scen);
    Table& ft = r.add_table("fitted_constants", "accelerator constants fitted to these rows (write them to the catalog with their origin)");
    ft.add_str("accelerator");
    ft.add_i64("rows_count");
    ft.add_f64("sustained_compute_fraction");
    ft.add_f64("gemm_half_dim");
    // The objective at the optimum, and a bound of the search the optimum lies on (review of
    // 2026-12-06: the half-dimension's grid had ended at 32, and an optimum there read as chosen).
    ft.add_f64("sum_abs_log_ratio");
    ft.add_str("at_search_bound");
    for (const auto& f : fitted) {
      ft.add_row({f.accelerator, int64_t(f.rows), f.sustained_compute_fraction, f.gemm_half_dim, f.objective, f.at_bound});
      if (!f.at_bound.empty())
        r.notes.push_back("--fit: " + f.accelerator + "'s optimum lies on a bound of the search (" + f.at_bound +
                          "): the rows would take a value beyond it, which the search does not try");
      for (auto& s : scen)
        if (s.accelerator.id == f.accelerator) apply(s, f);
    }
  }
  for (size_t i = 0; i < t.rows(); ++i) {
    const Scenario& s = scen[i];
    const ir::Workload w = ir::lower(s);
    // engine simulate: the event-level simulation of the same workload (default options).
    const StepEstimate e = opt.engine == "simulate" ? sim::simulate(w).step : est.run(w);
    const double target = target_step_time_of(t, i);
    const double err = (e.step_time_s - target) / target * 100.0;
    std::vector<Value> cells{cell_text(t, i, "id"), cell_text(t, i, "source"), cell_text(t, i, "model"), int64_t{s.num_gpus}, e.step_time_s,
                             target, err, e.mfu_fraction, e.mfu_fraction * e.step_time_s / target, e.exposed_comm_s / e.step_time_s,
                             e.bubble_s / e.step_time_s, std::string(e.fits ? "true" : "false"), e.memory.total_bytes(),
                             e.memory_capacity_bytes, known_issue_of(t, i), assumed[i]};
    if (opt.leave_one_source_out) {
      cells.emplace_back(loso_pred[i]);
      cells.emplace_back(loso_err[i]);
      cells.emplace_back(std::string(loso_refit[i] ? "true" : "false"));
    }
    rows.add_row(cells);
    by_source[cell_text(t, i, "source")].push_back(err);
    all.push_back(err);
    if (known_issue_of(t, i).empty())
      unflagged.push_back(err);
    else
      ++flagged;
  }
  const auto sum = summarize_errors(all);
  r.set("rows_count", int64_t(sum.rows));
  r.set("median_abs_error_pct", sum.median_abs_pct);
  r.set("p90_abs_error_pct", sum.p90_abs_pct);
  r.set("max_abs_error_pct", sum.max_abs_pct);
  r.set("mean_signed_error_pct", sum.mean_signed_pct);
  // Every statistic above counts every row. The rows with a `known_issue` citation are also
  // counted apart, so that a reader sees both figures, never only the kinder one.
  r.set("known_issue_rows_count", flagged);
  r.set("max_abs_error_excl_known_issue_pct", summarize_errors(unflagged).max_abs_pct);
  Table& ps = r.add_table("per_source", "error summary per source");
  ps.add_str("source");
  ps.add_i64("rows_count");
  ps.add_f64("median_abs_error_pct");
  ps.add_f64("p90_abs_error_pct");
  ps.add_f64("max_abs_error_pct");
  ps.add_f64("mean_signed_error_pct");
  for (const auto& [src, v] : by_source) {
    const auto x = summarize_errors(v);
    ps.add_row({src, int64_t(x.rows), x.median_abs_pct, x.p90_abs_pct, x.max_abs_pct, x.mean_signed_pct});
  }
  if (opt.leave_one_source_out) {
    // The per-source and pooled figures of the per-row loso_* columns above.
    Table& lo = r.add_table("leave_one_source_out", "error of each source with the fitted constants refitted without it (" + opt.engine +
                                                       "; the refit is estimate's)");
    lo.add_str("held_out_source");
    lo.add_i64("rows_count");
    lo.add_f64("median_abs_error_pct");
    lo.add_f64("max_abs_error_pct");
    lo.add_str("refitted_constants");
    std::vector<double> held_all, refitted_all;  // every row; the rows whose constants were refitted
    for (const auto& [src, desc] : loso_desc) {
      std::vector<double> errs;
      for (size_t i = 0; i < t.rows(); ++i) {
        if (cell_text(t, i, "source") != src) continue;
        errs.push_back(loso_err[i]);
        if (loso_refit[i]) refitted_all.push_back(loso_err[i]);
      }
      held_all.insert(held_all.end(), errs.begin(), errs.end());
      const auto x = summarize_errors(errs);
      lo.add_row({src, int64_t(x.rows), x.median_abs_pct, x.max_abs_pct, desc});
    }
    const auto h = summarize_errors(held_all);
    r.set("loso_median_abs_error_pct", h.median_abs_pct);
    r.set("loso_p90_abs_error_pct", h.p90_abs_pct);
    r.set("loso_max_abs_error_pct", h.max_abs_pct);
    // The rows truly held out: those whose accelerator's constants another source could refit.
    // The figures above also count rows that kept the catalog's (in-sample) constants, which flatter
    // them (2026-12-04 audit: 124 rows 5.14% median, the 81 held out 6.06%).
    const auto ho = summarize_errors(refitted_all);
    r.set("loso_held_out_rows_count", static_cast<int64_t>(refitted_all.size()));
    // No row held out (one source, or no accelerator shared between sources): no figure, not 0%
    // (which read as a perfect score; review of 2026-12-05).
    const double none = std::nan("");
    r.set("loso_held_out_median_abs_error_pct", refitted_all.empty() ? none : ho.median_abs_pct);
    r.set("loso_held_out_p90_abs_error_pct", refitted_all.empty() ? none : ho.p90_abs_pct);
    r.set("loso_held_out_max_abs_error_pct", refitted_all.empty() ? none : ho.max_abs_pct);
    if (refitted_all.empty())
      r.notes.push_back("leave-one-source-out held no row out: no accelerator of one source has rows of another to refit its constants from");
  }
  return r;
}

std::optional<MeasuredMfu> highest_measured_mfu(const std::string& csv_path, const Catalog& cat, const std::string& accelerator,
                                                DType precision) {
  const CsvTable t = CsvTable::read_file(csv_path);
  if (!t.has("accelerator") || !t.has("target_step_time_s")) return std::nullopt;
  const Estimator est;
  std::optional<MeasuredMfu> best;
  size_t rows = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.at(i, "accelerator") != accelerator) continue;
    try {
      if (!known_issue_of(t, i).empty()) continue;
      const Scenario s = scenario_from_training_row(t, i, cat);
      if (s.train.precision != precision) continue;
      const double target = target_step_time_of(t, i);
      if (!(target > 0)) continue;
      const StepEstimate e = est.run(ir::lower(s));
      const double mfu = e.mfu_fraction * e.step_time_s / target;  // MFU scales as 1 / step time
      ++rows;
      if (!best || mfu > best->mfu_fraction) best = MeasuredMfu{mfu, cell_text(t, i, "id"), 0};
    } catch (const Error&) {
      continue;  // a row this catalog cannot describe says nothing about the range
    }
  }
  if (best) best->rows = rows;
  return best;
}

namespace {
std::string pct1(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", x);
  return buf;
}
std::string frac3(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return buf;
}
}  // namespace

ValidatedRange validated_range(const std::vector<std::string>& csv_paths, const Catalog& cat, const Scenario& s,
                               double predicted_mfu, double overall_median_abs_pct) {
  ValidatedRange out;
  const Estimator est;
  const bool moe = s.model.moe.has_value();
  std::vector<double> moe_err, moe_class_err;  // signed, percent; moe_class_err: rows of the scenario's precision class
  std::set<std::string> accelerators;
  // 8-bit (fp8, fp4 and int8 GEMMs with their quantisation kernels) against 16/32-bit: the
  // MoE rows' error differs between the two (fine-grained experts gain little from FP8 in the
  // measured runs), so the MoE note gives the rows of the scenario's class apart.
  auto eight_bit = [](DType d) { return d == DType::FP8 || d == DType::FP4 || d == DType::INT8; };
  for (const auto& path : csv_paths) {
    if (!std::filesystem::exists(path)) continue;
    const CsvTable t = CsvTable::read_file(path);
    if (!t.has("accelerator") || !t.has("target_step_time_s")) continue;
    for (size_t i = 0; i < t.rows(); ++i) {
      try {
        if (!known_issue_of(t, i).empty()) continue;
        const std::string acc = t.at(i, "accelerator");
        const bool same_acc = acc == s.accelerator.id;
        const bool row_moe = t.has("num_experts") && !t.at(i, "num_experts").empty() && t.f64(i, "num_experts") > 0;
        const bool same_fw = !s.framework.empty() && t.has("framework") && t.at(i, "framework") == s.framework;
        if (!same_acc && !(moe && row_moe) && !same_fw) {
          accelerators.insert(acc);
          continue;
        }
        const Scenario r = scenario_from_training_row(t, i, cat);
        accelerators.insert(acc);
        const double target = target_step_time_of(t, i);
        if (!(target > 0)) continue;
        const StepEstimate e = est.run(ir::lower(r));
        if (same_acc) {
          ++out.accelerator_rows;
          if (r.train.precision == s.train.precision) {
            ++out.precision_rows;
            // The MFU ceiling from runs of the same kind only: an MoE run's MFU says little of a
            // dense model's and the reverse (on B200 the only rows are Qwen3-30B-A3B at 0.05).
            if (row_moe == moe) {
              ++out.kind_rows;
              const double mfu = e.mfu_fraction * e.step_time_s / target;  // MFU scales as 1 / step time
              if (!out.mfu_max || mfu > out.mfu_max->mfu_fraction) out.mfu_max = MeasuredMfu{mfu, cell_text(t, i, "id"), 0};
            }
          }
        }
        if (same_fw) ++out.framework_rows;
        if (moe && row_moe) {
          moe_err.push_back(100.0 * (e.step_time_s / target - 1.0));
          if (eight_bit(r.train.precision) == eight_bit(s.train.precision)) moe_class_err.push_back(moe_err.back());
        }
      } catch (const Error&) {
        continue;  // a row this catalog cannot describe says nothing about the range
      }
    }
  }
  if (out.mfu_max) out.mfu_max->rows = out.kind_rows;
  const std::string acc = s.accelerator.id, prec = to_string(s.train.precision);
  auto rows_text = [](size_t n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); };
  // The rows' MFU is against the bundled catalog's peak; a scenario read with another catalog
  // may state another peak for the same accelerator: compare at the bundled one.
  double mfu_at_bundled_peak = predicted_mfu;
  if (cat.has_accelerator(acc)) {
    const Accelerator& b = cat.accelerator(acc);
    const DType d = s.accelerator.has_peak(s.train.precision) ? s.train.precision : DType::BF16;
    if (b.has_peak(d) && s.accelerator.has_peak(d) && b.peak(d) > 0) mfu_at_bundled_peak = predicted_mfu * s.accelerator.peak(d) / b.peak(d);
  }
  // An accelerator without efficiency terms (an inline or hypothetical part) runs its GEMMs at
  // the datasheet peak with the uncalibrated shape terms: it reads faster than fitted silicon,
  // said rather than silent (an H100 copied inline without them came out 18% faster than the
  // catalog's H100; review of 2026-12-05).
  {
    const Accelerator& a = s.accelerator;
    const DType d = a.has_peak(s.train.precision) ? s.train.precision : DType::BF16;
    // The GEMM rate is the one that matters most (0.7-0.8 of peak on the fitted parts); the others
    // (sustained rate 0.84-0.9, the shape term) are named with it when they are missing too.
    std::vector<std::string> missing;
    auto known_fraction = [&](DType x) {
      const auto g = a.gemm_peak_fraction.find(x);
      return g != a.gemm_peak_fraction.end() && g->second.known;
    };
    // (Accelerator::gemm_fraction falls back to the bf16 fraction.)
    const bool no_gemm = !known_fraction(d) && !known_fraction(DType::BF16);
    if (no_gemm) missing.push_back("gemm_peak_fraction");
    if (!a.sustained_compute_fraction.known) missing.push_back("sustained_compute_fraction");
    if (!a.gemm_half_dim.known) missing.push_back("gemm_half_dim");
    if (no_gemm) {
      std::string keys;
      for (const auto& k : missing) keys += (keys.empty() ? "" : ", ") + k;
      out.notes.push_back("accelerator " + acc + " states no efficiency." + (missing.size() > 1 ? "{" + keys + "}" : keys) +
                          ": uncalibrated defaults are used (GEMMs at 0.75 of peak" +
                          (a.sustained_compute_fraction.known ? std::string() : ", sustained at the burst rate") +
                          (a.gemm_half_dim.known ? std::string() : ", the shape term's half-dimension 128") +
                          "), which reads faster than the catalog's fitted parts (an H100 described so is about 18% faster than the "
                          "catalog's); give them from a benchmark of the part (sextant calibrate) or copy a similar part's (docs/catalog.md)");
    }
  }
  if (out.accelerator_rows == 0) {
    std::string list;
    for (const auto& a : accelerators) list += (list.empty() ? "" : ", ") + a;
    out.notes.push_back("outside the validated range: no validation row ran on " + acc +
                        ", so the model's error there is unmeasured (its catalog rates and efficiency terms are not checked "
                        "end to end; validated accelerators: " + list + ")");
  } else if (out.precision_rows == 0) {
    out.notes.push_back("outside the validated range: no validation row ran on " + acc + " in " + prec + " (" +
                        rows_text(out.accelerator_rows) + " in other precisions)");
  } else if (out.kind_rows == 0) {
    out.notes.push_back(std::string("outside the validated range: the validation rows on ") + acc + " in " + prec + " are all " +
                        (moe ? "dense" : "MoE") + " models (" + rows_text(out.precision_rows) + "), so none measures a " +
                        (moe ? "MoE" : "dense") + " model's rate there");
  }
  if (moe) {
    out.moe_rows = moe_err.size();
    if (moe_err.empty()) {
      out.notes.push_back("MoE model: no MoE validation row the catalog can describe, so the error of the MoE terms (routing, "
                          "all-to-all, expert GEMMs) is unmeasured");
    } else {
      const ErrorSummary e = summarize_errors(moe_err);
      out.moe_median_abs_pct = e.median_abs_pct;
      out.notes.push_back("MoE model: the " + std::to_string(e.rows) + " MoE validation rows are predicted with median |error| " +
                          pct1(e.median_abs_pct) + " (max " + pct1(e.max_abs_pct) +
                          "), against " + pct1(overall_median_abs_pct) +
                          " over the whole training set: read MoE step times and plan rankings with that margin");
      const std::string cls = eight_bit(s.train.precision) ? "8-bit precisions (fp8, fp4, int8)" : "16- and 32-bit precisions";
      if (moe_class_err.empty()) {
        out.notes.push_back("MoE model in " + prec + ": no MoE validation row ran in " + cls + ", so the error there is unmeasured");
      } else {
        const ErrorSummary c = summarize_errors(moe_class_err);
        size_t faster = 0;
        for (double x : moe_class_err) faster += x < 0 ? 1 : 0;
        out.moe_class_rows = moe_class_err.size();
        out.moe_class_median_abs_pct = c.median_abs_pct;
        out.moe_class_faster_rows = faster;
        std::string text = "MoE model in " + prec + ": of those rows, the " + rows_text(c.rows) + " in " + cls + " have median |error| " +
                           pct1(c.median_abs_pct) + ", predicted faster than measured in " + std::to_string(faster) + " of " +
                           std::to_string(c.rows);
        // A systematic sign is worth more to a reader than the magnitude: say which way to read it.
        if (c.rows >= 4 && faster * 4 >= c.rows * 3)
          text += ": the model is optimistic there (expect a longer step)";
        else if (c.rows >= 4 && faster * 4 <= c.rows)
          text += ": the model is pessimistic there (expect a shorter step)";
        out.notes.push_back(text);
      }
    }
  }
  if (!s.framework.empty() && out.framework_rows == 0)
    out.notes.push_back("no validation row used framework " + s.framework +
                        ": its own overheads (kernels outside the modelled ops, launch and Python time) are not modelled");
  if (out.mfu_max && mfu_at_bundled_peak > out.mfu_max->mfu_fraction * 1.05)
    out.notes.push_back("the predicted MFU " + frac3(mfu_at_bundled_peak) + " is above the highest measured on " + acc + " in " + prec +
                        " among " + rows_text(out.mfu_max->rows) + " of " + (moe ? "MoE" : "dense") + " models (" +
                        frac3(out.mfu_max->mfu_fraction) + ", " + out.mfu_max->id +
                        "): no run in that range has shown it (the overlap the model grants, or its compute ceiling, goes "
                        "beyond them); treat it as an upper bound and confirm with simulate and a short run");
  return out;
}

void add_validated_range_for(Result& r, const Scenario& s, const Catalog& cat, const std::string& catalog_dir,
                             double overall_median_abs_pct) {
  if (catalog_dir.empty()) return add_validated_range(r, s, cat, overall_median_abs_pct);
  std::shared_ptr<const Catalog> bundled;
  try {
    bundled = Catalog::load_default();
  } catch (const Error& e) {
    r.notes.push_back(std::string("validated-range check skipped: the bundled catalog, which holds the validated range, does not load (") +
                      e.what() + ")");
    return;
  }
  add_validated_range(r, s, *bundled, overall_median_abs_pct);
}

void add_validated_range(Result& r, const Scenario& s, const Catalog& bundled, double overall_median_abs_pct) {
  ValidatedRange vr;
  try {
    vr = validated_range(default_validation_csvs(), bundled, s, r.number("mfu_fraction"), overall_median_abs_pct);
  } catch (const Error& e) {
    // An unreadable validation CSV costs the notes, not the run.
    r.notes.push_back(std::string("validated range not reported: ") + e.what());
    return;
  }
  if (vr.mfu_max) {
    r.set("validated_mfu_max_fraction", vr.mfu_max->mfu_fraction);
    r.set("validated_mfu_max_row", vr.mfu_max->id);
  }
  for (const auto& n : vr.notes) r.notes.push_back(n);
}

std::vector<std::string> default_validation_csvs() {
  const std::filesystem::path d = std::filesystem::path(data_dir()) / "validation";
  return {(d / "training.csv").string(), (d / "training-qwen3-30b-a3b.csv").string()};
}

}  // namespace sextant
