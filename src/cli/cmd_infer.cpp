// sextant infer estimate | serve FILE.yaml | plan FILE.yaml | validate FILE.csv
#include <cmath>
#include <cstdlib>
#include <memory>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "core/paths.hpp"
#include "core/error.hpp"
#include "infer/config.hpp"
#include "infer/engine.hpp"
#include "infer/validate_inference.hpp"

namespace sextant::cli {

namespace {
struct InferArgs {
  std::string catalog_dir, infer_dir, file;
  std::vector<std::string> sets;
  infer::DeploymentSpec dep;
  int64_t prompt = 1024, output = 256, batch = 1;
  OutputOptions out;
};

// Whether the deployment option named `name` (--model) was left out.
template <class Fields>
bool est_option_missing(const Fields& fields, const std::string& name) {
  for (const auto& f : fields)
    if (f.opt->get_name() == name) return f.opt->count() == 0;
  return false;
}

// A number format given on the command line: "" is the deployment's "not given", so `--kv ""`
// had silently meant the default (2026-12-06 review).
CLI::Validator non_empty_format() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!text.empty()) return {};
        return "is empty: give a format (" + valid_choices_hint("", infer::format_names()) + "), or leave the option out for the default";
      },
      "");
}
}  // namespace

void add_infer_command(CLI::App& app) {
  auto a = std::make_shared<InferArgs>();
  auto* cmd = app.add_subcommand("infer", "LLM inference: iteration cost, serving simulation, deployment plans, validation");
  cmd->require_subcommand(1);
  // --catalog and --infer-data are infer's own: accepted after the subcommand too
  // (`infer estimate ... --infer-data DIR`), as the docs say every infer command takes them.
  cmd->fallthrough();
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder (default: the bundled data/catalog)");
  cmd->add_option("--infer-data", a->infer_dir, "Engine/device profile folder (default: the bundled data/infer)");
  auto cat = [a] { return a->catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a->catalog_dir); };
  auto data = [a] { return a->infer_dir.empty() ? infer::InferData::load_default() : infer::InferData::load(a->infer_dir); };

  auto* est = cmd->add_subcommand("estimate", "Memory fit, prefill/decode speed, energy and cost of one deployment (datacenter or on-device)");
  // An optional study file gives the deployment (its deployment: section) and the mean prompt
  // and output lengths (its workload:); the options override it (2026-12-04 review: `infer
  // estimate data/examples/infer-on-device.yaml` had answered "--model is required").
  est->add_option("file", a->file,
                  "Study YAML (as infer serve's): its deployment: section, and its workload's mean prompt and output lengths; the "
                  "options below override it");
  one_value_per_use(est->add_option("--set", a->sets, "Override a key of the study file: --set deployment.tp=2 (repeatable)"));
  // Options as (field, option, copy into the study's deployment): with a file, only those given
  // replace the file's.
  using Copy = void (*)(const infer::DeploymentSpec&, infer::DeploymentSpec&);
  struct Field {
    const char* field;
    CLI::Option* opt;
    Copy copy;
  };
  auto fields = std::make_shared<std::vector<Field>>();
  auto add_field = [est, fields](const char* field, CLI::Option* opt, Copy copy) {
    fields->push_back({field, opt, copy});
    return opt;
  };
