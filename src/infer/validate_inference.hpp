#pragma once
// Scoring the inference model against published measurements (data/validation/inference.csv,
// schema in data/validation/inference-README.md). Each row names a model, an accelerator, an
// engine, formats, TP, batch, prompt and generated lengths and one metric:
//   prefill_tokens_per_s      batch x prompt_len / time of the prompt pass
//   decode_tokens_per_s       gen_len / time of gen_len single-stream decode steps from context prompt_len
//   prompt_time_ms            time of the prompt pass of `batch` prompts of prompt_len tokens
//   time_per_output_token_ms  mean decode iteration of `batch` sequences over contexts prompt_len .. +gen_len
// Predictions use the engine constants of data/infer/engines.yaml. Those constants were fitted to
// this file (see fit_engine); the leave-one-chip-out error refits them without each chip's (a device and its
// binned variants; an engine with no rows left falls back to the `generic` prior) and predicts it.
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/result.hpp"
#include "infer/engine.hpp"

namespace sextant {

// True when the columns are those of an inference validation CSV (id, model, accelerator, engine,
// tp, weight/activation/kv formats, batch, prompt_len, gen_len, metric, value).
bool looks_like_inference_csv(const std::vector<std::string>& header_columns);
// The inference schema's required columns a header lacks (empty: it is an inference CSV).
std::vector<std::string> missing_inference_columns(const std::vector<std::string>& header_columns);

// Predicts every row and scores it: table `validation_rows` (id, source, accelerator, metric,
// predicted, target, error_pct (signed, (predicted - target) / target), lodo_predicted,
// lodo_error_pct, unit, problem, caveat), table `per_source`, table `per_device`, table
// `fitted_constants`, and scalars median/p90/max |error| overall (and leave-one-chip-out). A row
// with a problem (it cannot be predicted, or inference_row_run_problem) has no error and is left
// out of the fits and the statistics (rows_excluded_count). Uses data_dir()/infer.
Result validate_inference_csv(const std::string& csv_path, const Catalog& cat);

namespace infer {

struct InferenceRow {
  std::string id, source, model, accelerator, engine, weight_format, activation_format, kv_format, metric, unit;
  int num_devices = 1, tp = 1, batch = 1, prompt_len = 0, gen_len = 0;
  double target = 0;
  // Parameters in billions as the source states them (params_b column); NaN when not given.
  double params_b = std::numeric_limits<double>::quiet_NaN();
  int line = 0;
};

const std::vector<std::string>& inference_metrics();
std::vector<InferenceRow> read_inference_rows(const std::string& csv_path);

// The model's value of row.metric with the given engine constants; throws Error on an unknown
// model, accelerator or metric.
double predict_inference_row(const InferenceRow& row, const Catalog& cat, const InferData& data,
                             const EngineProfile& engine);

// Why the row describes a run that cannot have happened as stated, "" when nothing is found: its
// params_b more than 10% from the model's parameter count (the row measured another model), or
// `infer estimate` of its deployment, prompt, output and batch does not fit the device's memory.
// validate_inference_csv reports such a row's prediction with this in its `problem` column and
// leaves it out of the fit and the error statistics.
std::string inference_row_run_problem(const InferenceRow& row, const Catalog& cat, const InferData& data);
// A row beyond the model's context window (estimate's fits_context false), "" otherwise: scored,
// with this in its `caveat` column (an engine runs past the window when configured to; the
// Splitwise rows of Llama-2-70B at 8,192-token prompts were measured so).
std::string inference_row_caveat(const InferenceRow& row, const Catalog& cat, const InferData& data);

// The engine constants that minimise the squared log error over `rows` (all of one engine) plus a
// weak pull (weight `prior_weight` per unit of log / logit deviation) towards `prior`. Constants
// the rows do not determine stay near the prior. Deterministic (Nelder-Mead from the prior).
EngineProfile fit_engine(const std::vector<InferenceRow>& rows, const Catalog& cat, const InferData& data,
                         const EngineProfile& prior, double prior_weight = 0.01);

Result validate_inference_csv(const std::string& csv_path, const Catalog& cat, const InferData& data);

}  // namespace infer
}  // namespace sextant
