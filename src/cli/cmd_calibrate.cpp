// sextant calibrate [--run RUN] --out FILE.yaml: fit this host's efficiency model from a bench
// run and write a catalog accelerator entry (and a network entry from the MPI suite).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "bench/calibrate/calibrate.hpp"
#include "bench/db/results_db.hpp"
#include "catalog/catalog.hpp"
#include "catalog/device_name.hpp"
#include "cli/cli.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/yaml_reader.hpp"
#include "trace/analyze.hpp"

namespace sextant::cli {

namespace {
using namespace sextant::bench;

struct CalibrateArgs {
  std::string db, run = "latest", out, network_out, peak_from, catalog_dir;
  std::vector<std::string> traces;  // --trace: calibrate from profiler traces instead of a bench run
  std::string device;               // --device: the catalog accelerator the traces ran on
  TraceCalibrateOptions trace_opt;
  double memory_peak_gb_per_s = 0;
  std::vector<std::string> peak_tflops;  // --peak-tflops DTYPE=X
  bool force = false;               // --force: replace existing --out / --network-out files
  std::vector<std::string> run_only_given;  // options of a bench-run calibration given with --trace
  CalibrateOptions opt;
  OutputOptions output;
};

// Calibration writes a new catalog file, never edits one: an existing file is replaced only when
// it holds nothing but an earlier calibration of the same id (recalibrating a host), or with
// --force. A bundled catalog file holds several entries that other files refer to: writing over
// it (it was, before 2026-12-02) left the catalog unloadable.
// A YAML file as the catalog loader takes one: .yaml or .yml in any case (Mine.YAML is loaded; it
// had been skipped here, and a duplicate id in it then stopped the catalog loading, 2026-12-04).
bool is_yaml_name(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".yaml" || ext == ".yml";
}

void check_new_file(const std::string& path, const char* option, const std::string& id, bool force) {
  std::error_code ec;
  if (!path.empty() && (path.back() == '/' || std::filesystem::is_directory(path, ec)))
    throw Error(SourceLocation{path, 0, 0, option}, "is a folder: " + std::string(option) + " takes the catalog file's name",
                "give a file name, e.g. " + (path.back() == '/' ? path : path + "/") + id + ".yaml");
  // A catalog folder loads .yaml and .yml files only: an entry written as d2.txt was ignored there
  // without a word (review of 2026-12-05).
  if (!path.empty()) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (ext != ".yaml" && ext != ".yml")
      throw Error(SourceLocation{path, 0, 0, option}, "a catalog file ends in .yaml or .yml (a catalog folder loads no other file)",
                  "e.g. " + (std::filesystem::path(path).parent_path() / (std::filesystem::path(path).stem().string() + ".yaml")).string());
  }
  if (path.empty() || force || !std::filesystem::exists(path, ec)) return;
  std::vector<std::string> ids;
  bool readable = true;
  try {
    const YAML::Node doc = YAML::LoadFile(path);
    if (doc.IsMap() && doc["entries"] && doc["entries"].IsSequence())
      for (const auto& e : doc["entries"])
        ids.push_back(e.IsMap() && e["id"] && e["id"].IsScalar() ? e["id"].Scalar() : std::string("?"));
  } catch (const std::exception&) {
    readable = false;
  }
  // Only an earlier calibration is replaced: a hand-written file holding the same id had been
  // overwritten without --force (2026-12-04 review). Calibrations start with their header.
  bool calibrated = false;
  if (std::ifstream in(path); in) {
    std::string first;
    std::getline(in, first);
    calibrated = first.rfind("# Written by `sextant calibrate", 0) == 0;
  }
  if (readable && calibrated && !ids.empty() && std::all_of(ids.begin(), ids.end(), [&](const std::string& x) { return x == id; })) return;
  if (readable && !calibrated && !ids.empty() && std::all_of(ids.begin(), ids.end(), [&](const std::string& x) { return x == id; }))
    throw Error(SourceLocation{path, 0, 0, option},
                "the file holds the entry '" + id + "' but was not written by sextant calibrate (no `# Written by` header): "
                "calibration replaces only an earlier calibration",
                "give a new path, or --force to replace the file (its contents are lost)");
  std::string held;
  for (const auto& x : ids) held += (held.empty() ? "" : ", ") + x;
  throw Error(SourceLocation{path, 0, 0, option},
              "the file exists and holds " + (readable ? (ids.empty() ? std::string("no catalog entries") : "other entries (" + held + ")")
                                                       : std::string("no readable YAML")) +
                  ": calibration writes a new catalog file, it does not edit one",
              "give a new path (the catalog loads every file of its folder), or --force to replace the file (its contents are lost)");
}

// The catalog loads every file of the folder --out writes into, and an id given twice stops it
// loading (two hosts calibrated with the default id, or a bundled accelerator's id in a new file,
// left every command failing before 2026-12-02): the id must be free in the other files there.
void check_id_free(const std::string& path, const char* option, const std::string& id) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path out = fs::absolute(path, ec);
  const fs::path dir = out.parent_path();
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && is_yaml_name(e.path()) &&
        !fs::equivalent(e.path(), out, ec))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      const YAML::Node doc = YAML::LoadFile(f.string());
      if (!doc.IsMap() || !doc["entries"] || !doc["entries"].IsSequence()) continue;
      bool has = false, only = true;
      for (const auto& e : doc["entries"]) {
        const bool same = e.IsMap() && e["id"] && e["id"].IsScalar() && e["id"].Scalar() == id;
        has |= same;
        only &= same;
      }
      // Recalibrating into that file is suggested only where it would be taken: a file holding
      // this id alone (a bundled file of several entries is refused by check_new_file; it was
      // suggested anyway before 2026-12-04).
      if (has)
        throw Error(SourceLocation{path, 0, 0, option},
                    "the id '" + id + "' is already in " + f.string() +
                        ", and the catalog loads every file of this folder: a second entry of one id stops it loading",
                    only ? "give another id (--id, --network-id), or recalibrate into that file (--out " + f.string() + ")"
                         : "give another id (--id, --network-id): " + f.string() + " holds other entries too, and calibration "
                           "does not edit such a file");
    } catch (const YAML::Exception&) {
      // A file the catalog cannot read either: the catalog's own error names it.
    }
  }
}

