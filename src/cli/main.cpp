// sextant: performance toolkit for machine-learning systems. Command-line front end.
#include <csignal>
#include <cstdio>
#include <exception>

#include "bench/suite.hpp"
#include "cli/cli.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  sextant::bench::release_blas_worker_threads();  // see bench/suite.hpp: most commands never call BLAS
  CLI::App app{
      "Sextant: analyze ML profiler traces, estimate and simulate training steps, plan parallelism,\n"
      "model goodput and inference, benchmark and calibrate. Each command has --help."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sextant 0.1.0"));

  using namespace sextant::cli;
  add_catalog_command(app);
  add_goodput_command(app);
  add_bench_command(app);
  add_history_command(app);
  add_calibrate_command(app);
  add_analyze_command(app);
  add_trace_command(app);
  add_infer_command(app);
  add_report_command(app);
  add_estimate_command(app);
  add_simulate_command(app);
  add_validate_command(app);
  add_plan_command(app);
  add_sweep_command(app);

  // An interrupted run (Ctrl-C, kill) removes its temporary outputs; previous outputs stay intact.
  sextant::install_temp_cleanup_on_signals();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const sextant::Error& e) {
    std::fprintf(stderr, "sextant: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sextant: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
