// Synchronous checkpoint to remote storage: training stops while every rank writes its shard;
// the checkpoint is durable when the write ends (torch.save / DCP save, Megatron dist-ckpt sync).
#include <algorithm>

#include "goodput/checkpoint/strategy.hpp"

namespace sextant::goodput {

namespace {
class SyncRemote final : public CheckpointStrategy {
 public:
  std::string name() const override { return "sync-remote"; }
  std::string description() const override { return "synchronous write to remote storage; stall = full write"; }
  CheckpointSchedule schedule(const CheckpointEnv& env) const override {
    CheckpointSchedule s;
    // Floored at 1 ms as the other strategies' stalls (strategy.hpp: blocking_s > 0): a write_s of
    // 0 gave a Young interval of 6.6 ms before 2026-12-03.
    s.blocking_s = std::max(env.remote_write_s(), 1e-3);
    s.levels.push_back({"remote", 0.0, 1, env.remote_read_s(), kAlways});
    return s;
  }
};
}  // namespace

std::unique_ptr<CheckpointStrategy> make_sync_remote(const YamlMap*) { return std::make_unique<SyncRemote>(); }

}  // namespace sextant::goodput