#define SEXTANT_DEP_FIELD(FIELD, NAME, TEXT)                     \
  add_field(#FIELD, est->add_option(NAME, a->dep.FIELD, TEXT), \
            [](const infer::DeploymentSpec& from, infer::DeploymentSpec& to) { to.FIELD = from.FIELD; })
  SEXTANT_DEP_FIELD(model, "--model", "Model: catalog id, YAML or config.json (required without a study file)");
  SEXTANT_DEP_FIELD(accelerator, "--accelerator", "Accelerator id (GPU, or SoC such as apple-m2-max-30c; required without a study file)");
  SEXTANT_DEP_FIELD(engine, "--engine", "Engine profile (data/infer/engines.yaml; default generic)");
  SEXTANT_DEP_FIELD(system, "--system", "System for the TP/PP link: a catalog id, or a system file (FILE or FILE#ID; default: one holding the accelerator)");
  SEXTANT_DEP_FIELD(tp, "--tp", "Tensor-parallel degree (default 1)");
  SEXTANT_DEP_FIELD(pp, "--pp", "Pipeline-parallel degree (default 1)");
  SEXTANT_DEP_FIELD(ep, "--ep", "Expert-parallel degree, divides tp (default 1)");
  SEXTANT_DEP_FIELD(weight_format, "--weights",
                    "Weight format: fp16 bf16 fp8 fp4 int8 int4 q8_0 q4_0 q4_k ... or mixed:A:B:F (default: the checkpoint's, from a "
                    "config.json's quantization_config, else bf16)")
      ->check(non_empty_format());
  SEXTANT_DEP_FIELD(activation_format, "--activations",
                    "Activation format (default bf16; fp8 for an FP8 checkpoint, or fp8 weights on an engine that quantises activations "
                    "on the fly (vllm), on an accelerator with FP8 tensor cores)")
      ->check(non_empty_format());
  SEXTANT_DEP_FIELD(kv_format, "--kv", "KV-cache format (default: the activation format when 16-bit, else bf16, as vLLM's kv_cache_dtype auto)")
      ->check(non_empty_format());
  SEXTANT_DEP_FIELD(kv_share_layers, "--kv-share-layers", "Layers sharing one KV cache, cross-layer KV sharing (default 1)");
  SEXTANT_DEP_FIELD(expert_load_factor, "--expert-load-factor",
                    "MoE under EP: busiest rank's routed tokens over the mean, >= 1 (default 0: the catalog's capacity_factor, else uniform "
                    "top-k routing)");
  // Both hold 0 for "not given": a 0 given is refused here (it was taken as not given).
  SEXTANT_DEP_FIELD(memory_gib, "--memory-gib",
                    "Device memory in GiB (Apple's and GPU vendors' GB) when it differs from the catalog's (Apple SoCs ship with several "
                    "sizes; the catalog lists one)")
      ->check(number_check(0, true, infer::kMaxMemoryGib, "a positive size in GiB up to 1e9 (deployment.memory_gib)", "POSITIVE"));
  SEXTANT_DEP_FIELD(memory_utilization_fraction, "--memory-utilization",
                    "Share of device memory the engine may use, in (0, 1] (vLLM's gpu_memory_utilization; default: the engine's)")
      ->check(number_check(0, true, 1, "in (0, 1] (deployment.memory_utilization_fraction)", "(0, 1]"));
  SEXTANT_DEP_FIELD(max_model_len, "--max-model-len", "Longest prompt + output served (vLLM's max_model_len; default: the model's window)");
