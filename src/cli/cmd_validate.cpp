// sextant validate FILE.csv: score the models against published measurements. The CSV's
// columns say which model it validates (training step times or inference speeds).
#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "core/csv.hpp"
#include "validate/training_validation.hpp"

namespace sextant::cli {

namespace {
struct ValidateArgs {
  std::string file, catalog_dir, engine = "estimate";
  bool loso = false;
  OutputOptions out;
};
}  // namespace

void add_validate_command(CLI::App& app) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand("validate", "Predict every row of a validation CSV and report the errors");
  cmd->add_option("file", a->file, "Validation CSV (schema of data/validation/training.csv)")->required();
  cmd->add_option("--engine", a->engine, "estimate (closed form)")->check(CLI::IsMember({"estimate"}));
  cmd->add_flag("--leave-one-source-out", a->loso, "Refit fitted constants without each source in turn");
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  add_output_options(*cmd, a->out);
  cmd->callback([a] {
    auto cat = a->catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->catalog_dir);
    const auto header = CsvTable::read_file(a->file).header();
    if (looks_like_training_csv(header)) {
      ValidationOptions o;
      o.engine = a->engine;
      o.leave_one_source_out = a->loso;
      emit(validate_training_csv(a->file, *cat, o), a->out);
      return;
    }
    throw Error(SourceLocation{a->file, 1}, "unrecognised validation CSV: its columns match no known schema",
                "training schema needs id, model, layers, hidden, ..., target_step_time_s (data/validation/README.md)");
  });
}

}  // namespace sextant::cli
