// Checkpoint-on-failure (just-in-time checkpointing, Gupta et al. EuroSys'24): on a failure the
// healthy data-parallel replicas write the current state, so only the interrupted step is redone.
// It needs every shard on some healthy GPU (state_copies >= 2, i.e. no ZeRO sharding across the
// replicas that failed); otherwise the job falls back to its periodic checkpoints (asynchronous to
// remote storage, at the configured interval).
#include "goodput/checkpoint/strategy.hpp"

#include <algorithm>

namespace sextant::goodput {

namespace {
class OnFailure final : public CheckpointStrategy {
 public:
  std::string name() const override { return "on-failure"; }
  std::string description() const override {
    return "healthy replicas save the current state at a failure; periodic async remote as fallback";
  }
  CheckpointSchedule schedule(const CheckpointEnv& env) const override {
    CheckpointSchedule s;
    s.blocking_s = env.snapshot_s();
    s.levels.push_back({"remote", env.remote_write_s(), 1, env.remote_read_s(), kAlways});
    s.on_failure = env.state_copies >= 2;
    s.on_failure_save_s = env.remote_write_s();
    s.on_failure_survives_lost_nodes = env.state_copies >= 2 ? std::max<int64_t>(1, env.nodes_per_replica) : 0;
    return s;
  }
};
}  // namespace

std::unique_ptr<CheckpointStrategy> make_on_failure(const YamlMap*) { return std::make_unique<OnFailure>(); }

}  // namespace sextant::goodput