// An id the catalog already has is not free either, wherever the file goes: `estimate --set
// accelerator=FILE` then ran the calibrated figures under the catalog entry's id and name (an entry
// written to o2/h.yaml as h100-sxm-80gb, 2026-12-06 review). Recalibrating into the file that holds
// the id (an earlier calibration in the catalog folder) is no clash; check_new_file decides that.
// `option` is the option that gives the id (--id, --network-id).
void check_id_not_in_catalog(const Catalog& cat, bool accelerator, const std::string& id, const std::string& path, const char* option) {
  // Nothing written, nothing read as the catalog's entry: a run that only prints its result is
  // not refused (once `calibrate --out` had installed host-calibrated, every bare `calibrate`
  // was, with host-calibrated-calibrated suggested; 2026-12-06 review).
  if (path.empty()) return;
  if (accelerator ? !cat.has_accelerator(id) : !cat.has_network(id)) return;
  const std::string& file = accelerator ? cat.accelerator(id).file : cat.network(id).file;
  std::error_code ec;
  if (!path.empty() && std::filesystem::equivalent(file, path, ec)) return;
  throw Error(SourceLocation{"", 0, 0, option},
              "the id '" + id + "' is the catalog's " + (accelerator ? "accelerator" : "network") + " (" + file +
                  "): a calibrated entry of that id would be read as that entry, under its name, with other figures",
              "give the new entry an id of its own, e.g. " + std::string(option) + " " + id +
                  (id.size() > 11 && id.compare(id.size() - 11, 11, "-calibrated") == 0 ? "-2" : "-calibrated"));
}

// A catalog folder reads its accelerators from accelerators/ and its networks from networks/: an
// entry written into the folder of another kind stops the whole catalog loading (a calibrated CPU
// under networks/ had been written, and `estimate --catalog` then failed at its kind; 2026-12-06
// review).
void check_kind_folder(const std::string& path, const char* option, const std::string& kind) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::absolute(path, ec).parent_path();
  const std::string dir = parent.filename().string();
  // A catalog: a folder of one kind beside another kind's (a lone models/ folder is no catalog).
  bool catalog = false;
  for (const char* k : {"accelerators", "networks", "systems", "models", "frameworks"})
    catalog = catalog || (dir != k && fs::is_directory(parent.parent_path() / k, ec));
  if (!catalog) return;
  for (const char* k : {"accelerators", "networks", "systems", "models", "frameworks"})
    if (dir == k && dir != kind)
      throw Error(SourceLocation{path, 0, 0, option},
                  "the file is in a catalog's " + dir + "/ folder, but the entry is one of " + kind +
                      ": the catalog would read it as one of " + dir + " and refuse to load",
                  "write it under the catalog's " + kind + "/ folder (e.g. " +
                      (fs::absolute(path, ec).parent_path().parent_path() / kind / fs::path(path).filename()).string() + ")");
}

