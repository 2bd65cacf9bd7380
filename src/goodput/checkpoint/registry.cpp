#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "goodput/checkpoint/strategy.hpp"

namespace sextant::goodput {

namespace {
double div_or_inf(double bytes, double bw) { return bytes <= 0 ? 0.0 : (bw > 0 ? bytes / bw : INFINITY); }
}  // namespace

double CheckpointEnv::remote_write_s() const {
  if (remote_write_s_override >= 0) return remote_write_s_override;
  double t = div_or_inf(total_bytes, storage_write_bytes_per_s);
  if (node_storage_bytes_per_s > 0) t = std::max(t, per_node_bytes / node_storage_bytes_per_s);
  return t;
}
double CheckpointEnv::remote_read_s() const {
  if (remote_read_s_override >= 0) return remote_read_s_override;
  double t = div_or_inf(total_bytes, storage_read_bytes_per_s);
  if (node_storage_bytes_per_s > 0) t = std::max(t, per_node_bytes / node_storage_bytes_per_s);
  return t;
}
double CheckpointEnv::snapshot_s() const {
  return snapshot_s_override >= 0 ? snapshot_s_override : div_or_inf(per_gpu_bytes, d2h_bytes_per_s);
}
double CheckpointEnv::peer_copy_s(int64_t copies) const { return div_or_inf(per_node_bytes * double(copies), peer_bytes_per_s); }
double CheckpointEnv::peer_read_s() const { return div_or_inf(per_node_bytes, peer_bytes_per_s); }
double CheckpointEnv::nvme_write_s() const { return div_or_inf(per_node_bytes, nvme_write_bytes_per_s); }
double CheckpointEnv::nvme_read_s() const { return div_or_inf(per_node_bytes, nvme_read_bytes_per_s); }

double CheckpointSchedule::final_save_s() const { return blocking_s + remote().persist_s; }

double CheckpointSchedule::min_interval_s(double step_time_s) const {
  double min_cycle = 0;
  for (const auto& l : levels) min_cycle = std::max(min_cycle, (l.persist_s + blocking_s) / double(l.every_count));
  return std::max(min_cycle - blocking_s, step_time_s > 0 ? step_time_s : 1e-3);
}


CheckpointRegistry make_checkpoint_registry() {
  CheckpointRegistry r("checkpoint strategy");
  r.add("sync-remote", make_sync_remote);
  r.add("async-remote", make_async_remote);
  r.add("in-memory", make_in_memory);
  r.add("multi-level", make_multi_level);
  r.add("on-failure", make_on_failure);
  return r;
}

const std::vector<std::pair<std::string, std::vector<std::string>>>& checkpoint_strategy_options() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kOptions = {
      {"sync-remote", {}},
      {"async-remote", {}},
      {"in-memory", {"copies", "placement", "remote_every"}},
      {"multi-level", {"fast_level", "remote_every"}},
      {"on-failure", {}},
  };
  return kOptions;
}

}  // namespace sextant::goodput
