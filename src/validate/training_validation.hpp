#pragma once
// Scoring the step-time model against published measurements (training.csv schema, see
// data/validation/README.md). Columns are read by name; any CSV with this schema works.
//
// Policy for missing inputs (docs/validation.md):
//  - micro_batch empty: 1 (the Megatron/NeMo default);
//  - vpp 1: no interleaving (as stated or not stated, the row is modelled as written);
//  - sequence_parallel unknown: on when tp > 1;
//  - the row's accelerator replaces the system's default accelerator;
//  - optional columns tp_comm_overlap, overlap_grad_reduce, overlap_param_gather, ep_comm_overlap
//    (true/false in any letter case, as sequence_parallel and qk_norm; empty or absent: the
//    scenario defaults, DP overlaps on, TP and EP overlap off);
//  - a vpp the micro-batch count cannot interleave: 1F1B, laid out as the row with vpp 1;
//  - optional column head_dim (empty or absent: hidden / heads);
//  - optional column moe_dispatcher (alltoall | deepep | hybridep; empty or absent: alltoall);
//  - optional column fp8_recipe (delayed | current | blockwise | mxfp8; empty or absent: delayed);
//  - optional column framework (a catalog framework id; empty or absent: the plan defaults);
//  - optional column known_issue (empty, or the https address where the run's publisher says the
//    measured software was slower than it should be, e.g. a regression issue). Such a row is
//    predicted and counted in every statistic like any other; it is left out of the fit of the
//    hardware's constants, and `max_abs_error_excl_known_issue_pct` reports the maximum without it.
// The harness never looks at a row's id, source or model name to decide anything.
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include <optional>

#include "core/csv.hpp"
#include "core/result.hpp"
#include "scenario/scenario.hpp"