// The written text must load as the catalog loads it; a file that does not is a bug here.
void check_loads(const std::string& text, const std::string& what, bool accelerator) {
  auto file = YamlMap::load_string(text, what);
  std::map<std::string, std::string> sources;
  if (auto s = file.opt_map("sources")) {
    for (const auto& k : s->keys()) sources[k] = s->str(k);
    s->finish();
  }
  for (auto& e : file.map_list("entries")) {
    if (accelerator) parse_accelerator(e, sources);
    else parse_network(e, sources);
  }
  file.finish();
}

// What a user must know before trusting the written entry: a poor fit, a fraction pinned at its
// bound, too few shapes. The entry is still written (the rms is in it), but not silently.
void add_quality_notes(const Calibration& c, Result& r) {
  for (const auto& n : c.notes) r.notes.push_back(n);
  for (const auto& f : c.gemm) {
    if (f.fit_rms_error_fraction > 0.25)
      r.notes.push_back(f.dtype + " GEMM fit is poor: rms error " + format_double(std::round(f.fit_rms_error_fraction * 1000) / 1000) +
                        " over " + std::to_string(f.fitted_count) +
                        " shapes (the written model misses the measured rates by that much; table gemm_fit shows which shapes): "
                        "read estimates on this entry as rough");
    if (f.fraction_written && f.gemm_peak_fraction >= 0.995)
      r.notes.push_back(f.dtype + " gemm_peak_fraction " + format_double(std::round(f.gemm_peak_fraction * 1000) / 1000) +
                        " sits at its bound of 1: the measured rates reach the peak the fit divides by (a peak too low for this "
                        "device or clock, or burst rates): check the peak");
    if (f.fitted_count < 6)
      r.notes.push_back(f.dtype + " GEMM fit rests on " + std::to_string(f.fitted_count) + " shapes: its half-dimension is weakly determined");
  }
  if (c.network.present && c.network.fit_rms_error_fraction > 0.25)
    r.notes.push_back("collective fit is poor: rms error " + format_double(std::round(c.network.fit_rms_error_fraction * 1000) / 1000) +
                      " over " + std::to_string(c.network.points) + " calls");
}

