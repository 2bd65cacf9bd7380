#pragma once
// Pipeline schedules, one implementation per file in schedules/, chosen by name from a
// ScheduleRegistry. Contract of an implementation:
//  - order(r, p, v, m) lists the work of pipeline rank r in execution order: every
//    (micro-batch, chunk) appears exactly once as Forward and once as Backward (and, for
//    schedules that split the backward pass, once as Weight after its Backward). The
//    simulator executes this order; the send/receive pairs it implies must be consistent
//    across ranks (checked by validate_schedule).
//  - pipeline_time_s() is the closed-form step time of the pipeline for per-micro-batch stage
//    times (used by `estimate`); it must agree with simulating order() when all ranks are
//    uniform and communication is free.
//  - inflight(r, p, v, m) is the largest number of chunk-micro-batches whose activations rank r
//    holds at once under order().
//  - peak_activation_bytes(r, p, v, m, chunk_bytes) is the largest sum of chunk_bytes[c] over the
//    chunk-micro-batches (i, c) that rank r holds at once under order(), a chunk-micro-batch
//    being held from the start of its Forward to the end of its Backward; chunk_bytes[c] is one
//    micro-batch's saved activations of chunk c. Chunks differ when a rank's first or last
//    chunk carries the embedding or the loss head, or stages are uneven. The default,
//    inflight() times the chunks' mean, is exact when v == 1 or every chunk-micro-batch is held
//    at once; a schedule that interleaves chunks overrides it (used by estimate and plan for
//    memory; the simulator walks order() and must agree).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "core/registry.hpp"

namespace sextant::ir {

struct ScheduleItem {
  enum Kind { Forward, Backward, Weight } kind;
  int64_t microbatch;
  int chunk;
};

struct StageTimes {  // per micro-batch, per pipeline rank (all chunks of that rank)
  std::vector<double> forward_s, backward_s, weight_s;  // weight_s: backward-weight part of backward
};

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  virtual std::string name() const = 0;
  virtual bool splits_weight_gradient() const { return false; }
  virtual std::vector<ScheduleItem> order(int r, int p, int v, int64_t m) const = 0;
  virtual double pipeline_time_s(const StageTimes& t, int p, int v, int64_t m) const = 0;
  virtual double inflight(int r, int p, int v, int64_t m) const = 0;
  virtual double peak_activation_bytes(int r, int p, int v, int64_t m, const std::vector<double>& chunk_bytes) const;
};

// The built-in schedules by name (core/registry.hpp: get() throws Error at parallel.schedule
// with the valid names).
class ScheduleRegistry : public InstanceRegistry<PipelineSchedule> {
 public:
  ScheduleRegistry();
};

// The built-in schedules (one file each).
std::unique_ptr<PipelineSchedule> make_gpipe();
std::unique_ptr<PipelineSchedule> make_1f1b();
std::unique_ptr<PipelineSchedule> make_interleaved_1f1b();
std::unique_ptr<PipelineSchedule> make_zb_h1();

// The makespan of a single-chunk schedule's order (v = 1) with compute only: every rank runs its
// order() in sequence, a forward after the previous stage's forward of that micro-batch, an input
// gradient after the next stage's, a weight pass after its own input gradient; per micro-batch
// times of StageTimes (backward_s less weight_s for the input gradient when the schedule splits
// the backward). O(p m) work: a closed form's fallback where its assumptions fail.
double order_makespan_s(const PipelineSchedule& s, const StageTimes& t, int p, int64_t m);

// Checks that the orders of all p ranks form a deadlock-free pipeline (every forward of chunk
// c on rank r after the forward of the previous virtual stage, every backward after the next
// virtual stage's backward). Throws Error naming the ranks and items of a cycle.
void validate_schedule(const PipelineSchedule& s, int p, int v, int64_t m);

}  // namespace sextant::ir
