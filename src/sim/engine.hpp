#pragma once
// The discrete-event engine behind sim::simulate: units (ranks or classes of equivalent ranks)
// executing their stage's program, a binary heap of timed events, rendezvous of group members
// at collectives, FIFO communication streams per group, pipeline transfers, and the shared
// network. Internal to the sim module; the public API is simulate.hpp.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/network.hpp"
#include "sim/program.hpp"

namespace sextant::sim {

struct UnitSpec {
  int stage = 0;
  int64_t representative_rank = 0;
  int64_t ranks_count = 1;
  double factor = 1;
  int next = -1, prev = -1;      // pipeline neighbours (next / previous stage of the same replica)
  int group_instance[kGroupKinds] = {-1, -1, -1, -1, -1, -1, -1};  // rendezvous group per kind
  bool record = false;           // timeline spans
  std::string label;
  // Leaf uplink (EngineConfig::leaf_uplinks): units with the same uplink_group >= 0 share one
  // link, each owning uplink_share of its capacity (1 / the units sharing it), so a collective's
  // uplink demand on it is its uplink_fraction * uplink_share per member; -1: a link of its own.
  int uplink_group = -1;
  double uplink_share = 1;
};

struct Span {  // timeline record
  int unit = 0;
  int tid = 0;  // 0 compute, 1 + GroupKind for group streams, 8 pipeline sends
  double t0 = 0, t1 = 0;
  const char* name = "";
  const char* cat = "";
  double flops = 0, bytes = 0;
  int64_t microbatch = -1;
  int chunk = -1;
  uint8_t pass = 0;  // ir::ScheduleItem kind of the unit's current item (0 forward, 1 backward, 2 weight)
  // A collective's: when every member had arrived and the transfer began (t0 is this member's own
  // arrival, so t0..t_all_arrived is its wait for the others); -1 for other spans.
  double t_all_arrived = -1;
};
struct Arrow {
  int src = 0, dst = 0;
  double t_src = 0, t_dst = 0;  // t_dst: when the receiver takes the data (its receive)
  int64_t microbatch = -1;      // of the transfer (its consumer's): the arrow ends on that pass's op
  uint8_t pass = 0;
};

// The critical path ending at a unit's current time, aggregated by (category, item) key:
// accumulated online as the unit's compute stream advances, and replaced by the sender's path
// (plus the transfer) when the unit waited for a pipeline receive. Memory: keys per unit and per
// transfer in flight, independent of the step's length and of how many ops it executes.
struct PathAcc {
  std::vector<double> time_s;   // per key
  std::vector<int32_t> count;   // per key
  std::vector<double> last_s;   // per key: end of its latest occurrence (orders ties as a backward walk meets them)
  double end_s = 0;             // end of the last recorded activity
  bool started = false;
};
struct PathKey {
  std::string category, item;
};

struct UnitOut {
  double end_s = 0;
  double compute_s = 0, optimizer_s = 0, pipeline_wait_s = 0, step_sync_exposed_s = 0;
  double by_class_s[9] = {};
  double exposed_by_group_s[kGroupKinds] = {};
  double comm_by_group_s[kGroupKinds] = {};
  double activation_peak_bytes = 0, peak_time_s = 0;
  // Per StageProgram::comm_rows entry of the unit's program: the time its collectives (sends)
  // took, counted as comm_by_group_s counts it, and the calls. Sums to comm_by_group_s per group.
  struct Comm {
    double time_s = 0;
    int64_t calls = 0;
  };
  std::vector<Comm> comm_rows;
};

struct EngineConfig {
  bool contention = true;
  // Leaf-to-spine uplinks as links of their own (an oversubscribed leaf/spine fabric): collectives
  // and transfers with uplink_fraction > 0 also demand them. False: no uplink links (every
  // existing result unchanged; with oversubscription 1 they are never the bottleneck).
  bool leaf_uplinks = false;
  double interference = 0;  // fractional slow-down of compute while this unit has async comm in flight
  bool record_path = true;
  int64_t microbatches = 1;
  int vpp = 1;
};

struct EngineOutput {
  std::vector<UnitOut> units;
  std::vector<PathKey> path_keys;  // when record_path
  std::vector<PathAcc> paths;      // per unit, when record_path: the critical path ending at its end
  std::vector<Span> spans;
  std::vector<Arrow> arrows;
  int64_t events = 0;
};

// The largest slow-down factor of each unit's data-parallel replica: the units reached from it
// through prev and next (a ring in both unit modes; a chain ending at -1 works too). O(units),
// each replica walked once: before 2026-12-06 simulate walked prev and next "until -1" per tied
// unit, and on the ring ran to a guard of 2^20 steps each way, which took 98% of --all-ranks
// (40 s at 4,096 ranks, review).
std::vector<double> replica_factors(const std::vector<UnitSpec>& units);

// group_members[i]: the units of rendezvous group instance i.
EngineOutput run_engine(const std::vector<StageProgram>& programs, const std::vector<UnitSpec>& units,
                        const std::vector<std::vector<int>>& group_members, const EngineConfig& cfg);

}  // namespace sextant::sim
