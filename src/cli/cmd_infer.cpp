// sextant infer validate FILE.csv
#include <memory>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "core/error.hpp"
#include "infer/engine.hpp"
#include "infer/validate_inference.hpp"

namespace sextant::cli {

namespace {
struct InferArgs {
  std::string catalog_dir, infer_dir, file;
  OutputOptions out;
};
}  // namespace

void add_infer_command(CLI::App& app) {
  auto a = std::make_shared<InferArgs>();
  auto* cmd = app.add_subcommand("infer", "LLM inference: iteration cost, serving simulation, deployment plans, validation");
  cmd->require_subcommand(1);
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  cmd->add_option("--infer-data", a->infer_dir, "Engine/device profile folder (default: the bundled data/infer)");
  auto cat = [a] { return a->catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->catalog_dir); };
  auto data = [a] { return a->infer_dir.empty() ? infer::InferData::load_default() : infer::InferData::load(a->infer_dir); };

  auto* val = cmd->add_subcommand("validate", "Score the model against an inference validation CSV (per row, per source, leave-one-device-out)");
  val->add_option("file", a->file, "CSV with the schema of data/validation/inference.csv")->required();
  add_output_options(*val, a->out);
  val->callback([a, cat, data] { emit(infer::validate_inference_csv(a->file, *cat(), *data()), a->out); });
}

}  // namespace sextant::cli
