// sextant._sextant: the pybind11 layer of the Python module. Each function runs the same library
// call as the corresponding CLI command and returns its Result as the JSON text of to_json (the
// Python package turns it into a dict of column dicts). The GIL is released for the whole C++
// call, so two Python threads run two computations concurrently; sextant::Error becomes
// sextant.SextantError carrying the CLI's message.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "cli/catalog_results.hpp"
#include "cli/cli.hpp"
#include "core/atomic_file.hpp"
#include "core/c_locale.hpp"
#include "core/paths.hpp"
#include "core/error.hpp"
#include "core/result.hpp"
#include "estimate/estimate.hpp"
#include "goodput/config.hpp"
#include "goodput/goodput.hpp"
#include "infer/config.hpp"
#include "infer/engine.hpp"
#include "infer/formats.hpp"
#include "plan/job.hpp"
#include "plan/plan.hpp"
#include "plan/search_args.hpp"
#include "plan/sweep.hpp"
#include "report/report.hpp"
#include "scenario/scenario.hpp"
#include "sim/simulate.hpp"
#include "trace/analyze.hpp"
#include "trace/replay/graph.hpp"
#include "validate/training_validation.hpp"

namespace py = pybind11;
using namespace sextant;

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

std::shared_ptr<const Catalog> load_catalog(const std::string& dir) {
  return dir.empty() ? Catalog::load_default() : Catalog::load(dir);
}

Scenario scenario_of(const std::string& source, bool is_text, const std::string& name, const Overrides& sets,
                     const Catalog& cat) {
  return is_text ? parse_scenario(source, name, cat, sets) : load_scenario(source, cat, sets);
}

// plan() and sweep(), as the CLI's: a plan not valid for the job is placed as invalid, the search runs.
Scenario search_scenario_of(const std::string& source, bool is_text, const std::string& name, const Overrides& sets,
                            const Catalog& cat) {
  return is_text ? parse_scenario_for_search(source, name, cat, sets) : load_scenario_for_search(source, cat, sets);
}

// The search options of plan() and sweep() (sextant/__init__.py _search_args builds the dict of
// plain values): read with the GIL held, checked by plan::search_options as the CLI's flags are.
plan::SearchArgs search_args_of(const py::dict& d) {
  plan::SearchArgs a;
  for (const auto& [k, v] : d) {
    const std::string key = py::cast<std::string>(k);
    if (key == "fix") a.fix = py::cast<std::vector<std::string>>(v);
    else if (key == "schedules") a.schedules = py::cast<std::vector<std::string>>(v);
    else if (key == "recompute") a.recompute = py::cast<std::vector<std::string>>(v);
    else if (key == "recompute_modules") a.recompute_modules = py::cast<std::vector<std::string>>(v);
    else if (key == "zero") a.zero = py::cast<std::vector<std::string>>(v);
    else if (key == "max_micro_batch") a.max_micro_batch = py::cast<int>(v);
    else if (key == "max_vpp") a.max_vpp = py::cast<int>(v);
    else if (key == "threads") a.threads = py::cast<int>(v);
    else if (key == "top") a.top = py::cast<size_t>(v);
    else if (key == "headroom_gib") a.headroom_gib = py::cast<double>(v);
    else if (key == "tie_fraction") a.tie_fraction = v.is_none() ? std::optional<double>() : std::optional<double>(py::cast<double>(v));
    else if (key == "no_tp_overlap") a.no_tp_overlap = py::cast<bool>(v);
    else if (key == "sp_only") a.no_sp_off = py::cast<bool>(v);
    else if (key == "vary_dp_overlap") a.vary_dp_overlap = py::cast<bool>(v);
    else if (key == "any_framework_feature") a.any_framework_feature = py::cast<bool>(v);
    else throw Error(SourceLocation{"", 0, 0, key}, "unknown search option '" + key + "'");
  }
  return a;
}

// The overrides given as keywords: each set's key (dotted, "parallel.tp") -> the keyword as
// written ("parallel__tp"); sextant/__init__.py _keyword_names builds it.
using KeywordNames = std::map<std::string, std::string>;

