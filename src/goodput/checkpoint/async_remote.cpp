// Asynchronous checkpoint: a short blocking device-to-host snapshot, then a background persist to
// remote storage (DCP async_save, Nebula, CheckFreq). A failure before the persist ends loses that
// checkpoint; the next one waits for the previous persist (the engine stretches the cycle).
#include "goodput/checkpoint/strategy.hpp"

namespace sextant::goodput {

namespace {
class AsyncRemote final : public CheckpointStrategy {
 public:
  std::string name() const override { return "async-remote"; }
  std::string description() const override {
    return "device-to-host snapshot stalls training; background persist to remote storage";
  }
  CheckpointSchedule schedule(const CheckpointEnv& env) const override {
    CheckpointSchedule s;
    s.blocking_s = env.snapshot_s();
    s.levels.push_back({"remote", env.remote_write_s(), 1, env.remote_read_s(), kAlways});
    return s;
  }
};
}  // namespace

std::unique_ptr<CheckpointStrategy> make_async_remote(const YamlMap*) { return std::make_unique<AsyncRemote>(); }

}  // namespace sextant::goodput
