// sextant validate FILE.csv: score the models against published measurements. The CSV's
// columns say which model it validates (training step times or inference speeds).
#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "core/paths.hpp"
#include "core/csv.hpp"
#include "infer/validate_inference.hpp"
#include "validate/training_validation.hpp"

namespace sextant::cli {

namespace {
struct ValidateArgs {
  std::string file, catalog_dir, engine = "estimate";
  bool loso = false, fit = false;
  OutputOptions out;
};
}  // namespace

void add_validate_command(CLI::App& app) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand("validate", "Predict every row of a validation CSV and report the errors");
  cmd->add_option("file", a->file, "Validation CSV (schema of data/validation/training.csv)")->required();
  auto* o_engine = cmd->add_option("--engine", a->engine, "Training CSVs: estimate (closed form) or simulate (event-level simulation of each row)")
      ->check(CLI::IsMember({"estimate", "simulate"}));
  auto* o_loso = cmd->add_flag("--leave-one-source-out", a->loso, "Training CSVs: refit fitted constants without each source in turn");
  auto* o_fit = cmd->add_flag("--fit", a->fit, "Training CSVs: fit the accelerators' fitted constants to these rows and report them");
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  add_output_options(*cmd, a->out);
  cmd->callback([a, o_engine, o_loso, o_fit] {
    // Looked for in the working directory, then the data folder, as scenarios are (the README's
    // `validate data/validation/training.csv` failed from another directory, 2026-12-04 review).
    a->file = resolve_data_path(a->file);
    auto cat = a->catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->catalog_dir);
    const auto header = CsvTable::read_file(a->file).header();
    if (looks_like_training_csv(header)) {
      ValidationOptions o;
      o.engine = a->engine;
      o.leave_one_source_out = a->loso;
      o.fit = a->fit;
      emit(validate_training_csv(a->file, *cat, o), a->out);
      return;
    }
    if (looks_like_inference_csv(header)) {
      // The inference validation has one engine and always reports its leave-one-chip-out refit:
      // these options were ignored with exit 0 (before 2026-12-03).
      for (const auto* o : {o_engine, o_loso, o_fit})
        if (o->count())
          throw Error(SourceLocation{"", 0, 0, o->get_name()},
                      "applies to training CSVs; an inference CSV is scored by infer estimate's closed form, with its "
                      "leave-one-chip-out refit always reported (lodo_* columns)",
                      "leave it out");
      Result r = validate_inference_csv(a->file, *cat);
      r.command = "validate";  // the command typed (`infer validate` names its own)
      emit(r, a->out);
      return;
    }
    // Name what is missing from the schema the header is closer to (a dropped `tp` or target
    // column read as "match no known schema").
    const auto mt = missing_training_columns(header), mi = missing_inference_columns(header);
    const size_t nt = missing_training_columns({}).size(), ni = missing_inference_columns({}).size();  // required columns of each
    const bool training = static_cast<double>(nt - mt.size()) / nt >= static_cast<double>(ni - mi.size()) / ni;
    const auto& miss = training ? mt : mi;
    if (miss.size() * 2 < (training ? nt : ni)) {
      std::string list;
      for (const auto& c : miss) {
        list += (list.empty() ? "" : ", ") + c;
        // A header column that is a near miss of the missing one ("target_step_time").
        const std::string near = closest_match(c, header);
        if (!near.empty()) list += " (the header has '" + near + "')";
      }
      throw Error(SourceLocation{a->file, 1}, std::string("not a ") + (training ? "training" : "inference") +
                                                   " validation CSV: missing columns " + list,
                  training ? "the training schema: data/validation/README.md" : "the inference schema: data/validation/inference-README.md");
    }
    throw Error(SourceLocation{a->file, 1}, "unrecognised validation CSV: its columns match no known schema",
                "training schema: id, model, layers, ..., target_step_time_s (data/validation/README.md); inference schema: data/validation/inference-README.md");
  });
}

}  // namespace sextant::cli