// From Kineto traces: the workload and collectives analyses of `sextant analyze`, fitted.
void run_trace(CalibrateArgs& a) {
  auto cat = a.catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a.catalog_dir);
  trace::AnalyzeRequest req;
  req.inputs = a.traces;
  req.only = {"workload", "collectives"};
  req.options.device = a.device;
  req.options.top_kernels = 1 << 20;  // every operator shape, not only the top ones
  const trace::TraceSet set = trace::load_traces(req.inputs, req.load);
  // Traces of different GPUs cannot make one entry: each file's GPU (the first of its
  // deviceProperties, as the loader's "different GPU models" warning reads it) must be the same.
  // Before 2026-12-06 (review) an H200 and an A100 trace were refused as "runs faster than
  // a100-sxm-80gb's peak ... give --device", which no --device could mend.
  {
    std::vector<std::pair<std::string, std::vector<std::string>>> files_by_gpu;  // in order of first appearance
    for (const auto& t : set.ranks) {
      if (t.device_names.empty() || t.device_names.front().empty()) continue;
      const std::string& gpu = t.device_names.front();
      auto it = std::find_if(files_by_gpu.begin(), files_by_gpu.end(), [&](const auto& g) { return g.first == gpu; });
      if (it == files_by_gpu.end()) files_by_gpu.push_back({gpu, {t.file}});
      else it->second.push_back(t.file);
    }
    if (files_by_gpu.size() > 1) {
      std::string list;
      for (const auto& [gpu, files] : files_by_gpu)
        list += (list.empty() ? "" : "; ") + files.front() + " ran on '" + gpu + "'" +
                (files.size() > 1 ? " (and " + std::to_string(files.size() - 1) + " other file" + (files.size() > 2 ? "s" : "") + ")" : "");
      throw Error(SourceLocation{"", 0, 0, "--trace"},
                  "the traces name different GPUs in their deviceProperties: " + list +
                      ": one calibration fits one GPU's entry, and no --device is both",
                  "calibrate the traces of each GPU apart: one --trace set per GPU, each with its own --out");
    }
  }
  // The GPU the traces name (deviceProperties), read from the traces themselves: the workload
  // analysis names it only when it has shaped operators to place on a roofline.
  std::string named;
  for (const auto& t : set.ranks)
    if (named.empty() && !t.device_names.empty()) named = t.device_names.front();
  const std::string on = named.empty() ? std::string() : " (it ran on " + named + ")";
  // The choices the device errors list: the ids like the trace's GPU (and the --device given)
  // first, as valid_choices_hint shows 40 (an AMD GPU's had never shown mi250x or mi300x; 2026-12-07 review).
  auto choices = [&](const std::string& dev) { return accelerator_ids_like(*cat, named + " " + dev); };
  // An unknown --device is refused here, before the analysis (whose own refusal lists the ids in
  // id order).
  if (!a.device.empty() && !cat->has_accelerator(a.device))
    throw Error(SourceLocation{"", 0, 0, "--device"}, "unknown accelerator '" + a.device + "'" + on, valid_choices_hint(a.device, choices(a.device)));
  const Result analysis = trace::analyze_loaded(set, req);
  // Nothing to fit is said as such, whatever the device: a trace without Input Dims (record_shapes
  // off), with zero-duration kernels or of collectives only had been refused as "the GPU the trace
  // ran on is not known ('')", naming --device (2026-12-05 review).
  int64_t gemm_rows = 0;
  if (const Table* rt = analysis.table("roofline")) {
    const auto& op = rt->column("op").str;
    const auto& dims = rt->column("input_dims").str;
    const auto& achieved = rt->column("achieved_flops_per_s").f64;
    for (size_t i = 0; i < rt->rows(); ++i) {
      double m = 0, n = 0, k = 0, batch = 0;
      if (gemm_shape_of(op[i], dims[i], m, n, k, batch) && achieved[i] > 0 && std::isfinite(achieved[i])) ++gemm_rows;
    }
  }
  // The trace is named (review of 2026-12-06: the error had not said which).
  std::string trace_list;
  for (const auto& t : a.traces) trace_list += (trace_list.empty() ? "" : ", ") + t;
  if (gemm_rows == 0)
    throw Error(SourceLocation{"", 0, 0, "--trace"},
                "the trace" + std::string(a.traces.size() > 1 ? "s " + trace_list + " hold" : " " + trace_list + " holds") +
                    " no GEMM operator (aten::mm, addmm, bmm, baddbmm, linear, matmul) with its shapes (Input Dims) and the GPU time of "
                    "its kernels" + on + ": nothing to calibrate from",
                "profile with torch.profiler.profile(activities=[CPU, CUDA], record_shapes=True) over steps that run the model's GEMMs");
  std::string dev = a.device;
  if (dev.empty())
    if (const Value* v = analysis.scalar("workload_device"); v && std::holds_alternative<std::string>(*v) && std::get<std::string>(*v) != "(unknown)")
      dev = std::get<std::string>(*v);
  // The entries of the trace's model that are not this part, said when nothing matches: a form
  // factor or memory size the name states that none of them has ("NVIDIA A100-SXM-64GB" had been
  // calibrated as a100-sxm-40gb without a word; 2026-12-07 review).
  const std::vector<std::string> of_model = named.empty() ? std::vector<std::string>{} : entries_of_model(*cat, named);
  std::string of_model_list;
  for (const auto& id : of_model) of_model_list += (of_model_list.empty() ? "" : ", ") + id;
  const std::string model_word = named.empty() ? std::string() : device_model_token(name_tokens(named));
  const std::string none_of_model =
      of_model.empty() ? std::string()
                       : "; the catalog's " + model_word + " entries (" + of_model_list +
                             ") are of another form factor or memory size than the name states";
  if (dev.empty())
    throw Error(SourceLocation{"", 0, 0, "--device"},
                named.empty() ? std::string("the trace names no GPU (no deviceProperties): give the catalog accelerator it ran on")
                              : "the trace's GPU, '" + named + "' (deviceProperties), matches no catalog accelerator" + none_of_model +
                                    ": give --device the one it ran on, or add an entry for this GPU (in a folder given with --catalog DIR)",
                valid_choices_hint(named, choices(dev)));
  if (!cat->has_accelerator(dev))
    throw Error(SourceLocation{"", 0, 0, "--device"}, "unknown accelerator '" + dev + "'" + on, valid_choices_hint(dev, choices(dev)));
  const Accelerator& base = cat->accelerator(dev);
  std::string traced;
  if (const Value* v = analysis.scalar("workload_trace_device"); v && std::holds_alternative<std::string>(*v)) traced = std::get<std::string>(*v);
  // A --device the trace's GPU name contradicts is refused, as the bench calibration refuses a
  // --peak-from of another GPU (one rule, device_name_fits): the entry's fractions would be of that
  // GPU's peaks, fitted to another's kernels. Before 2026-12-06 (review) an H200 trace with
  // --device mi300x was written as an MI300X entry under a note. A name without a model token
  // ("Graphics Device") says nothing either way, and the note below stands.
  // The hint offers the catalog's match for the trace's GPU, one that fits it (never the refused
  // --device), and says so when none does: it had offered --device a100-sxm-40gb, the refused id,
  // as the match for "NVIDIA A100-SXM-64GB" (2026-12-07 review).
  if (!a.device.empty() && !named.empty() && !model_word.empty() && !device_name_fits(base, named)) {
    std::string match_note;
    const std::string fit = match_device(*cat, named, match_note);
    throw Error(SourceLocation{"", 0, 0, "--device"},
                "the trace ran on '" + named + "' (deviceProperties), and --device " + dev + " is another GPU (" + base.name +
                    "): its entry would carry fractions of that GPU's peaks fitted to this one's kernels",
                !fit.empty() && fit != dev
                    ? "give --device " + fit + ", the catalog's match for '" + named + "', or leave --device out"
                    : "no catalog accelerator fits '" + named + "'" + none_of_model +
                          ": add an entry for this GPU (in a folder given with --catalog DIR) and give its id to --device" +
                          (of_model.empty() ? " (" + valid_choices_hint(named, choices(dev)) + ")" : std::string()));
  }
  a.trace_opt.id = a.opt.id == "host-calibrated" ? dev + "-trace-calibrated" : a.opt.id;
  check_kind_folder(a.out, "--out", "accelerators");
  check_new_file(a.out, "--out", a.trace_opt.id, a.force);
  check_id_free(a.out, "--out", a.trace_opt.id);
  check_id_not_in_catalog(*cat, true, a.trace_opt.id, a.out, "--id");
  a.trace_opt.name = a.opt.name;
  for (const auto& t : a.traces) a.trace_opt.trace_ref += (a.trace_opt.trace_ref.empty() ? "" : ", ") + t;
  const Calibration c = calibrate_from_trace(analysis, base, a.trace_opt);
  check_loads(c.accelerator_yaml, "calibrated accelerator", true);
  Result res = trace_calibration_result(c, base, a.trace_opt);
  res.set("trace_rates", a.trace_opt.trace_rates);
  if (!traced.empty() && traced != dev)
    res.notes.push_back("--device " + dev + " is not the GPU the trace names (" + traced +
                        ", from its deviceProperties): the entry's fractions are of " + dev + "'s peaks");
  add_quality_notes(c, res);
  if (!a.out.empty()) {
    write_file_atomic(a.out, c.accelerator_yaml);
    res.set("accelerator_file", a.out);
  } else {
    res.notes.push_back("catalog entry (write it with --out FILE):\n" + c.accelerator_yaml);
  }
  emit(res, a.output);
}