// An error the CLI locates at an option (SourceLocation file "--vary", key the parameter) named as
// the Python argument: "vary['accelerator.peak_flops']", "price_usd_per_gpu_hour". An override
// given as a keyword is named as that keyword ("parallel__tp"), not as an overrides= entry the
// caller never passed ("overrides['parallel.tp']" before; review of 2026-12-07).
[[noreturn]] void rethrow_as_argument(const Error& e, const KeywordNames& keywords = {}) {
  const SourceLocation& w = e.where();
  if (w.file == "--overrides") {
    const auto kw = keywords.find(w.key);
    if (kw != keywords.end()) throw Error(SourceLocation{"", 0, 0, kw->second}, e.message(), e.hint());
  }
  // An option named as the key (simulate's "--straggler", "--timeline-ranks"; sweep's "--max-points"
  // beside "--vary"): the argument ("vary['--max-points']" before 2026-12-04).
  if (w.key.size() > 2 && w.key.compare(0, 2, "--") == 0) {
    std::string arg = w.key.substr(2);
    std::replace(arg.begin(), arg.end(), '-', '_');
    if (arg == "straggler") arg = "stragglers";
    throw Error(SourceLocation{"", 0, 0, arg}, e.message(), e.hint());
  }
  if (w.file.size() < 3 || w.file.compare(0, 2, "--") != 0) throw e;
  std::string arg = w.file.substr(2);
  std::replace(arg.begin(), arg.end(), '-', '_');
  throw Error(SourceLocation{"", 0, 0, w.key.empty() ? arg : arg + "['" + w.key + "']"}, e.message(), e.hint());
}

// run_estimate names its token counts as the CLI's options (--prompt, --output, --batch): here
// they are this function's arguments (review of 2026-12-05: "key '--batch'" in Python).
template <class F>
Result naming_token_arguments(F&& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    const std::string& k = e.where().key;
    if (e.where().file.empty() && (k == "--prompt" || k == "--output" || k == "--batch"))
      throw Error(SourceLocation{"", 0, 0, k.substr(2)}, e.message(), e.hint());
    throw;
  }
}