namespace sextant {

bool looks_like_training_csv(const std::vector<std::string>& header);
// The training schema's required columns a header lacks (empty: it is a training CSV).
std::vector<std::string> missing_training_columns(const std::vector<std::string>& header);

// Refuses a header column that the harness does not read but that is a near miss of one it does
// (`head_dims` for `head_dim`): the column would be ignored. It is refused beside the read column
// too (both present; review of 2026-12-07). A near miss is a misspelling (at most
// one edit per four characters of the shorter name, at least one), not a name a read column
// contains (`dim`, `issue`). Other extra columns are accepted.
void check_training_columns(const CsvTable& t);

// The scenario a row describes.
Scenario scenario_from_training_row(const CsvTable& t, size_t row, const Catalog& cat);

struct ValidationOptions {
  std::string engine = "estimate";     // estimate | simulate (when linked)
  bool leave_one_source_out = false;   // refit fitted constants without each source
  bool fit = false;                    // fit the accelerators' fitted constants to these rows
};

// The constants of an accelerator that are fitted to end-to-end step times (docs/validation.md):
// efficiency.sustained_compute_fraction and efficiency.gemm_half_dim.
struct FittedConstants {
  std::string accelerator;
  double sustained_compute_fraction = 1.0;
  double gemm_half_dim = 128;
  size_t rows = 0;
  double objective = 0;   // the sum of |log(predicted / target)| over the rows at these values
  std::string at_bound;   // empty, or which constant lies on a bound of the search (review of 2026-12-06)
};
// The search's bounds: sustained_compute_fraction in [kFitSustainedLo, kFitSustainedHi],
// gemm_half_dim in [0, kFitHalfDimMax] elements.
inline constexpr double kFitSustainedLo = 0.3, kFitSustainedHi = 1.2, kFitHalfDimMax = 16384;
// Fits each accelerator's constants on the rows whose source is not `exclude_source` (and not
// citing a known_issue), minimising the sum of |log(predicted / target)|: for gemm_half_dim 0 and
// each power of two up to kFitHalfDimMax the best sustained fraction (golden-section search), then
// a golden-section search in log(gemm_half_dim) between the best power's neighbours
// (docs/validation.md, Fitted constants). sustained_compute_fraction is rounded to 0.001 and
// gemm_half_dim to whole elements.
std::vector<FittedConstants> fit_constants(const CsvTable& t, const std::vector<Scenario>& rows,
                                           const std::string& exclude_source = {});

// Predicts every row; table `validation_rows` (id, source, model, predicted_step_time_s,
// target_step_time_s, error_pct, ..., `assumed`: the inputs the row leaves to the policy above,
// and under leave_one_source_out loso_predicted_step_time_s, loso_error_pct, loso_refitted),
// table `per_source`, scalars with median/p90/max |error|.
Result validate_training_csv(const std::string& path, const Catalog& cat, const ValidationOptions& opt = {});

// The row's measured step time: target_step_time_s, an error naming the file, line and column
// unless a positive finite number.
double target_step_time_of(const CsvTable& t, size_t row);

// The row's `known_issue` address (empty when none); a value that is not an https address is an
// error naming the file, line and column.
std::string known_issue_of(const CsvTable& t, size_t row);

// The highest MFU measured among the rows of a training CSV that ran on `accelerator` in
// `precision` (rows citing a known_issue, and rows the catalog cannot describe, left out): the
// model's FLOPs of the row over its measured step time and the GPUs' peak. Plan search reports it
// beside its best plan, which the model can put beyond anything measured when every collective
// hides. nullopt when no row matches.
struct MeasuredMfu {
  double mfu_fraction = 0;
  std::string id;
  size_t rows = 0;
};
std::optional<MeasuredMfu> highest_measured_mfu(const std::string& csv_path, const Catalog& cat, const std::string& accelerator,
                                                DType precision);

// Where a scenario stands against the bundled validation rows (rows citing a known_issue and rows
// the catalog cannot describe left out), for the notes of estimate, simulate and plan: rows on
// its accelerator, in its precision, with its framework, MoE rows and their error, and the
// highest measured MFU on the accelerator in the precision. `notes` says what a reader should
// know: an accelerator or precision without rows, an MoE model (the MoE rows' median error, and that of the rows in its precision class with the sign of
// their errors), a
// framework without rows, a predicted MFU above the highest measured (x 1.05). Missing CSVs are
// skipped.
struct ValidatedRange {
  size_t accelerator_rows = 0, precision_rows = 0, framework_rows = 0, moe_rows = 0;
  size_t kind_rows = 0;  // of precision_rows, those of the scenario's kind (MoE or dense): mfu_max's rows
  double moe_median_abs_pct = 0;
  // Of the MoE rows, those in the scenario's precision class (8-bit: fp8, fp4, int8; or 16/32-bit):
  // their count, median |error| and how many were predicted faster than measured.
  size_t moe_class_rows = 0, moe_class_faster_rows = 0;
  double moe_class_median_abs_pct = 0;
  std::optional<MeasuredMfu> mfu_max;
  std::vector<std::string> notes;
};
ValidatedRange validated_range(const std::vector<std::string>& csv_paths, const Catalog& cat, const Scenario& s,
                               double predicted_mfu, double overall_median_abs_pct);
// data_dir()/validation/training.csv and the Qwen3-30B-A3B MoE set beside it.
std::vector<std::string> default_validation_csvs();
// estimate and simulate (CLI and Python alike): validated_range over default_validation_csvs()
// for the result's mfu_fraction; adds its notes, and validated_mfu_max_fraction and
// validated_mfu_max_row when rows ran on the accelerator in the precision. The rows are
// published runs on catalogued hardware: `bundled` is the bundled catalog (Catalog::
// load_default(), or the one already loaded when the run uses it), whatever --catalog the
// scenario was read with.
void add_validated_range(Result& r, const Scenario& s, const Catalog& bundled, double overall_median_abs_pct);
// The same, for a run on `cat` (catalog_dir empty: the bundled catalog) or on another catalog
// folder: the validated range is the bundled catalog's, and when that does not load the check is
// skipped with a note rather than failing a run that did not need it (2026-12-03 review).
void add_validated_range_for(Result& r, const Scenario& s, const Catalog& cat, const std::string& catalog_dir,
                             double overall_median_abs_pct);

// Summary statistics of absolute errors (percent).
struct ErrorSummary {
  size_t rows = 0;
  double median_abs_pct = 0, p90_abs_pct = 0, max_abs_pct = 0, mean_signed_pct = 0;
};
ErrorSummary summarize_errors(std::vector<double> signed_pct);

}  // namespace sextant
