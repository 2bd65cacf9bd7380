#pragma once
// The nccl-tests output layout: parsing real nccl-tests logs (for import into the results
// database) and the output of sextant-mpi-bench, which prints the same layout.
//
// Accepted: the header line "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time
// algbw busbw #wrong" (older versions: without root, "error" for "#wrong"; reduced "size time
// algbw busbw"), data rows aligned with it, optional mpirun prefixes "[1,0]<stdout>:", NCCL INFO
// lines and anything else (ignored). "#wrong" may be N/A.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/measurement.hpp"

namespace sextant::bench {

struct NcclRow {
  std::string collective;  // all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv, pingpong
  int64_t size_bytes = 0;
  int64_t count = 0;
  std::string type, redop;
  int64_t root = -1;
  double oop_time_us = 0, oop_algbw_gb_per_s = 0, oop_busbw_gb_per_s = 0;
  double ip_time_us = 0, ip_algbw_gb_per_s = 0, ip_busbw_gb_per_s = 0;  // 0 when the layout has no in-place part
  std::string oop_wrong, ip_wrong;  // as printed ("0", "N/A")
  bool has_in_place = false;
  std::vector<double> oop_samples_s, ip_samples_s;  // from #sextant-samples lines (sextant-mpi-bench)
};

struct NcclLog {
  int ranks = 0;             // "#  Rank N" lines; 0 when not listed
  // From the "#  Rank N Group G Pid P on HOST device D [BUS] GPU NAME" lines: the hosts and the
  // GPU models the test ran on, each once, in order of appearance (empty when not listed).
  std::vector<std::string> hosts, gpus;
  std::string version;       // "# nccl-tests version ..." when present
  double avg_busbw_gb_per_s = 0;
  std::vector<NcclRow> rows;
  std::vector<std::string> collectives;  // in order of appearance
  // Rows not stored or not stored as printed, one line each ("line 42: ..."): a result row cut
  // short or run long (a column count other than its header's), a time that is not positive (its
  // printed bandwidth is stored instead). Said by the import, not dropped silently.
  std::vector<std::string> diagnostics;
};

// The collective named by a "Collective test starting: X_perf" line or by a file name containing
// all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv; empty if none.
std::string nccl_collective_from_name(const std::string& text);

// Parses a log. default_collective names rows printed before any "Collective test starting"
// line (from the file name or --collective); rows without a collective throw Error naming the
// line.
NcclLog parse_nccl_log(const std::string& text, const std::string& file, const std::string& default_collective = {});

// The collectives a log may name (nccl-tests' test names without _perf, and pingpong).
const std::vector<std::string>& nccl_collective_names();

// Bus bandwidth factor of nccl-tests for n ranks (doc/PERFORMANCE.md).
double nccl_bus_factor(const std::string& collective, int ranks);

// Renders rows in the nccl-tests layout (one block per collective).
std::string render_nccl_rows(const std::vector<NcclRow>& rows);

// Measurements (suite "comm") of a log: per collective and size, the bus bandwidth of each
// repetition (sextant-mpi-bench samples) or the out-of-place and in-place figures (nccl-tests),
// and ping-pong one-way latency. origin: "mpi" or "nccl-tests"; recorded as a parameter.
std::vector<Measurement> nccl_measurements(const NcclLog& log, const std::string& suite, const std::string& origin);

}  // namespace sextant::bench
