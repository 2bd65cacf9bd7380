// sextant: performance toolkit for machine-learning systems. Command-line front end.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <cstring>
#include <new>
#include <exception>

#include "bench/suite.hpp"
#include "cli/cli.hpp"
#include "cli/mpi_world.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  sextant::bench::release_blas_worker_threads();  // see bench/suite.hpp: most commands never call BLAS
  CLI::App app{
      "Sextant: analyze ML profiler traces, estimate and simulate training steps, plan parallelism,\n"
      "model goodput and inference, benchmark and calibrate. Each command has --help."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sextant 0.1.0"));

  // Each command's options take ~0.1 ms to declare (1.4 ms for all fourteen, 4% of analyzing a
  // 10 MB trace), so only the command argv[1] names is declared when it names one exactly. Anything
  // else (no command, --help, --version, a misspelt command) declares all of them, so that the
  // help and CLI11's errors list every command as before.
  using namespace sextant::cli;
  struct Command {
    const char* name;
    void (*add)(CLI::App&);
  };
  static constexpr Command kCommands[] = {
      {"catalog", add_catalog_command},   {"goodput", add_goodput_command},   {"bench", add_bench_command},
      {"history", add_history_command},   {"calibrate", add_calibrate_command}, {"analyze", add_analyze_command},
      {"trace", add_trace_command},       {"infer", add_infer_command},       {"report", add_report_command},
      {"estimate", add_estimate_command}, {"simulate", add_simulate_command}, {"validate", add_validate_command},
      {"plan", add_plan_command},         {"sweep", add_sweep_command},
  };
  const Command* named = nullptr;
  if (argc > 1)
    for (const Command& c : kCommands)
      if (std::strcmp(argv[1], c.name) == 0) named = &c;
  if (named) {
    named->add(app);
    // add_report_command also installs the writer behind every command's --report option.
    if (named->add != add_report_command) add_report_command(app);
  } else {
    for (const Command& c : kCommands) c.add(app);
  }

  // Every floating-point option takes finite numbers only: nan or inf given to --headroom-gib,
  // --tie-fraction, a price or a load factor would flow into results as nan/inf with status 0.
  const CLI::Validator finite(
      [](std::string& text) {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end != text.c_str() && *end == '\0' && !std::isfinite(x)) return std::string("must be a finite number, got '") + text + "'";
        return std::string();
      },
      "", "FINITE");
  std::function<void(CLI::App*)> check_floats = [&](CLI::App* a) {
    for (CLI::Option* o : a->get_options())
      if (o->get_type_name().find("FLOAT") != std::string::npos) o->check(finite);
    for (CLI::App* s : a->get_subcommands({})) check_floats(s);
  };
  check_floats(&app);

  // An interrupted run (Ctrl-C, kill) removes its temporary outputs; previous outputs stay intact.
  sextant::install_temp_cleanup_on_signals();

  // Under mpirun with several ranks, usage (--help, --version) and the command line's own errors
  // are the same on every rank: rank 0 alone prints them, the others end with the same status
  // (review of 2026-12-07: `mpirun -np 4 sextant plan --help` printed the usage 4 times).
  const bool mpi_many = MpiWorld::launched_by_mpirun();
  const int mpi_rank = MpiWorld::launcher_rank();
  const bool usage_quiet = mpi_many && mpi_rank > 0;
  // A word where a subcommand is expected that names none ("estimat", "catalog lst") is named,
  // with the closest subcommands: CLI11 said only "A subcommand is required" (before 2026-12-03).
  {
    CLI::App* at = &app;
    std::string path = "sextant";
    for (int i = 1; i < argc; ++i) {
      const std::string w = argv[i];
      if (w.empty() || w[0] == '-') break;  // an option: CLI11's business from here
      const auto subs = at->get_subcommands({});
      if (subs.empty()) break;
      CLI::App* next = nullptr;
      std::vector<std::string> names;
      for (CLI::App* sc : subs) {
        names.push_back(sc->get_name());
        if (sc->check_name(w)) next = sc;
      }
      if (!next) {
        if (at->get_require_subcommand_min() == 0) break;  // a positional argument of a command with optional subcommands
        if (!usage_quiet)
          std::fprintf(stderr, "sextant: error: '%s' is not a subcommand of %s (%s)\nRun with --help for more information.\n", w.c_str(),
                       path.c_str(), sextant::valid_choices_hint(w, names).c_str());
        return 2;
      }
      at = next;
      path += " " + w;
    }
    // A long option the command does not have ("--sett", "--all-rank") is named with the closest
    // ones: CLI11 listed it among "arguments not expected" without a suggestion (2026-12-04).
    if (at != &app) {
      // The command's options, its parents' and its subcommands' (an option may come before the
      // subcommand word that owns it), each once.
      // Beside them, the list options (long name, delimiter) for the empty-item check below.
      std::vector<std::string> longs;
      std::vector<std::pair<std::string, char>> lists;
      auto add_options = [&](CLI::App* a) {
        for (const CLI::Option* o : a->get_options())
          for (const auto& n : o->get_lnames()) {
            if (std::find(longs.begin(), longs.end(), "--" + n) == longs.end()) longs.push_back("--" + n);
            if (o->get_delimiter() != '\0') lists.push_back({"--" + n, o->get_delimiter()});
          }
      };
      for (CLI::App* a = at; a; a = a->get_parent()) add_options(a);
      std::function<void(CLI::App*)> below = [&](CLI::App* a) {
        for (CLI::App* sc : a->get_subcommands({})) {
          add_options(sc);
          below(sc);
        }
      };
      below(at);
      for (int i = 1; i < argc; ++i) {
        const std::string w = argv[i];
        if (w == "--") break;  // what follows is another program's (bench run -- CMD)
        if (w.size() < 3 || w.compare(0, 2, "--") != 0) continue;
        const std::string name = w.substr(0, w.find('='));
        if (std::find(longs.begin(), longs.end(), name) != longs.end()) continue;
        if (!usage_quiet)
          std::fprintf(stderr, "sextant: error: %s has no option '%s' (%s)\nRun with --help for more information.\n", path.c_str(), name.c_str(),
                       sextant::valid_choices_hint(name, longs).c_str());
        return 2;
      }
      // A list option's empty item ("--zero 1,,2", "--schedules 1f1b,"): CLI11 drops it when it
      // splits the value, so a typo passed silently with one item fewer (2026-12-05 fuzz review).
      for (int i = 1; i < argc; ++i) {
        const std::string w = argv[i];
        if (w == "--") break;
        const std::string name = w.substr(0, w.find('='));
        const auto it = std::find_if(lists.begin(), lists.end(), [&](const auto& l) { return l.first == name; });
        if (it == lists.end()) continue;
        std::string value;
        if (w.size() > name.size()) value = w.substr(name.size() + 1);
        else if (i + 1 < argc) value = argv[i + 1];
        else continue;
        const char d = it->second;
        if (value.empty() || value.find(d) == std::string::npos) continue;  // no list: the option's own checks
        if (value.front() == d || value.back() == d || value.find(std::string(2, d)) != std::string::npos) {
          if (!usage_quiet) {
            std::fprintf(stderr, "sextant: error: %s: the list '%s' has an empty item (separate the items by single '%c', e.g. '%s')\n",
                         name.c_str(), value.c_str(), d, [&] {
                           std::string fixed;
                           size_t start = 0;
                           while (start <= value.size()) {
                             const size_t end = std::min(value.find(d, start), value.size());
                             if (end > start) fixed += (fixed.empty() ? "" : std::string(1, d)) + value.substr(start, end - start);
                             start = end + 1;
                           }
                           return fixed;
                         }().c_str());
          }
          return 2;
        }
      }
    }
  }
  // Under mpirun with several ranks only analyze, plan and sweep divide their work (MpiWorld);
  // any other command ran whole on every rank, printing its result and writing its outputs N
  // times (2026-12-03 review). Rank 0 runs it alone and says so; the others end at once. (An error
  // of a distributed command is printed by every rank that meets it: one rank's own error, say a
  // file only it cannot read, must not be lost.)
  if (mpi_many && named && std::strcmp(named->name, "analyze") != 0 && std::strcmp(named->name, "plan") != 0 &&
      std::strcmp(named->name, "sweep") != 0) {
    if (mpi_rank > 0) return 0;
    std::fprintf(stderr, "sextant: note: '%s' does not divide its work across MPI ranks (analyze, plan and sweep do): rank 0 runs it alone\n",
                 named->name);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own status (history compare: 1 on a regression)
  } catch (const CLI::ParseError& e) {
    // --help and --version (exit code 0) print as CLI11 does. A refused option is an input error
    // like any other (docs/robustness.md): "sextant: error:" and exit status 2, not CLI11's codes.
    if (usage_quiet) return e.get_exit_code() == 0 ? 0 : 2;
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "sextant: error: %s\nRun with --help for more information.\n", e.what());
    return 2;
  } catch (const sextant::Error& e) {
    std::fprintf(stderr, "sextant: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // The machine's or the process's memory (ulimit -v, a cgroup) is exhausted: not a bug, not a
    // refused input (docs/robustness.md, exit status 4).
    std::fprintf(stderr, "sextant: out of memory: lower --threads or the size of the problem, or raise the process's memory limit\n");
    return 4;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the system refuses (a name too long, a loop of symbolic links, no permission): an
    // input error naming the path, not an internal one (2026-12-04 review: exit 3 on a 300-char
    // model name).
    std::fprintf(stderr, "sextant: error: %s: %s\n", e.path1().string().c_str(), e.code().message().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sextant: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