#undef SEXTANT_DEP_FIELD
  auto* prompt_opt = est->add_option("--prompt", a->prompt, "Prompt tokens (default: the study's mean prompt, else 1024)");
  auto* output_opt = est->add_option("--output", a->output, "Generated tokens (default: the study's mean output, else 256)");
  est->add_option("--batch", a->batch, "Sequences decoded together (default 1)");
  add_output_options(*est, a->out);
  est->callback([a, cat, data, fields, prompt_opt, output_opt] {
    if (a->file.empty()) {
      if (!a->sets.empty()) throw CLI::ValidationError("--set", "overrides a key of a study file, and none was given");
      for (const char* required : {"--model", "--accelerator"})
        if (est_option_missing(*fields, required))
          throw CLI::RequiredError(std::string(required) + " is required (or a study YAML whose deployment: section names it)",
                                 CLI::ExitCodes::RequiredError);
    }
    auto c = cat();
    auto d = data();
    if (!a->file.empty()) {
      // The options given replace the file's before the study's deployment is built: applied after
      // load_study, `STUDY --memory-gib 64` had been refused by the error asking for --memory-gib
      // (an accelerator without a memory size), and so had any option fixing what the file's
      // deployment lacks (2026-12-07 review).
      auto override_deployment = [a, fields](infer::DeploymentSpec& dep) {
        for (const Field& f : *fields)
          if (f.opt->count() > 0) {
            f.copy(a->dep, dep);
            dep.given_at[f.field] = SourceLocation{"command line", 0, 0, f.opt->get_name()};
          }
        dep.memory_gib_hint = "give the device's memory in GiB with --memory-gib N (or deployment.memory_gib: N in the study), or "
                              "write the entry's memory_gib in GiB with its provenance, e.g. memory_gib: {value: 80, source: ID}";
      };
      infer::StudySpec study = infer::load_study(a->file, *c, *d, parse_sets(a->sets, "deployment.tp=4"), override_deployment);
      emit(infer::run_study_estimate(study, a->file, *c, *d,
                                     prompt_opt->count() > 0 ? std::optional<int64_t>(a->prompt) : std::nullopt,
                                     output_opt->count() > 0 ? std::optional<int64_t>(a->output) : std::nullopt, a->batch),
           a->out);
      return;
    }
    infer::DeploymentSpec dep = a->dep;
    for (const Field& f : *fields) dep.given_at[f.field] = SourceLocation{"command line", 0, 0, f.opt->get_name()};
    emit(infer::run_estimate(dep, *c, *d, a->prompt, a->output, a->batch), a->out);
  });

  auto* srv = cmd->add_subcommand("serve", "Discrete-event serving simulation: latency percentiles, throughput, SLO goodput, memory, energy, cost");
  srv->add_option("file", a->file, "Study YAML (see data/examples/infer-*.yaml)")->required();
  one_value_per_use(srv->add_option("--set", a->sets, "Override a key of the file: --set workload.rate_per_s=20 (repeatable)"));
  add_output_options(*srv, a->out);
  srv->callback([a, cat, data] {
    auto c = cat();
    auto d = data();
    auto study = infer::load_study(a->file, *c, *d, parse_sets(a->sets, "deployment.tp=4"));
    // The per-request table goes to --json, --csv and --report; the terminal gets the summary
    // (serving.request_table in the file decides when given).
    if (!study.request_table_given)
      study.serving.request_table = !a->out.json.empty() || !a->out.csv_dir.empty() || !a->out.report.empty();
    const Result res = infer::run_serve(std::move(study), *c, *d);
    if ((!res.table("memory_timeline") && !res.table("requests")) || a->out.quiet || a->out.json_to_stdout()) {
      emit(res, a->out);
      return;
    }
    // The memory timeline (hundreds of rows) goes to --json, --csv and --report only; the
    // terminal gets the summary and the load sweep, as simulate keeps its timeline table out of
    // the text (2026-12-04 review: ~200 rows had sat between the latency summary and the sweep).
    OutputOptions files = a->out;
    files.quiet = true;
    emit(res, files);
    // The requests table too (one row per request: 5,000 rows had been printed with --json FILE,
    // 2026-12-04 review), as docs/inference.md says.
    Result shown = res;
    std::string left_out;
    for (auto it = shown.tables.begin(); it != shown.tables.end();) {
      if (it->name() == "memory_timeline" || it->name() == "requests") {
        left_out += (left_out.empty() ? "" : " and ") + it->name();
        it = shown.tables.erase(it);
      } else {
        ++it;
      }
    }
    shown.notes.push_back(left_out + " table" + (left_out.find(" and ") != std::string::npos ? "s" : "") +
                          ": in --json, --csv and --report output, not printed here");
    const std::string text = render_text(shown);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  });

  auto* pl = cmd->add_subcommand("plan", "Cheapest deployment (accelerator, TP, replicas, batch limit, policy) meeting the SLO at the request rate");
  pl->add_option("file", a->file, "Study YAML with a plan: section")->required();
  one_value_per_use(pl->add_option("--set", a->sets, "Override a key of the file (repeatable)"));
  add_output_options(*pl, a->out);
  pl->callback([a, cat, data] {
    auto c = cat();
    auto d = data();
    emit(infer::run_plan(infer::load_study(a->file, *c, *d, parse_sets(a->sets, "deployment.tp=4")), *c, *d), a->out);
  });

  auto* val = cmd->add_subcommand("validate", "Score the model against an inference validation CSV (per row, per source, leave-one-chip-out)");
  val->add_option("file", a->file, "CSV with the schema of data/validation/inference.csv")->required();
  add_output_options(*val, a->out);
  val->callback([a, cat, data] { emit(infer::validate_inference_csv(resolve_data_path(a->file), *cat(), *data()), a->out); });
  // infer's own options, taken after any subcommand too: said in each subcommand's --help, which
  // had not listed them.
  for (auto* sub : cmd->get_subcommands({}))
    sub->footer("Also, from `infer`: --catalog DIR (catalog folder, default the bundled data/catalog) and --infer-data DIR "
                "(engine/device profile folder, default the bundled data/infer), before or after the subcommand.");
}

}  // namespace sextant::cli