void run(CalibrateArgs& a) {
  if (!a.traces.empty()) {
    if (!a.run_only_given.empty()) {
      std::string list;
      for (const auto& o : a.run_only_given) list += (list.empty() ? "" : ", ") + o;
      throw Error(SourceLocation{"", 0, 0, "--trace"}, "not used with --trace: " + list + " (they calibrate from a bench run)",
                  "leave them out, or calibrate from a bench run without --trace");
    }
    run_trace(a);
    return;
  }
  // One file each: the network entry, written second, replaced the accelerator's (before 2026-12-03).
  if (!a.out.empty() && !a.network_out.empty()) {
    std::error_code e1, e2;
    const auto p1 = std::filesystem::weakly_canonical(std::filesystem::absolute(a.out, e1), e1);
    const auto p2 = std::filesystem::weakly_canonical(std::filesystem::absolute(a.network_out, e2), e2);
    if ((e1 || e2) ? a.out == a.network_out : p1 == p2)
      throw Error(SourceLocation{"", 0, 0, "--network-out"}, "is the file of --out: the network entry would replace the accelerator's",
                  "give each entry its own file (a catalog folder reads every .yaml in it)");
  }
  check_kind_folder(a.out, "--out", "accelerators");
  check_kind_folder(a.network_out, "--network-out", "networks");
  check_new_file(a.out, "--out", a.opt.id, a.force);
  check_new_file(a.network_out, "--network-out", a.opt.network_id.empty() ? a.opt.id + "-mpi" : a.opt.network_id, a.force);
  check_id_free(a.out, "--out", a.opt.id);
  check_id_free(a.network_out, "--network-out", a.opt.network_id.empty() ? a.opt.id + "-mpi" : a.opt.network_id);
  // The catalog --peak-from reads (--catalog, else the bundled one), read once. Without --peak-from
  // only the ids are looked up in it, and a bundled catalog that cannot be read has none to clash with.
  std::shared_ptr<const Catalog> cat;
  try {
    cat = a.catalog_dir.empty() ? Catalog::load_default() : Catalog::load(a.catalog_dir);
  } catch (const Error&) {
    if (!a.peak_from.empty()) throw;
  }
  if (cat) {
    check_id_not_in_catalog(*cat, true, a.opt.id, a.out, "--id");
    if (!a.network_out.empty())
      check_id_not_in_catalog(*cat, false, a.opt.network_id.empty() ? a.opt.id + "-mpi" : a.opt.network_id, a.network_out, "--network-id");
  }
  const std::string db_path = a.db.empty() ? default_db_path() : a.db;
  ResultsDb db = ResultsDb::open_existing(db_path);
  // Read whole once (quick_check) and a damaged file refused as `bench` refuses it: a damaged hosts
  // table had hidden every run, and calibrate said "no run 3 in the results database" (2026-12-06 review).
  db.require_intact();
  // A run reference is calibrate's --run (the history commands' RUN argument had been named,
  // 2026-12-04 review), and an unusable run names the database it came from.
  auto as_run_option = [&](const Error& e) {
    SourceLocation at = e.where();
    if (at.key == "RUN") at.key = "--run";
    if (at.file.empty()) at.file = db_path;
    return Error(at, e.message(), e.hint());
  };
  RunRecord r;
  try {
    r = db.load_run(db.resolve_run(a.run));
  } catch (const Error& e) {
    throw as_run_option(e);
  }
  a.opt.memory_peak_bytes_per_s = a.memory_peak_gb_per_s * 1e9;
  for (const auto& item : a.peak_tflops) {
    const auto eq = item.find('=');
    const std::string dt = eq == std::string::npos ? item : item.substr(0, eq);
    // Every number format the catalog knows (int4 had been refused here, and a run's int4 GEMMs then
    // had a note suggesting an option that refused it; 2026-12-07 review).
    const std::vector<std::string>& dtypes = dtype_names();
    if (std::find(dtypes.begin(), dtypes.end(), dt) == dtypes.end())
      throw Error(SourceLocation{"", 0, 0, "--peak-tflops"}, "'" + item + "': unknown dtype '" + dt + "'", valid_choices_hint(dt, dtypes));
    double v = 0;
    if (eq == std::string::npos || !parse_finite(item.substr(eq + 1), &v) || !(v > 0))
      throw Error(SourceLocation{"", 0, 0, "--peak-tflops"}, "'" + item + "': give DTYPE=TFLOPS with a positive number", "e.g. --peak-tflops fp64=0.15");
    if (a.opt.peak_override_by_dtype.count(dt))
      throw Error(SourceLocation{"", 0, 0, "--peak-tflops"}, "dtype " + dt + " is given twice", "give each dtype once");
    a.opt.peak_override_by_dtype[dt] = v * 1e12;
  }
  if (!a.peak_from.empty()) {
    // The run's GPU (the name its gpu cases give) and the word given order the choices listed.
    std::string run_gpu;
    for (const auto& m : r.measurements)
      if (run_gpu.empty() && m.suite == "gpu" && m.has_param("device")) run_gpu = m.param("device");
    a.opt.accelerator_choices = accelerator_ids_like(*cat, run_gpu + " " + a.peak_from);
    if (!cat->has_accelerator(a.peak_from))
      throw Error(SourceLocation{"", 0, 0, "--peak-from"}, "unknown accelerator '" + a.peak_from + "'",
                  valid_choices_hint(a.peak_from, a.opt.accelerator_choices));
    const Accelerator& acc = cat->accelerator(a.peak_from);
    for (const auto& [d, s] : acc.peak_flops)
      if (s.known) a.opt.peak_flops_by_dtype[to_string(d)] = s.value;
    a.opt.peak_source = "catalog " + a.peak_from + " (" + acc.name + ") peak";
    // The memory roofline of a GPU fit needs the published bandwidth; the entry's memory too.
    if (a.opt.memory_peak_bytes_per_s <= 0 && acc.memory_bandwidth_bytes_per_s.known) {
      a.opt.memory_peak_bytes_per_s = acc.memory_bandwidth_bytes_per_s.value;
      if (a.opt.memory_peak_source.empty()) a.opt.memory_peak_source = "catalog " + a.peak_from + " (" + acc.name + ") memory";
      a.opt.memory_peak_option = "--peak-from";
    }
    // The rest of the entry (memory size, fp8 peak, TDP, ...) is carried from it for a GPU run.
    a.opt.peak_from_entry = acc;
  }
  const Calibration c = [&] {
    try {
      return calibrate_from_run(r, a.opt);
    } catch (const Error& e) {
      if (e.where().key == "RUN") throw as_run_option(e);
      // An error of the fit that names no place (values the database holds: a corrupted sample)
      // names the database and the run (it had named neither; 2026-12-06 review).
      if (e.where().file.empty() && e.where().key.empty())
        throw Error(SourceLocation{db_path, 0, 0, "--run"}, "run " + std::to_string(r.id) + ": " + e.message(), e.hint());
      throw;
    }
  }();
  check_loads(c.accelerator_yaml, "calibrated accelerator", true);
  if (!c.network_yaml.empty()) check_loads(c.network_yaml, "calibrated network", false);
  // Nothing is written when a requested file cannot be (before 2026-12-02 --out was written and
  // then --network-out failed).
  if (!a.network_out.empty() && c.network_yaml.empty())
    throw Error(SourceLocation{"", 0, 0, "--network-out"}, "the run has no MPI ping-pong measurements",
                "the network entry comes from the run that is calibrated: run `sextant bench --suite gemm_cpu --suite comm_mpi` "
                "(GPU: --suite gpu), both suites in one run");
  Result res = calibration_result(c, r, a.opt);
  add_quality_notes(c, res);
  if (!a.out.empty()) {
    write_file_atomic(a.out, c.accelerator_yaml);
    res.set("accelerator_file", a.out);
  } else {
    res.notes.push_back("catalog entry (write it with --out FILE):\n" + c.accelerator_yaml);
  }
  if (!a.network_out.empty()) {
    write_file_atomic(a.network_out, c.network_yaml);
    res.set("network_file", a.network_out);
  }
  emit(res, a.output);
}
}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand("calibrate", "Fit this host's efficiency model from a bench run and write a catalog entry");
  cmd->add_option("--db", a->db, "Results database (default: $XDG_DATA_HOME/sextant/results.db or ~/.local/share/sextant/results.db)")->check(non_empty_path());
  cmd->add_option("--run", a->run, "Bench run to calibrate from (id, latest, latest~N; default latest)");
  cmd->add_option("--out", a->out, "Write the accelerator catalog file here (e.g. data/catalog/accelerators/myhost.yaml)");
  cmd->add_option("--network-out", a->network_out, "Write a network catalog file from the MPI suite here");
  cmd->add_option("--peak-from", a->peak_from, "Catalog accelerator of the GPU the run measured, whose peaks and unmeasured figures the entry takes (GPU runs)");
  cmd->add_option("--peak-tflops", a->peak_tflops,
                  "Peak TFLOP/s of a dtype, DTYPE=X (repeatable): replaces the run's own peak, e.g. a CPU's at its sustained (turbo) clock");
  cmd->add_option("--catalog", a->catalog_dir, "Catalog folder for --peak-from (default: the bundled one)");
  cmd->add_option("--id", a->opt.id, "Catalog id of the new entry (default host-calibrated)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            // An id is referred to from scenarios and --accelerator: not empty, no spaces or
            // quotes ('' had been written as id: "", an entry nothing could name; 2026-12-04).
            if (v.empty()) return "an id cannot be empty";
            for (unsigned char ch : v)
              if (!(std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.'))
                return "an id is letters, digits, '-', '_' and '.', got '" + v + "'";
            return {};
          },
          ""));
  cmd->add_option("--name", a->opt.name, "Display name (default: CPU model + (calibrated))");
  cmd->add_option("--suite", a->opt.suite, "GEMM suite to fit: gemm_cpu or gpu (default: the run's)");
  cmd->add_option("--max-fit-dim", a->opt.max_fit_dim, "Hold out shapes whose largest dimension exceeds this")
      ->check(positive_number());
  cmd->add_option("--max-fit-skew", a->opt.max_fit_skew, "Hold out shapes whose largest/smallest dimension ratio exceeds this")
      ->check(number_check(1, false, HUGE_VAL, "a ratio of dimensions >= 1 (largest / smallest)", ">= 1"));  // below 1 held out every shape
  cmd->add_option("--memory-peak-gb-per-s", a->memory_peak_gb_per_s, "Published peak memory bandwidth (GB/s), for memory_bandwidth_fraction")
      ->check(positive_number());
  // Options that qualify another are refused without it (they were ignored, exit 0, before 2026-12-03).
  auto* o_net = cmd->get_option("--network-out");
  cmd->add_option("--memory-peak-source", a->opt.memory_peak_source, "Citation of that peak (with --memory-peak-gb-per-s or --peak-from)");
  cmd->add_option("--network-id", a->opt.network_id, "Catalog id of the network entry (default <id>-mpi; with --network-out)")->needs(o_net);
  cmd->add_option("--network-kind", a->opt.network_kind, "scale_up, scale_out or pcie (default scale_out; with --network-out)")
      ->check(CLI::IsMember({"scale_up", "scale_out", "pcie"}))
      ->needs(o_net);
  cmd->add_option("--trace", a->traces, "Calibrate from these PyTorch/Kineto traces (files or folders) instead of a bench run: "
                                        "GEMM efficiency from operator shapes, collective bus bandwidth from NCCL kernels");
  auto* o_trace = cmd->get_option("--trace");
  cmd->add_option("--device", a->device, "With --trace: catalog accelerator the trace ran on (default: from deviceProperties)");
  cmd->add_option("--trace-rates", a->trace_opt.trace_rates,
                  "With --trace: sustained (a training step's rates; default: sustained_compute_fraction 1) or burst (a short "
                  "benchmark's: the base entry's sustained fraction kept)")
      ->check(CLI::IsMember({"sustained", "burst"}))
      ->needs(o_trace);  // (both were ignored beside a bench run, exit 0, before 2026-12-04)
  cmd->get_option("--device")->needs(o_trace);
  cmd->add_flag("--force", a->force, "Replace an existing --out or --network-out file (default: refuse; its entries would be lost)");
  add_output_options(*cmd, a->output);
  cmd->callback([a, cmd] {
    if (cmd->count("--memory-peak-source") && !cmd->count("--memory-peak-gb-per-s") && !cmd->count("--peak-from"))
      throw Error(SourceLocation{"", 0, 0, "--memory-peak-source"}, "cites a memory peak, and none is given",
                  "give --memory-peak-gb-per-s (or --peak-from ACCELERATOR), or leave it out");
    // The catalog is read for --peak-from and for a trace's device: alone it was ignored.
    if (cmd->count("--catalog") && !cmd->count("--peak-from") && !cmd->count("--trace"))
      throw Error(SourceLocation{"", 0, 0, "--catalog"}, "is read only with --peak-from or --trace, and neither is given", "leave it out");
    for (const char* o : {"--db", "--run", "--network-out", "--peak-from", "--peak-tflops", "--suite", "--max-fit-dim", "--max-fit-skew",
                          "--memory-peak-gb-per-s", "--memory-peak-source", "--network-id", "--network-kind"})
      if (cmd->count(o) > 0) a->run_only_given.push_back(o);
    run(*a);
  });
}

}  // namespace sextant::cli