std::string json_text(const Result& r) {
  return to_json(r).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Runs fn without the GIL; the Result's JSON text is the return value.
template <class F>
std::string run(F&& fn) {
  std::string out;
  {
    py::gil_scoped_release release;
    const CNumericLocale c_numbers;  // the host program's LC_NUMERIC may use a decimal comma
    out = json_text(fn());
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_sextant, m) {
  m.doc() = "Sextant's C++ library (use the sextant package, not this module directly)";
  m.attr("SCHEMA_VERSION") = kSchemaVersion;
  static py::exception<Error> error_type(m, "SextantError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      // The message as UTF-8 with invalid bytes replaced: a file name or kernel name that is not
      // UTF-8 had made the message undecodable, and the error read '' (review of 2026-12-03).
      const std::string w = e.what();
      PyObject* text = PyUnicode_DecodeUTF8(w.data(), static_cast<Py_ssize_t>(w.size()), "replace");
      if (text) {
        PyErr_SetObject(error_type.ptr(), text);
        Py_DECREF(text);
      } else {
        PyErr_Clear();
        error_type("(an error whose message could not be decoded)");
      }
    } catch (const std::filesystem::filesystem_error& e) {
      // A path the system refuses (too long, a loop of links): the input's error, as the CLI's.
      const std::string w = e.path1().string() + ": " + e.code().message();
      PyObject* text = PyUnicode_DecodeUTF8(w.data(), static_cast<Py_ssize_t>(w.size()), "replace");
      if (text) {
        PyErr_SetObject(error_type.ptr(), text);
        Py_DECREF(text);
      } else {
        PyErr_Clear();
        error_type("(a path the system refuses)");
      }
    }
  });

  // source: YAML text when is_text, else a path; name: shown in messages.
  m.def("estimate",
        [](const std::string& source, bool is_text, const std::string& name, const Overrides& sets, const std::string& catalog_dir) {
          return run([&] {
            auto cat = load_catalog(catalog_dir);
            const Scenario s = scenario_of(source, is_text, name, sets, *cat);
            Result r = estimate(s);
            plan::add_framework_note(r, s, *cat);
            add_validated_range_for(r, s, *cat, catalog_dir, plan::kValidatedMedianAbsErrorFraction * 100);  // as the CLI
            return r;
          });
        },
        py::arg("source"), py::arg("is_text"), py::arg("name"), py::arg("sets"), py::arg("catalog_dir"));

  m.def("simulate",
        [](const std::string& source, bool is_text, const std::string& name, const Overrides& sets, const std::string& catalog_dir,
           bool all_ranks, bool contention, bool interference, int64_t seed, double jitter,
           const std::vector<std::pair<int64_t, double>>& stragglers, int64_t timeline_rows,
           const std::vector<int64_t>& timeline_ranks, const std::string& timeline_path) {
          return run([&] {
            // Checked before the run, as the CLI's --timeline is: a folder, or a path ending in '/',
            // failed after the whole simulation, the latter leaving an empty folder (2026-12-06
            // review). Standard output is written as it is.
            if (!timeline_path.empty() && timeline_path != "-" && timeline_path != "/dev/stdout")
              cli::check_output_path("timeline", timeline_path, false);
            // Nor the scenario file being read (it was replaced by the trace; 2026-12-06 review).
            if (!is_text) cli::check_not_input("timeline", timeline_path, source);
            auto cat = load_catalog(catalog_dir);
            const Scenario s = scenario_of(source, is_text, name, sets, *cat);
            sim::SimOptions o;
            o.all_ranks = all_ranks;
            o.contention = contention;
            o.interference = interference;
            o.seed = seed >= 0 ? static_cast<uint64_t>(seed) : s.seed;  // -1: the scenario's seed:
            if (jitter < 0) throw Error(SourceLocation{"jitter", 0, 0, "jitter"}, "must not be negative");
            o.jitter_sigma = jitter;
            for (const auto& st : stragglers) o.stragglers.emplace_back(st.first, st.second);
            if (timeline_rows < 0) throw Error(SourceLocation{"timeline_rows", 0, 0, "timeline_rows"}, "must not be negative");
            o.timeline_rows = timeline_rows;
            o.timeline_ranks = timeline_ranks;  // empty: every class (or the first replica with all_ranks)
            o.record_timeline = !timeline_path.empty();
            sim::SimResult r;
            try {
              r = sim::simulate(s, o);
            } catch (const Error& e) {
              // A scenario value the simulation refuses, at its line (or "FILE (--set)"), as the
              // CLI says it (the file's name alone before 2026-12-04).
              if (e.where().line == 0 && !e.where().key.empty() && e.where().file == s.file) {
                std::vector<std::string> keys;
                for (const auto& kv : sets) keys.push_back(kv.first);
                if (const auto at = scenario_key_location(s.file, is_text ? &source : nullptr, e.where().key, keys))
                  throw Error(*at, e.message(), e.hint());
              }
              rethrow_as_argument(e);  // "stragglers", not "--straggler"
            }
            if (!timeline_path.empty())  // gzip under a .gz name, as the CLI (2026-12-06 review)
              write_file_atomic(timeline_path, cli::names_gzip(timeline_path) ? cli::gzip_text(r.timeline_json, timeline_path, "timeline")
                                                                              : r.timeline_json);
            Result res = sim::to_result(r, s);
            plan::add_framework_note(res, s, *cat);
            add_validated_range_for(res, s, *cat, catalog_dir, plan::kValidatedMedianAbsErrorFraction * 100);  // as the CLI
            return res;
          });
        },
        py::arg("source"), py::arg("is_text"), py::arg("name"), py::arg("sets"), py::arg("catalog_dir"), py::arg("all_ranks"),
        py::arg("contention"), py::arg("interference"), py::arg("seed"), py::arg("jitter"), py::arg("stragglers"),
        py::arg("timeline_rows"), py::arg("timeline_ranks"), py::arg("timeline_path"));

  // The plan search of `sextant plan SCENARIO` (the scenario's own plan is placed in the ranking;
  // the best plans are re-ranked by the simulator as the CLI does).
  m.def("plan",
        [](const std::string& source, bool is_text, const std::string& name, const Overrides& sets, const std::string& catalog_dir,
           const py::dict& search, size_t rerank_top, const py::dict& job, const std::string& write_scenario, int64_t write_rank,
           const KeywordNames& keyword_names) {
          const plan::SearchArgs args = search_args_of(search);
          // The job without a scenario (plan(None, model=..., system=..., ...)), read with the GIL held.
          plan::JobSpec spec;
          const bool from_job = source.empty();  // plan(None, ...): the job's keywords (missing ones are refused by name)
          for (const auto& [k, v] : job) {
            const std::string key = py::cast<std::string>(k);
            if (key == "model") spec.model = py::cast<std::string>(v);
            else if (key == "system") spec.system = py::cast<std::string>(v);
            else if (key == "precision") spec.precision = py::cast<std::string>(v);
            else if (key == "num_gpus") spec.num_gpus = py::cast<int64_t>(v);
            else if (key == "global_batch") spec.global_batch = py::cast<int64_t>(v);
            else if (key == "seq_len") spec.seq_len = py::cast<int64_t>(v);
          }
          return run([&] {
            // Checked before the search, as the CLI's --write-scenario is (it failed after the
            // search, leaving an empty folder for "dir/"; 2026-12-06 review).
            if (!write_scenario.empty() && write_scenario != "-" && write_scenario != "/dev/stdout")
              cli::check_output_path("write_scenario", write_scenario, false);
            if (!is_text) cli::check_not_input("write_scenario", write_scenario, source);
            auto cat = load_catalog(catalog_dir);
            Scenario s = [&] {
              if (!from_job) return search_scenario_of(source, is_text, name, sets, *cat);
              try {
                return plan::job_scenario(spec, *cat, sets, plan::OptionStyle::Python);
              } catch (const Error& e) {
                rethrow_as_argument(e, keyword_names);  // "seq_len", "overrides['parallel.tp']", "parallel__tp"
              }
            }();
            plan::SearchOptions opt;
            plan::SearchOutcome out;
            std::optional<Scenario> written;
            const Estimator est;
            // Errors named as the arguments ("fix['foo=1']", "zero['4']", "schedules['foo']"), as
            // sweep's: the search itself checks the schedule and module names (plan() had named
            // them as the CLI's --schedules and --recompute-modules before 2026-12-03).
            try {
              opt = plan::search_options(args, plan::OptionStyle::Python);
              written.emplace(s);  // before the stack's settings change, as `plan` (review of 2026-12-07)
              plan::restrict_to_framework(s, opt, *cat, args);
              opt.rerank_top = rerank_top;
              out = plan::search(s, opt, est);
              plan::refuse_no_valid_plan(s, opt, out);  // "fix", not "--fix" (review of 2026-12-05)
            } catch (const Error& e) {
              rethrow_as_argument(e, keyword_names);
            }
            const plan::Reranker simulate = [](const Scenario& sc) { return sim::simulate(sc).step.step_time_s; };
            Result r = plan::plan_result(s, opt, est, out, !from_job && s.invalid_plan.empty(), simulate, "simulate",
                                         written ? &*written : nullptr);
            if (!write_scenario.empty()) {
              // As `plan --write-scenario`: the scenario that runs plan `write_rank` of the ranking.
              uint32_t index = 0;
              try {
                index = plan::ranked_index(out, write_rank, "--write-rank");
              } catch (const Error& e) {
                rethrow_as_argument(e);
              }
              const std::string job_name = from_job ? "plan()" : is_text ? name : resolve_data_path(source);
              const std::string job_text = from_job ? plan::job_scenario_text(spec) : is_text ? source : read_file(job_name);
              const std::string plan_words = plan::describe(out.candidates[index], opt, s);
              char step[64];
              std::snprintf(step, sizeof step, "%.6g", out.evals[index].step_time_s);
              const std::vector<std::string> header = {
                  "Written by sextant.plan(): plan " + std::to_string(write_rank) + " of " + std::to_string(out.ranking.size()) +
                      " fitting plans, estimated at " + step + " s per step.",
                  "Plan: " + plan_words,
                  // As the CLI's header says (review of 2026-12-06).
                  from_job ? std::string("Job: plan() keyword arguments.")
                           : "Job: " + name + (sets.empty() ? std::string() : " with its overrides") + " (its comments are not carried over)."};
              const std::string yaml = plan::plan_scenario_text(job_text, job_name, sets, s, opt, out, index, *cat, est, header);
              write_file_atomic(write_scenario, yaml);
              r.notes.push_back("plan " + std::to_string(write_rank) + " (" + plan_words + ") written to " + write_scenario +
                                ": estimate() of it gives its " + step + " s per step.");
            }
            return r;
          });
        },
        py::arg("source"), py::arg("is_text"), py::arg("name"), py::arg("sets"), py::arg("catalog_dir"), py::arg("search"),
        py::arg("rerank_top"), py::arg("job"), py::arg("write_scenario"), py::arg("write_rank"), py::arg("keyword_names"));

  m.def("sweep",
        [](const std::string& source, bool is_text, const std::string& name, const Overrides& sets, const std::string& catalog_dir,
           const std::vector<std::string>& vary, bool elasticity, const std::string& pareto_x, const std::string& pareto_y,
           const py::dict& search, double train_tokens, double price_usd_per_gpu_hour, double idle_fraction, double elasticity_step,
           int64_t max_points, const KeywordNames& keyword_names) {
          const plan::SearchArgs args = search_args_of(search);
          return run([&] {
            // The scenario's errors as estimate's and plan's (--set: key 'parallel.vpp'); the
            // sweep's own, named by the argument.
            auto cat = load_catalog(catalog_dir);
            // Every point's plan is searched, as the CLI's sweep: an override of a key the search
            // chooses is refused, and a scenario stating its plan is told it is not kept (2026-12-06).
            try {
              plan::refuse_sweep_searched_sets(sets, plan::OptionStyle::Python);
            } catch (const Error& e) {
              rethrow_as_argument(e, keyword_names);
            }
            Scenario s = search_scenario_of(source, is_text, name, sets, *cat);
           try {
            plan::SweepOptions o;
            o.scenario_plan_stated =
                is_text ? plan::states_plan_keys(source, name, sets) : plan::states_plan_keys(read_file(resolve_data_path(source)), resolve_data_path(source), sets);
            // The CLI's checks, named by the argument.
            if (!(price_usd_per_gpu_hour >= 0)) throw Error(SourceLocation{"", 0, 0, "price_usd_per_gpu_hour"}, "must not be negative");
            if (!(idle_fraction >= 0 && idle_fraction < 1)) throw Error(SourceLocation{"", 0, 0, "idle_fraction"}, "must be in [0, 1)");
            if (!(elasticity_step > 0 && elasticity_step < 1)) throw Error(SourceLocation{"", 0, 0, "elasticity_step"}, "must be in (0, 1)");
            o.price_usd_per_gpu_hour = price_usd_per_gpu_hour;
            o.power.idle_fraction_of_tdp = idle_fraction;
            o.elasticity_step_fraction = elasticity_step;
            if (max_points < 1) throw Error(SourceLocation{"", 0, 0, "max_points"}, "must be at least 1");
            o.max_points = max_points;
            o.search = plan::search_options(args, plan::OptionStyle::Python);
            plan::restrict_to_framework(s, o.search, *cat, args);
            for (const auto& v : vary) o.vary.push_back(plan::parse_variation(v));
            if (o.vary.empty() && !elasticity)
              throw Error(SourceLocation{"", 0, 0, "vary"}, "nothing to sweep", "give vary=[KEY=VALUES] and/or elasticity=True");
            if (!(train_tokens > 0)) throw Error(SourceLocation{"train_tokens", 0, 0, ""}, "must be positive");
            o.train_tokens = train_tokens;
            o.elasticity = elasticity;
            o.pareto_x = pareto_x;
            o.pareto_y = pareto_y;
            const Estimator est;
            return plan::sweep(s, o, est);
           } catch (const Error& e) {
             rethrow_as_argument(e, keyword_names);
           }
          });
        },
        py::arg("source"), py::arg("is_text"), py::arg("name"), py::arg("sets"), py::arg("catalog_dir"), py::arg("vary"),
        py::arg("elasticity"), py::arg("pareto_x"), py::arg("pareto_y"), py::arg("search"),
        py::arg("train_tokens"), py::arg("price_usd_per_gpu_hour"), py::arg("idle_fraction"),
        py::arg("elasticity_step"), py::arg("max_points"), py::arg("keyword_names"));

  m.def("goodput",
        [](const std::string& source, bool is_text, const std::string& name, const Overrides& sets, int64_t replicas,
           int64_t seed, int threads, bool search, const std::string& base_dir) {
          return run([&] {
            auto c = is_text ? goodput::parse_goodput(source, name, sets, base_dir, false) : goodput::load_goodput(source, sets, false);
            if (replicas == 1 || replicas < 0)
              throw Error(SourceLocation{"replicas", 0, 0, "replicas"}, "need at least 2 replicas");
            if (replicas > 0) c.sim.replicas = replicas;
            if (seed >= 0) c.sim.seed = static_cast<uint64_t>(seed);
            if (threads >= 0) c.sim.threads = threads;
            if (!search) c.sim.search = false;
            // The argument that asked for more replicas than the simulation holds is named, as the
            // CLI names --replicas (the file's `simulation` map had been blamed, 2026-12-05 review).
            SourceLocation budget_at = c.simulation_loc;
            if (replicas > 0 && c.sim.replicas > goodput::kMaxReplicas) budget_at = SourceLocation{"", 0, 0, "replicas"};
            goodput::check_simulation_budget(c, budget_at);
            return goodput::run_goodput(c);
          });
        },
        py::arg("source"), py::arg("is_text"), py::arg("name"), py::arg("sets"), py::arg("replicas"), py::arg("seed"),
        py::arg("threads"), py::arg("search"), py::arg("base_dir"));

  m.def("infer_study",
        [](const std::string& source, bool is_text, const std::string& name, const std::string& mode, const Overrides& sets,
           const std::string& catalog_dir, const std::string& infer_dir, int64_t prompt, int64_t output, int64_t batch) {
          return run([&] {
            auto cat = load_catalog(catalog_dir);
            auto data = infer_dir.empty() ? infer::InferData::load_default() : infer::InferData::load(infer_dir);
            auto study = is_text ? infer::parse_study(source, name, *cat, *data, sets) : infer::load_study(source, *cat, *data, sets);
            if (mode == "serve") return infer::run_serve(std::move(study), *cat, *data);
            if (mode == "plan") return infer::run_plan(std::move(study), *cat, *data);
            // infer estimate FILE: prompt/output < 0 take the workload's mean lengths.
            if (mode == "estimate")
              return naming_token_arguments([&] {
                return infer::run_study_estimate(study, is_text ? name : source, *cat, *data,
                                                 prompt >= 0 ? std::optional<int64_t>(prompt) : std::nullopt,
                                                 output >= 0 ? std::optional<int64_t>(output) : std::nullopt, batch);
              });
            throw Error(SourceLocation{"", 0, 0, "mode"}, "unknown infer mode '" + mode + "'", "valid with a study: serve, plan, estimate");
          });
        },
        py::arg("source"), py::arg("is_text"), py::arg("name"), py::arg("mode"), py::arg("sets"), py::arg("catalog_dir"),
        py::arg("infer_dir"), py::arg("prompt") = -1, py::arg("output") = -1, py::arg("batch") = 1);

  m.def("infer_estimate",
        [](const std::string& model, const std::string& accelerator, const std::string& engine, const std::string& system,
           int tp, int pp, int ep, const std::string& weights, const std::string& activations, const std::string& kv,
           int kv_share_layers, int64_t prompt, int64_t output, int64_t batch, const std::string& catalog_dir,
           const std::string& infer_dir, double expert_load_factor, double memory_gib, double memory_utilization_fraction,
           int64_t max_model_len) {
          return run([&] {
            auto cat = load_catalog(catalog_dir);
            auto data = infer_dir.empty() ? infer::InferData::load_default() : infer::InferData::load(infer_dir);
            infer::DeploymentSpec d;
            d.expert_load_factor = expert_load_factor;
            d.memory_gib = memory_gib;
            d.memory_utilization_fraction = memory_utilization_fraction;
            d.max_model_len = max_model_len;
            d.model = model;
            d.accelerator = accelerator;
            d.engine = engine;
            d.system = system;
            d.tp = tp;
            d.pp = pp;
            d.ep = ep;
            d.weight_format = weights;
            d.activation_format = activations;
            d.kv_format = kv;
            d.kv_share_layers = kv_share_layers;
            // Errors about a field name this function's argument (weights, not weight_format), as
            // the CLI's name its options.
            for (const auto& [field, arg] : std::initializer_list<std::pair<const char*, const char*>>{
                     {"model", "model"}, {"accelerator", "accelerator"}, {"engine", "engine"}, {"system", "system"},
                     {"tp", "tp"}, {"pp", "pp"}, {"ep", "ep"}, {"weight_format", "weights"},
                     {"activation_format", "activations"}, {"kv_format", "kv"}, {"kv_share_layers", "kv_share_layers"},
                     {"expert_load_factor", "expert_load_factor"}, {"memory_gib", "memory_gib"},
                     {"memory_utilization_fraction", "memory_utilization_fraction"}, {"max_model_len", "max_model_len"}})
              d.given_at[field] = SourceLocation{"", 0, 0, arg};
            return naming_token_arguments([&] { return infer::run_estimate(d, *cat, *data, prompt, output, batch); });
          });
        },
        py::arg("model"), py::arg("accelerator"), py::arg("engine"), py::arg("system"), py::arg("tp"), py::arg("pp"),
        py::arg("ep"), py::arg("weights"), py::arg("activations"), py::arg("kv"), py::arg("kv_share_layers"),
        py::arg("prompt"), py::arg("output"), py::arg("batch"), py::arg("catalog_dir"), py::arg("infer_dir"),
        py::arg("expert_load_factor"), py::arg("memory_gib"), py::arg("memory_utilization_fraction"),
        py::arg("max_model_len"));

  // The CLI's analysis options too (device, catalog, what-if scales, dropped gaps, thresholds,
  // clock sync, the per-rank cache); a bare five-argument analyze() had none (2026-12-04 review).
  m.def("analyze",
        [](const std::vector<std::string>& paths, const std::string& compat, const std::vector<std::string>& only,
           int top, int threads, const std::string& device, const std::string& catalog_dir, const std::vector<std::string>& scales,
           const std::vector<std::string>& drop_gaps, int stragglers, bool per_launch, double kernel_delay_us,
           double unexplained_gap_us, int critical_path_rows, int64_t sequence_depth, double gap_threshold_us, bool clock_sync,
           bool cache, const std::string& cache_dir, int64_t max_inflate_bytes) {
          return run([&] {
            if (paths.empty()) throw Error(SourceLocation{"", 0, 0, "paths"}, "no trace given", "give a trace file or a folder of per-rank files");
            if (compat != "sextant" && compat != "hta")
              throw Error(SourceLocation{"", 0, 0, "compat"}, "unknown rule set '" + compat + "'", "valid: sextant, hta");
            trace::AnalyzeRequest req;
            req.inputs = paths;
            req.only = only;
            req.options.hta = compat == "hta";
            req.options.top_kernels = top;
            req.options.top_sequences = top;  // as the CLI's --top
            req.options.num_kernels = top;
            req.load.threads = threads;
            if (stragglers >= 0 && compat != "hta")
              throw Error(SourceLocation{"", 0, 0, "stragglers"}, "applies with compat='hta' (HTA's straggler candidates)",
                          "add compat='hta', or leave it out (the stragglers table ranks every rank)");
            if (stragglers >= 0) req.options.straggler_candidates = stragglers;
            req.options.device = device;
            req.options.catalog_dir = catalog_dir;
            for (const auto& sc : scales) {
              try {
                (void)trace::replay::parse_scale(sc);  // errors before loading
              } catch (const Error& e) {
                throw Error(SourceLocation{"", 0, 0, "scale"}, e.message(), e.hint());
              }
            }
            req.options.scales = scales;
            for (const auto& d : drop_gaps) {
              if (d != "host" && d != "gpu")
                throw Error(SourceLocation{"", 0, 0, "drop_gaps"}, "unknown gap kind '" + d + "'", "valid: host, gpu");
              (d == "host" ? req.options.drop_host_gaps : req.options.drop_gpu_gaps) = true;
            }
            // The CLI's bounds (its validators): a negative threshold had changed the critical
            // path through Python only (2026-12-05 review).
            if (!(unexplained_gap_us >= 0))
              throw Error(SourceLocation{"", 0, 0, "unexplained_gap_us"}, "must be a finite number >= 0");
            if (!(gap_threshold_us >= 0)) throw Error(SourceLocation{"", 0, 0, "gap_threshold_us"}, "must be a finite number >= 0");
            // A real number of microseconds, as the CLI's --kernel-delay-us (2026-12-06 review: 2.5 was refused).
            if (!(kernel_delay_us >= 0)) throw Error(SourceLocation{"", 0, 0, "kernel_delay_us"}, "must be a finite number >= 0");
            if (max_inflate_bytes < trace::kDefaultInflateLimit)
              throw Error(SourceLocation{"", 0, 0, "max_inflate_bytes"}, "must be >= 0 (0: no limit), or None for the default rule");
            req.load.scan.max_inflate_bytes = max_inflate_bytes;
            req.options.per_launch_rows = per_launch;
            req.options.consecutive_kernel_delay_us = kernel_delay_us;
            req.options.unexplained_gap_us = unexplained_gap_us;
            req.options.critical_path_rows = critical_path_rows;
            req.options.sequence_depth = sequence_depth;
            req.options.gpu_gap_threshold_us = gap_threshold_us;
            req.options.clock_sync = clock_sync;
            req.load.cache = cache || !cache_dir.empty();
            req.load.cache_dir = cache_dir;
            try {
              return trace::analyze(req);
            } catch (const Error& e) {
              rethrow_as_argument(e);  // "only", not "--only"
            }
          });
        },
        py::arg("paths"), py::arg("compat"), py::arg("only"), py::arg("top"), py::arg("threads"), py::arg("device"),
        py::arg("catalog_dir"), py::arg("scales"), py::arg("drop_gaps"), py::arg("stragglers"), py::arg("per_launch"),
        py::arg("kernel_delay_us"), py::arg("unexplained_gap_us"), py::arg("critical_path_rows"), py::arg("sequence_depth"),
        py::arg("gap_threshold_us"), py::arg("clock_sync"), py::arg("cache"), py::arg("cache_dir"), py::arg("max_inflate_bytes"));

  m.def("catalog",
        [](const std::string& kind, const std::string& name, const std::string& catalog_dir) {
          return run([&] {
            auto cat = load_catalog(catalog_dir);
            try {
              return name.empty() ? cli::catalog_list(*cat, kind) : cli::catalog_show(*cat, name);
            } catch (const Error& e) {
              // The CLI's positional KIND and NAME are the arguments kind and name here.
              const std::string& k = e.where().key;
              if (e.where().file.empty() && (k == "KIND" || k == "NAME"))
                throw Error(SourceLocation{"", 0, 0, k == "KIND" ? "kind" : "name"}, e.message(), e.hint());
              throw;
            }
          });
        },
        py::arg("kind"), py::arg("name"), py::arg("catalog_dir"));

  // Overrides as the CLI's --set list: a key given twice (processes[0].x and processes.0.x are one
  // key) is refused with the CLI's own message, by its own code (cli::parse_sets). In Python the
  // last had won in silence (review of 2026-12-06). A key that is empty or holds '=' is not a
  // --set key and is left to the scenario reader, which refuses it.
  m.def(
      "check_sets",
      [](const Overrides& sets) {
        std::vector<std::string> items;
        for (const auto& [key, value] : sets)
          if (!key.empty() && key.find('=') == std::string::npos) items.push_back(key + "=" + value);
        cli::parse_sets(items);
      },
      py::arg("sets"));
  // The number formats the CLI's --weights/--activations/--kv name, and the library's
  // "valid: a, b; did you mean 'x'?" hint, for the package's own checks to word as the CLI does.
  m.def("format_names", [] { return infer::format_names(); });
  m.def("valid_choices_hint", &valid_choices_hint, py::arg("word"), py::arg("candidates"));

  // HTML report of a result given as its JSON text.
  m.def("report",
        [](const std::string& result_json, const std::string& path) {
          py::gil_scoped_release release;
          const CNumericLocale c_numbers;
          // Refused before the report is rendered, as the CLI's report -o does ("dir/" failed at the
          // final rename with "Not a directory", 2026-12-04 review).
          {
            std::error_code ec;
            if (path.empty()) throw Error(SourceLocation{"", 0, 0, "path"}, "an empty path", "give the HTML file's name");
            if (path.back() == '/' || std::filesystem::is_directory(path, ec))
              throw Error(SourceLocation{path, 0, 0, "path"}, "is a folder: report() takes the HTML file's name",
                          "give a file name, e.g. " + (path.back() == '/' ? path : path + "/") + "report.html");
            // "-" had written the page to the process's standard output, where the CLI's --report -
            // is refused (review of 2026-12-06).
            if (path == "-")
              throw Error(SourceLocation{"", 0, 0, "path"}, "report() writes an HTML file, not to standard output: give a file name");
            cli::check_output_path("path", path, false);
          }
          nlohmann::ordered_json doc;
          try {
            doc = nlohmann::ordered_json::parse(result_json);
          } catch (const nlohmann::ordered_json::parse_error& e) {
            // A SextantError like every other bad input (NaN from json.dumps was a RuntimeError).
            throw Error(SourceLocation{"", 0, 0, "result"}, std::string("the result is not JSON: ") + e.what(),
                        "give a result dict or the text of --json (null, not NaN)");
          }
          report::write_report(report::result_of_document(doc), path);
        },
        py::arg("result_json"), py::arg("path"));
}
