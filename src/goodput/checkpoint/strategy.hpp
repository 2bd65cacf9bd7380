#pragma once
// Checkpoint strategies, chosen by name (`checkpoint.strategy`). A strategy turns the job's
// checkpoint size and bandwidths (CheckpointEnv) into a CheckpointSchedule: the stall per
// checkpoint, the storage levels each checkpoint reaches (with background persist time, period in
// checkpoints, restore time and the failures each level survives), and whether a checkpoint is
// taken from healthy replicas when a failure happens.
//
// Contract of an implementation (one per file, registered in registry.cpp):
//  - schedule() is a pure function of the env and the options read at construction;
//  - levels are ordered from fastest to most durable; the last level is remote storage and
//    survives any failure (survives_lost_nodes = kAlways);
//  - blocking_s >= 0, as the sizes and times give it (a write_s or snapshot_s of 0 is a free
//    checkpoint: no strategy raises it; before 2026-12-06 each floored it at 1 ms, review);
//  - a factory reads only its own keys from the `checkpoint` map (or takes defaults when null).
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/yaml_reader.hpp"
#include "core/registry.hpp"

namespace sextant::goodput {

inline constexpr int64_t kAlways = int64_t{1} << 40;  // survives any number of lost nodes

// Sizes and bandwidths of one job's checkpoint (computed from the training scenario or given).
struct CheckpointEnv {
  double total_bytes = 0;      // one checkpoint, all shards, written once
  double per_node_bytes = 0;   // what one node writes and reads (its ranks' shards)
  double per_gpu_bytes = 0;    // largest shard of one GPU (device-to-host snapshot)
  int64_t nodes = 1;
  int64_t nodes_per_replica = 1;  // nodes spanned by one model replica (tp*pp*cp / gpus_per_node)
  int64_t state_copies = 1;       // copies of every model+optimizer shard on healthy GPUs (DP redundancy)
  double storage_write_bytes_per_s = 0;  // aggregate, shared by all writers
  double storage_read_bytes_per_s = 0;   // aggregate
  double node_storage_bytes_per_s = 0;   // per node client/front-end NIC limit (0 = none)
  double d2h_bytes_per_s = 0;            // per GPU device-to-host copy
  double peer_bytes_per_s = 0;           // per node, to peers over the back-end network
  double nvme_write_bytes_per_s = 0, nvme_read_bytes_per_s = 0;  // per node local SSD
  double remote_write_s_override = -1, remote_read_s_override = -1;  // explicit times (>= 0 wins)
  double snapshot_s_override = -1;  // explicit device-to-host snapshot time (>= 0 wins)

  // Times derived from the above; every writer shares the aggregate bandwidth.
  double remote_write_s() const;
  double remote_read_s() const;
  double snapshot_s() const;      // device-to-host copy of the largest shard
  double peer_copy_s(int64_t copies) const;
  double peer_read_s() const;
  double nvme_write_s() const;
  double nvme_read_s() const;
};

struct CheckpointLevel {
  std::string name;              // remote | peer-memory | local-nvme
  double persist_s = 0;          // after the blocking part, until the checkpoint is readable here
  int64_t every_count = 1;       // this level receives every k-th checkpoint
  double restore_s = 0;          // load time from this level
  int64_t survives_lost_nodes = kAlways;  // readable after losing up to this many nodes at once (0: lost with any node)
};

struct CheckpointSchedule {
  double blocking_s = 0;  // training stall per checkpoint
  std::vector<CheckpointLevel> levels;
  bool on_failure = false;         // checkpoint-on-failure from healthy replicas
  double on_failure_save_s = 0;    // time to write it (remote)
  int64_t on_failure_survives_lost_nodes = 0;  // healthy replicas hold every shard when at most this many nodes are lost
  double final_save_s() const;     // a graceful or final checkpoint: blocking + remote persist
  // The shortest checkpoint interval: one training step (a checkpoint falls between steps; 1 ms
  // where the job gives no step time), and no shorter than a level needs to persist (every_count
  // cycles of interval + blocking hold its persist and the stall: min_cycle - blocking_s). The
  // closed forms' optima, the interval rules and the sweep floor at it: with a free checkpoint
  // (blocking 0) Young's sqrt(2 delta M) is 0.
  double min_interval_s(double step_time_s) const;
  const CheckpointLevel& remote() const { return levels.back(); }
};

class CheckpointStrategy {
 public:
  virtual ~CheckpointStrategy() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual CheckpointSchedule schedule(const CheckpointEnv& env) const = 0;
};

// Strategies by name, built from their `checkpoint:` options (null: defaults);
// create(name, where, options) throws Error at `where` naming the valid strategies.
using CheckpointRegistry = FactoryRegistry<CheckpointStrategy, const YamlMap*>;

CheckpointRegistry make_checkpoint_registry();

// The keys of `checkpoint:` each strategy reads as its own options, by strategy name in the
// registry's order (an empty list: none). A key of another strategy is named as that strategy's
// rather than as an unknown key near a common one (`copies` had read "did you mean
// 'state_copies'?" under async-remote; 2026-12-07 review). Kept beside the factories that read them.
const std::vector<std::pair<std::string, std::vector<std::string>>>& checkpoint_strategy_options();

// Bundled strategies (one file each).
std::unique_ptr<CheckpointStrategy> make_sync_remote(const YamlMap* options);
std::unique_ptr<CheckpointStrategy> make_async_remote(const YamlMap* options);
std::unique_ptr<CheckpointStrategy> make_in_memory(const YamlMap* options);
std::unique_ptr<CheckpointStrategy> make_multi_level(const YamlMap* options);
std::unique_ptr<CheckpointStrategy> make_on_failure(const YamlMap* options);

}  // namespace sextant::goodput
