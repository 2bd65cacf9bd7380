#include "infer/serving.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <queue>

#include "core/error.hpp"
#include "core/random.hpp"
#include "infer/deployment.hpp"
#include "infer/stats.hpp"

namespace sextant::infer {
namespace {
double kv_capacity_tokens_by_memory(const ServingSpec& spec, const Deployment& d);  // below

// Log-spaced histogram (0.1% bins from 1 us) for inter-token latencies: exact counts,
// percentiles within 0.1%, O(1) memory in the number of tokens.
class LogHistogram {
 public:
  void add(double v, double count = 1) {
    if (!(v > kMin)) { zeros_ += count; total_ += count; return; }
    // Most sequences of a pass see the same gap: reuse the last bin.
    size_t b = last_bin_;
    if (v != last_v_) {
      b = static_cast<size_t>(std::log(v / kMin) / kLogStep);
      last_v_ = v;
      last_bin_ = b;
    }
    if (b >= bins_.size()) bins_.resize(b + 1, 0.0);
    bins_[b] += count;
    total_ += count;
  }
  double percentile(double q) const {
    if (total_ <= 0) return std::nan("");
    const double target = q * total_;
    double cum = zeros_;
    if (cum >= target && zeros_ > 0) return 0;
    for (size_t b = 0; b < bins_.size(); ++b) {
      cum += bins_[b];
      if (cum >= target && bins_[b] > 0) return kMin * std::exp((b + 0.5) * kLogStep);
    }
    return kMin * std::exp((bins_.size() - 0.5) * kLogStep);
  }
  double total() const { return total_; }

 private:
  static constexpr double kMin = 1e-6;
  static constexpr double kLogStep = 0.000999500333;  // ln(1.001)
  std::vector<double> bins_;
  double zeros_ = 0, total_ = 0, last_v_ = -1;
  size_t last_bin_ = 0;
};

enum class Role { Colocated, Prefill, Decode };

struct Seq {
  int32_t prompt = 0, output = 0, prefix_group = -1, prefix_tokens = 0;
  int32_t generated = 0;
  int32_t kv_tokens = 0;      // tokens with KV present (incl. a shared prefix)
  int32_t shared_prefix = 0;  // tokens covered by a shared cached prefix
  int32_t blocks = 0;         // private blocks
  int32_t preemptions = 0;
  int32_t instance = -1;
  // Disaggregated serving: the decode instance that has reserved room for the KV in flight, and
  // those blocks (the prefill instance keeps its own until the transfer has read them).
  int32_t handoff_to = -1, incoming_blocks = 0;
  bool prefix_hit = false;
  // Preempted after its first token: the next prefill recomputes prompt + generated tokens and
  // samples the next token (vLLM's recompute preemption); cleared when that pass completes.
  bool recomputing = false;
  bool prefix_looked_up = false;  // counted in the request-level hit rate (first admission only)
  bool rejected = false;      // longer than one instance's KV cache: refused at arrival
  double arrival = 0, first_token = -1, last_token = 0, finish = -1;
};

struct PrefixEntry {
  int32_t blocks = 0, tokens = 0, refs = 0;
  double last_use = 0;
};

class Simulation;

// The paged KV cache of one scheduler slot, its cached prefixes included. A replica of pp > 1
// stages runs `slots` passes at once, one per slot (vLLM's virtual engines), and splits its blocks
// evenly between them, as vLLM V0 does (num_gpu_blocks //= pipeline_parallel_size, one block
// manager and prefix cache per virtual engine). The slots had shared one pool (2026-12-03), each
// preempting only its own sequences: a slot short of a block preempted its own sequence while the
// other slot's held the blocks, re-admitted it, and preempted it again, for ever (two 900-token
// requests in a 2,000-token cache never finished; a 70B chunked-prefill run at pp 2 preempted
// 52,000 times and served 5.5x fewer requests than at pipeline_batches 1; 2026-12-04 review).
struct BlockPool {
  int64_t total = 0, free = 0;
  std::map<int32_t, PrefixEntry> prefixes;  // prefix group -> its cached blocks
  int64_t used() const { return total - free; }
};

// What a pool's unit holds: KvUnits (serving.hpp).

// The pipeline stages of one replica with pp > 1: the time each stage (and the host, which
// schedules, launches and samples one pass at a time) is next free. Passes enter in start order
// and keep it through the stages (a flow shop), so a pass's completion time is known when it starts.
struct Pipeline {
  double host_free = 0;
  std::vector<double> stage_free;
};

class Instance final : public SchedulerContext {
 public:
  Instance(Simulation& sim, int index, Role role, const CostModel& cm, const CostModel* draft, BlockPool& pool,
           Pipeline* pipe, int block_tokens, KvUnits kv_units, const BatchLimits& lim, bool prefix_caching,
           std::unique_ptr<BatchingPolicy> policy)
      : sim_(sim), index_(index), role_(role), cm_(cm), draft_(draft), pipe_(pipe), total_blocks_(pool.total), free_blocks_(pool.free),
        block_(block_tokens), units_(kv_units), limits_(lim), prefix_caching_(prefix_caching), policy_(std::move(policy)), prefixes_(pool.prefixes) {}

  // SchedulerContext
  const BatchLimits& limits() const override { return limits_; }
  const std::deque<int32_t>& waiting() const override { return waiting_; }
  const std::vector<int32_t>& running() const override { return running_; }
  int32_t prefill_remaining(int32_t s) const override;
  int32_t context_tokens(int32_t s) const override;
  int32_t decode_tokens() const override;
  int32_t final_tokens(int32_t s) const override;
  bool admit_front(int32_t tokens, int32_t pass_tokens = -1) override;
  bool reserve(int32_t s, int32_t tokens) override;
  int32_t preempt_newest() override;

  int index() const { return index_; }
  Role role() const { return role_; }
  bool busy() const { return busy_; }
  double busy_until() const { return busy_until_; }
  size_t load() const { return waiting_.size() + running_.size() + kv_arrivals_.size() + incoming_; }
  // Every call that can change the instance's queues or its pool's blocks logs the instance once:
  // the simulation's totals (blocks used, sequences running and waiting) are updated from the
  // logged instances only. Summed over every instance at every event, they had made the run
  // quadratic in the replicas (1,024 replicas: 12 s, 4,096: minutes; 2026-12-06 review).
  void set_touch_log(std::vector<int>* log) { touch_log_ = log; }
  void touch() {
    if (!touched_ && touch_log_) {
      touched_ = true;
      touch_log_->push_back(index_);
    }
  }
  void clear_touch() { touched_ = false; }
  void enqueue(int32_t s) {
    touch();
    waiting_.push_back(s);
  }
  void enqueue_with_kv(int32_t s) {
    touch();
    kv_arrivals_.push_back(s);
    incoming_ -= incoming_ > 0 ? 1 : 0;
  }
  // Reserves this decode instance's blocks for a sequence's KV (its prompt and the next token)
  // before the transfer starts, as a disaggregated engine's decode side accepts KV only into room
  // it has (DistServe, Splitwise, vLLM's KV connectors); false when the cache cannot hold it.
  bool reserve_arrival(Seq& q);
  bool has_work() const { return !waiting_.empty() || !running_.empty() || !kv_arrivals_.empty(); }
  // Starts a pass at time now when there is work; returns false when nothing could be scheduled.
  bool start(double now);
  void complete(double now);
  // The KV blocks of a sequence sent to a decode instance, freed once the transfer has read them.
  void release_sent(int32_t s) {
    touch();
    release(seq(s));
  }
  double dynamic_energy_j = 0;  // above idle power
  int64_t iterations = 0, batch_seq_sum = 0;

 private:
  Seq& seq(int32_t s);
  const Seq& seq(int32_t s) const;
  int32_t room_blocks_for(const Seq& q, int32_t tokens, int32_t new_tokens) const {
    return static_cast<int32_t>(units_.units(tokens, q.shared_prefix, new_tokens, block_));
  }
  bool allocate(Seq& q, int32_t target_tokens);
  void release(Seq& q);
  bool evict_prefixes(int64_t needed);
  const PrefixEntry* ready_prefix(const Seq& q) const;
  // Tokens of q's prompt the cached prefix p serves: the entry's, at most the request's own shared
  // prefix in whole blocks (a row sharing 16 tokens of a 4,000-token entry had been served 3,999),
  // and at most prompt - 1 (the last prompt token's pass produces the first output).
  int32_t cached_tokens(const Seq& q, const PrefixEntry* p) const {
    return p ? std::max(0, std::min({p->tokens, q.prefix_tokens / block_ * block_, q.prompt - 1})) : 0;
  }
  void register_prefix(Seq& q, double now);

  Simulation& sim_;
  int index_;
  Role role_;
  const CostModel& cm_;
  const CostModel* draft_;
  Pipeline* pipe_;  // null when pp = 1
  const int64_t total_blocks_;
  int64_t& free_blocks_;  // of the replica's pool
  std::vector<double> stage_s_;
  int block_;
  KvUnits units_;
  BatchLimits limits_;
  bool prefix_caching_;
  std::unique_ptr<BatchingPolicy> policy_;
  std::deque<int32_t> waiting_, kv_arrivals_;
  size_t incoming_ = 0;  // sequences whose KV is on its way here (reserved)
  std::vector<int>* touch_log_ = nullptr;
  bool touched_ = false;
  std::vector<int32_t> running_;
  std::map<int32_t, PrefixEntry>& prefixes_;  // of the replica's pool
  std::vector<WorkItem> work_;
  bool busy_ = false;
  double busy_until_ = 0, pass_start_ = 0;
  IterationCost pass_cost_;
};

class Simulation {
 public:
  Simulation(const ServingSpec& spec, const std::vector<Request>& reqs) : spec_(spec), reqs_(reqs) {}
  Result run(ServingSummary* summary);

  std::vector<Seq> seqs;
  const ServingSpec& spec_;
  LogHistogram itl;
  int64_t preemptions = 0, prefix_lookups = 0, prefix_hits = 0;
  int64_t rejected = 0, longest_rejected = 0;  // requests refused at arrival (longer than the KV cache)
  int64_t rejected_window = 0;                 // of which beyond the model's context window
  int64_t rejected_pass = 0;                   // of which only the policy's largest pass (a recompute) is too big
  int64_t shortest_rejected_pass = 0;          // the shortest of those (its last token's context), 0: none
  // Admitted prompts longer than max_batch_tokens, which a policy that never splits a prompt
  // prefills whole in one pass (vLLM refuses max_num_batched_tokens < max_model_len without
  // chunked prefill); said in a note, with the longest.
  int64_t over_budget = 0, longest_over_budget = 0;
  RandomStream rng{1, 7};
  double now = 0;

  void emitted(Seq& q, int tokens, double t);  // records tokens produced at time t
  void finished_prefill(Instance& from, int32_t s, double t);
  void finished(int32_t s, double t);
  // Starts the transfers of finished prefills, in order, while a decode instance has room for
  // them; returns the instances touched.
  void start_handoffs(double t, std::vector<int>& touched);

 private:
  const std::vector<Request>& reqs_;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::vector<BlockPool> pools_;      // one per scheduler slot: slots_ per replica, replica-major
  std::vector<Pipeline> pipes_;       // one per replica when pp > 1
  std::vector<std::unique_ptr<CostModel>> models_;
  std::priority_queue<std::pair<double, int32_t>, std::vector<std::pair<double, int32_t>>, std::greater<>> transfers_;
  std::vector<double> link_free_;  // per replica: when its KV link is free (disaggregated prefill)
  std::deque<int32_t> handoffs_;   // finished prefills waiting for room on a decode instance
  int slots_ = 1;                  // scheduler slots (instances) per replica
  int replicas_ = 0;               // model replicas (colocated) or pool instances (disaggregated)
  int64_t completed_ = 0;
  Instance& least_loaded(Role r);
};

// Why a policy's largest pass can need more of a windowed cache than the last token does: the
// note on such refusals and the error when every request is one say it alike. The pass is the
// prompt's own as well as a preempted request's recompute: before 2026-12-06 only the recompute was
// named, and a refusal for the prompt's pass was called a cache too small (review).
static std::string largest_pass_text(const std::string& policy, int64_t max_batch_tokens) {
  const std::string lead = "with a sliding window a pass holds the window plus every token it writes: ";
  if (policy == "chunked-prefill")
    return lead + "a chunk of max_batch_tokens (" + std::to_string(max_batch_tokens) +
           ") of the prompt, or of a preempted request's re-prefill of prompt + output - 1 tokens, written at nearly the whole context";
  return lead + "the " + policy + " policy prefills a prompt whole in one pass" +
         (policy == "static" ? std::string() : ", and re-prefills a preempted request's prompt + output - 1 tokens in one pass") +
         "; chunked-prefill bounds the pass by max_batch_tokens";
}

// Who holds a request's KV cache, for the messages: an instance, or one of its pipeline batches.
static std::string holder_text(int slots) {
  return slots > 1 ? "one of an instance's " + std::to_string(slots) + " pipeline batches holds (each has 1/" + std::to_string(slots) +
                         " of its KV cache)"
                   : std::string("one instance holds");
}

// ------------------------------------------------------------------ Instance
Seq& Instance::seq(int32_t s) { return sim_.seqs[static_cast<size_t>(s)]; }
const Seq& Instance::seq(int32_t s) const { return sim_.seqs[static_cast<size_t>(s)]; }

const PrefixEntry* Instance::ready_prefix(const Seq& q) const {
  if (!prefix_caching_ || q.prefix_group < 0 || q.kv_tokens > 0) return nullptr;
  auto it = prefixes_.find(q.prefix_group);
  return it == prefixes_.end() ? nullptr : &it->second;
}

int32_t Instance::context_tokens(int32_t s) const {
  const Seq& q = seq(s);
  return q.prompt + q.generated;
}

// A decoding sequence holds KV for prompt + generated - 1 tokens (the newest token's KV is
// written by the pass that consumes it). The first prefill brings the cache to the prompt; a
// recomputation after preemption, as vLLM's, prefills every token the sequence has (prompt +
// generated, the newest included) and samples the next token from that pass. Before 2026-12-07 it
// covered prompt + generated - 1 tokens, emitted nothing and needed a decode pass of its own, and
// reserving a token less it was readmitted a block sooner and preempted again (two 100 + 1,000-token
// requests in a 1,200-token cache: 17 preemptions where vLLM's rule gives 1; review).
static int32_t prefill_target(const Seq& q) {
  return q.prompt + (q.recomputing ? q.generated : std::max(0, q.generated - 1));
}

int32_t Instance::prefill_remaining(int32_t s) const {
  const Seq& q = seq(s);
  int32_t cached = q.kv_tokens;
  if (const PrefixEntry* p = ready_prefix(q)) cached = cached_tokens(q, p);
  return std::max(0, prefill_target(q) - cached);
}

int32_t Instance::decode_tokens() const { return draft_ ? 1 + sim_.spec_.speculative.draft_tokens : 1; }

int32_t Instance::final_tokens(int32_t s) const {
  const Seq& q = seq(s);
  return q.prompt + q.output;
}

bool Instance::evict_prefixes(int64_t needed) {
  touch();
  while (free_blocks_ < needed) {
    // Least recently used unreferenced prefix; ties by group id (map order).
    auto victim = prefixes_.end();
    for (auto it = prefixes_.begin(); it != prefixes_.end(); ++it)
      if (it->second.refs == 0 && (victim == prefixes_.end() || it->second.last_use < victim->second.last_use)) victim = it;
    if (victim == prefixes_.end()) return false;
    free_blocks_ += victim->second.blocks;
    prefixes_.erase(victim);
  }
  return true;
}

bool Instance::allocate(Seq& q, int32_t target_tokens) {
  touch();
  const int32_t need = room_blocks_for(q, target_tokens, target_tokens - q.kv_tokens) - q.blocks;
  if (need < 0 && units_.window_units > 0) {  // the window has passed some blocks: freed
    free_blocks_ -= need;
    q.blocks += need;
  }
  if (need <= 0) return true;
  if (free_blocks_ < need && !evict_prefixes(need)) return false;
  free_blocks_ -= need;
  q.blocks += need;
  return true;
}

void Instance::release(Seq& q) {
  touch();
  free_blocks_ += q.blocks;
  q.blocks = 0;
  if (q.shared_prefix > 0) {
    auto it = prefixes_.find(q.prefix_group);
    if (it != prefixes_.end()) it->second.refs = std::max(0, it->second.refs - 1);
  }
  q.shared_prefix = 0;
}

bool Instance::reserve_arrival(Seq& q) {
  touch();
  // Sequences this instance preempted wait for room first (vLLM puts them at the head of its
  // queue): new KV is taken in only when none waits, else the decode pool's backlog would move
  // into its own recompute queue and the prefill pool would never fill.
  if (!waiting_.empty()) return false;
  // KV is taken in only for a sequence the instance can run next: while its running and arrived
  // sequences (and those on their way) fill max_batch_seqs, the next waits on its prefill instance.
  // Reservations beyond it had taken every block, so that a running sequence could not grow, was
  // preempted, and waited for ever behind arrivals that could not start (max_batch_seqs 1 under a
  // burst: "459 finished prefills wait"; with chunked prefill a run that never ended; review of
  // 2026-12-05). vLLM's disaggregated decode side likewise allocates a remote request's blocks when
  // its scheduler takes the request, within max_num_seqs.
  if (running_.size() + kv_arrivals_.size() + incoming_ >= static_cast<size_t>(limits_.max_batch_seqs)) return false;
  Seq trial = q;
  trial.shared_prefix = 0;
  const int32_t need = room_blocks_for(trial, q.kv_tokens + 1, 1);
  if (free_blocks_ < need && !evict_prefixes(need)) return false;
  free_blocks_ -= need;
  q.incoming_blocks = need;
  q.handoff_to = index_;
  ++incoming_;
  return true;
}

bool Instance::admit_front(int32_t tokens, int32_t pass_tokens) {
  touch();
  if (waiting_.empty()) return false;
  const int32_t s = waiting_.front();
  Seq& q = seq(s);
  const PrefixEntry* p = ready_prefix(q);
  const int32_t base = cached_tokens(q, p);
  if (base == 0) p = nullptr;
  Seq trial = q;
  trial.shared_prefix = base;
  // A reservation beyond the next pass (static batching) holds, in windowed layers, the window
  // and the larger of that pass and one decode token (it had held every token: 47,268 blocks
  // where the request's peak is 39,546, and a request the arrival check admitted never ran).
  const int32_t need = pass_tokens >= 0 && pass_tokens < tokens
                           ? std::max(room_blocks_for(trial, base + pass_tokens, pass_tokens), room_blocks_for(trial, base + tokens, 1))
                           : room_blocks_for(trial, base + tokens, tokens);
  if (free_blocks_ < need) {
    // The prefix this request reuses is pinned while others are evicted: it had been evicted to
    // make room for the very request counted as its hit, which then held a 1,100-token context
    // in 8 blocks (2026-12-03 review).
    PrefixEntry* pinned = p ? &prefixes_.at(q.prefix_group) : nullptr;
    if (pinned) ++pinned->refs;
    const bool room = evict_prefixes(need);
    if (pinned) --pinned->refs;
    if (!room) return false;
  }
  // Commit.
  // Once per request: a re-admission after a preempted partial prefill had been counted again
  // (292 lookups for 200 requests, 2026-12-04 review). Only a request that carries a shared prefix
  // the cache can hold, one KV block or more (register_prefix caches whole blocks): a trace row of
  // prefix_tokens 0 had been counted as a miss (5 hits of 7 prefixed requests read 0.625;
  // 2026-12-06 review).
  if (prefix_caching_ && q.prefix_group >= 0 && q.prefix_tokens >= block_ && q.generated == 0 && !q.prefix_looked_up) {
    q.prefix_looked_up = true;
    ++sim_.prefix_lookups;
    if (p) ++sim_.prefix_hits, q.prefix_hit = true;
  }
  if (p) {
    PrefixEntry& e = prefixes_[q.prefix_group];
    ++e.refs;
    e.last_use = sim_.now;
    q.shared_prefix = base;
    q.kv_tokens = base;
  }
  free_blocks_ -= need;
  q.blocks = need;
  waiting_.pop_front();
  running_.push_back(s);
  return true;
}

bool Instance::reserve(int32_t s, int32_t tokens) { return allocate(seq(s), seq(s).kv_tokens + tokens); }

int32_t Instance::preempt_newest() {
  touch();
  if (running_.empty()) return -1;
  const int32_t s = running_.back();
  running_.pop_back();
  Seq& q = seq(s);
  release(q);
  q.kv_tokens = 0;
  if (q.generated > 0) q.recomputing = true;
  ++q.preemptions;
  ++sim_.preemptions;
  waiting_.push_front(s);
  return s;
}

void Instance::register_prefix(Seq& q, double now) {
  touch();
  if (!prefix_caching_ || q.prefix_group < 0 || q.shared_prefix > 0 || q.prefix_tokens < block_) return;
  if (prefixes_.count(q.prefix_group)) return;
  // The prefix's blocks of the full layers move to the cache (windowed layers keep their own; with
  // every layer windowed nothing is cached).
  if (units_.full_units == 0) return;
  const int32_t held = units_.window_units > 0 ? (q.kv_tokens + block_ - 1) / block_ : q.blocks;
  PrefixEntry e;
  const int32_t prefix_blocks = std::min(q.prefix_tokens / block_, held);
  e.blocks = prefix_blocks * units_.full_units;
  e.tokens = prefix_blocks * block_;
  e.refs = 1;
  e.last_use = now;
  q.blocks -= e.blocks;  // those blocks now belong to the cache
  q.shared_prefix = e.tokens;
  prefixes_[q.prefix_group] = e;
}

bool Instance::start(double now) {
  touch();
  work_.clear();
  // Sequences whose KV arrived from a prefill instance join without recomputation.
  while (!kv_arrivals_.empty() && static_cast<int>(running_.size()) < limits_.max_batch_seqs) {
    Seq& q = seq(kv_arrivals_.front());
    if (!allocate(q, q.kv_tokens + 1)) break;
    running_.push_back(kv_arrivals_.front());
    kv_arrivals_.pop_front();
  }
  policy_->schedule(*this, work_);
  if (work_.empty()) return false;
  Batch b;
  double spec_ctx = 0;
  for (const auto& w : work_) {
    const Seq& q = seq(w.seq);
    if (w.prefill) {
      cm_.add_prefill_chunk(b, q.kv_tokens, w.new_tokens, q.kv_tokens + w.new_tokens >= prefill_target(q));
    } else {
      b.decode_seqs += 1;
      b.decode_tokens += w.new_tokens;
      const double ctx = cm_.attended(q.kv_tokens + 1);
      b.decode_context_tokens += w.new_tokens * ctx;
      b.decode_kv_read_tokens += ctx;
      b.logits_tokens += w.new_tokens;
      spec_ctx += ctx;
    }
  }
  pass_cost_ = cm_.iteration(b, pipe_ ? &stage_s_ : nullptr);
  double draft_s = 0;
  IterationCost draft_cost;  // compute and memory of the draft's passes (for energy)
  if (draft_ && b.decode_seqs > 0) {
    Batch db;
    db.decode_seqs = b.decode_seqs;
    db.decode_tokens = static_cast<double>(b.decode_seqs);
    db.decode_context_tokens = spec_ctx;
    db.decode_kv_read_tokens = spec_ctx;
    db.logits_tokens = b.decode_seqs;
    const IterationCost one = draft_->iteration(db);
    const double k = sim_.spec_.speculative.draft_tokens;
    draft_s = k * one.total_s;
    draft_cost.compute_s += k * one.compute_s;
    draft_cost.memory_s += k * one.memory_s;
  }
  if (draft_ && b.prefill_seqs > 0) {
    // The draft builds its own KV cache of the prompt: one prefill pass of its own (it was free,
    // and TTFT did not move with a draft model).
    const IterationCost pre = draft_->iteration(draft_prefill_batch(b));
    draft_s += pre.total_s;
    draft_cost.compute_s += pre.compute_s;
    draft_cost.memory_s += pre.memory_s;
  }
  double dt = pass_cost_.total_s + draft_s;
  if (pipe_) {
    // Host work (and draft passes) first, then every stage in turn, each when it is free.
    double t = std::max(now, pipe_->host_free) + pass_cost_.overhead_s + draft_s;
    pipe_->host_free = t;
    for (size_t k = 0; k < stage_s_.size(); ++k) {
      t = std::max(t, pipe_->stage_free[k]) + stage_s_[k];
      pipe_->stage_free[k] = t;
    }
    dt = t - now;
  }
  busy_ = true;
  pass_start_ = now;
  busy_until_ = now + dt;
  ++iterations;
  batch_seq_sum += static_cast<int64_t>(work_.size());
  const auto& sp = sim_.spec_;
  if (sp.busy_power_w > 0) {
    // Each stage's tp devices draw (busy - idle) x utilisation above idle while the stage works;
    // compute and memory are sums over stages.
    const double active = std::max(pass_cost_.compute_s, pass_cost_.memory_s) + std::max(draft_cost.compute_s, draft_cost.memory_s);
    dynamic_energy_j += cm_.deployment().par.tp * (sp.busy_power_w - sp.idle_power_w) * std::min(active, pass_cost_.total_s + draft_s);
  }
  return true;
}

void Instance::complete(double now) {
  touch();
  busy_ = false;
  const int k = sim_.spec_.speculative.draft_tokens;
  const double acc = sim_.spec_.speculative.acceptance;
  std::vector<int32_t> done, departed;
  for (const auto& w : work_) {
    Seq& q = seq(w.seq);
    if (w.prefill) {
      q.kv_tokens += w.new_tokens;
      const int32_t target = prefill_target(q);
      if (q.kv_tokens >= target) {
        q.kv_tokens = target;
        register_prefix(q, now);
        // The first prefill emits the first token; a recomputation the next one (its pass samples
        // it as any prefill does; it had emitted nothing before 2026-12-07, review). A request whose
        // last token comes from the recompute finishes here.
        q.recomputing = false;
        sim_.emitted(q, 1, now);
        if (q.generated >= q.output) done.push_back(w.seq);
        else if (role_ == Role::Prefill) departed.push_back(w.seq);
      }
    } else {
      int a = 1;
      if (draft_) {
        int acc_n = 0;
        while (acc_n < k && sim_.rng.bernoulli(acc)) ++acc_n;
        a = 1 + acc_n;
      }
      a = std::min(a, q.output - q.generated);
      q.kv_tokens += a;
      sim_.emitted(q, a, now);
      if (q.generated >= q.output) done.push_back(w.seq);
    }
  }
  auto remove = [&](int32_t s) {
    auto it = std::find(running_.begin(), running_.end(), s);
    if (it != running_.end()) running_.erase(it);
    release(seq(s));
  };
  for (int32_t s : done) {
    remove(s);
    sim_.finished(s, now);
  }
  for (int32_t s : departed) {
    // Out of the batch; its blocks stay held until the transfer has read them (release_sent).
    auto it = std::find(running_.begin(), running_.end(), s);
    if (it != running_.end()) running_.erase(it);
    sim_.finished_prefill(*this, s, now);
  }
}

// ------------------------------------------------------------------ Simulation
void Simulation::emitted(Seq& q, int tokens, double t) {
  if (q.first_token < 0) {
    q.first_token = t;
    tokens -= 1;
    q.generated += 1;
    q.last_token = t;
  }
  if (tokens > 0) {
    itl.add((t - q.last_token) / tokens, tokens);
    q.generated += tokens;
    q.last_token = t;
  }
}

void Simulation::finished(int32_t s, double t) {
  seqs[static_cast<size_t>(s)].finish = t;
  ++completed_;
}

Instance& Simulation::least_loaded(Role r) {
  Instance* best = nullptr;
  for (auto& in : instances_)
    if (in->role() == r && (!best || in->load() < best->load())) best = in.get();
  return *best;
}

void Simulation::finished_prefill(Instance& from, int32_t s, double t) {
  (void)from;
  (void)t;
  // The prefill instance keeps the sequence's blocks until a decode instance has room for them
  // and the transfer has read them: above the decode pool's rate the prefill pool fills and
  // prefill stalls, so TTFT grows. (The blocks had been freed at the transfer's end and the
  // sequence parked on the decode side with none: 1,780 sequences' KV, 7.7x the decode pool, held
  // by no pool, and TTFT stayed flat above saturation; 2026-12-04 review.)
  handoffs_.push_back(s);
}

void Simulation::start_handoffs(double t, std::vector<int>& touched) {
  const auto& d = *spec_.disaggregation;
  while (!handoffs_.empty()) {
    const int32_t s = handoffs_.front();
    Seq& q = seqs[static_cast<size_t>(s)];
    // The least loaded decode instance that has room, ties by index.
    std::vector<Instance*> decode;
    for (auto& in : instances_)
      if (in->role() == Role::Decode) decode.push_back(in.get());
    std::stable_sort(decode.begin(), decode.end(), [](const Instance* a, const Instance* b) { return a->load() < b->load(); });
    bool placed = false;
    for (Instance* in : decode)
      if (in->reserve_arrival(q)) {
        placed = true;
        touched.push_back(in->index());
        break;
      }
    if (!placed) return;  // first come first served: the next waits behind it
    handoffs_.pop_front();
    // Windowed layers send the window they hold. A draft model's cache travels with the target's:
    // the decode instance's draft passes read it (it was left out before 2026-12-04, while the
    // decode pool's capacity budgeted it).
    double bytes = 0;
    for (const auto& m : models_) bytes += m->kv_bytes(q.kv_tokens);
    // The prefill replica's link carries one transfer at a time, first come first served: each had
    // taken bytes / bandwidth as if alone (7.4 requests/s through a 0.05 GB/s link).
    double& free_at = link_free_[static_cast<size_t>(q.instance / slots_)];
    const double start = std::max(t, free_at);
    const double xfer = d.kv_link.bandwidth_bytes_per_s > 0 ? bytes / d.kv_link.bandwidth_bytes_per_s : 0;
    free_at = start + xfer;
    transfers_.emplace(start + xfer + d.kv_link.latency_s, s);
  }
}

}  // namespace

// The draft's weights share the devices: it is named when there is one (the target alone had been
// blamed before 2026-12-03), with the figures behind the verdict, the draft's among them (they had
// been left out, and `infer plan` had called 72.7 GB of weights too many for 77.3 GB usable where
// the 8B draft's 9.1 GB made 81.7; 2026-12-07 review).
Error no_kv_cache_room_error(const ServingSpec& sp) {
  const Deployment& d = sp.deployment;
  const KvMemoryBudget b = kv_memory_budget(d, sp.draft ? &*sp.draft : nullptr, sp.memory_available_fraction,
                                            static_cast<double>(sp.limits.max_batch_tokens));
  const double gb = 1e9;
  char figures[240];
  if (sp.draft)
    std::snprintf(figures, sizeof figures,
                  " (per device: %.1f GB of weights, %.1f GB of the draft's and %.1f GB of activation workspace, %.1f GB usable of %.1f GB)",
                  b.weight_bytes / gb, b.draft_weight_bytes / gb, b.workspace_bytes / gb, b.usable_bytes / gb, d.accel.memory_bytes.value / gb);
  else
    std::snprintf(figures, sizeof figures, " (per device: %.1f GB of weights and %.1f GB of activation workspace, %.1f GB usable of %.1f GB)",
                  b.weight_bytes / gb, b.workspace_bytes / gb, b.usable_bytes / gb, d.accel.memory_bytes.value / gb);
  const std::string on = " leave no room for a KV cache on " + std::to_string(d.par.devices()) + " x " + d.accel.id;
  // The larger of the two is named: a workspace beyond the weights is the token budget's doing
  // (--set serving.max_batch_tokens=1e8 had been blamed on the deployment).
  if (b.workspace_bytes > b.weight_bytes + b.draft_weight_bytes)
    return Error(SourceLocation{"", 0, 0, "serving.max_batch_tokens"},
                 "the activation workspace of " + std::to_string(sp.limits.max_batch_tokens) + " tokens per pass leaves no room for a KV cache on " +
                     std::to_string(d.par.devices()) + " x " + d.accel.id + figures,
                 "a smaller serving.max_batch_tokens (8,192 is vLLM's usual budget)");
  if (sp.draft)
    return Error(SourceLocation{"", 0, 0, "serving.speculative.draft_model"},
                 "the weights of " + d.model.id + " and of its draft " + sp.draft->model.id + on + figures,
                 "a smaller draft model, or more devices (deployment.tp)");
  // More devices only where the catalog links them: on a device without a link (a phone's SoC)
  // the advice had been deployment.tp, which make_deployment then refuses (review of 2026-12-07).
  if (d.link.bandwidth_bytes_per_s <= 0)
    return Error(SourceLocation{"", 0, 0, "deployment"}, "the weights of " + d.model.id + on + figures,
                 "a narrower weight format (deployment.weight_format), a smaller model, a device with more memory, or a smaller "
                 "serving.max_batch_tokens (the catalog gives no link between " + d.accel.id + " devices for tp or pp)");
  return Error(SourceLocation{"", 0, 0, "deployment"}, "the weights of " + d.model.id + on + figures,
               "more devices (deployment.tp or pp), a narrower weight format, or a smaller serving.max_batch_tokens");
}

namespace {

Result Simulation::run(ServingSummary* summary) {
  const auto& sp = spec_;
  const auto policies = make_policy_registry();
  const SourceLocation policy_key{"", 0, 0, "policy"};
  const std::unique_ptr<BatchingPolicy> arrival_policy = policies.create(sp.policy, policy_key);  // validates the name early; sizes arrivals
  models_.push_back(std::make_unique<CostModel>(sp.deployment));
  const CostModel* draft = nullptr;
  if (sp.draft) {
    models_.push_back(std::make_unique<CostModel>(*sp.draft));
    draft = models_.back().get();
    if (sp.speculative.draft_tokens < 1 || !(sp.speculative.acceptance >= 0 && sp.speculative.acceptance <= 1))
      throw Error(SourceLocation{"", 0, 0, "speculative"}, "draft_tokens must be >= 1 and acceptance in [0, 1]");
  }
  const CostModel& cm = *models_.front();
  const double cap_tokens = kv_capacity_tokens(sp, sp.deployment);
  const int bt = sp.deployment.engine.kv_block_tokens;
  // Each scheduler slot of a pipelined replica holds its share of the blocks (BlockPool); with a
  // sliding window the pool counts one layer's blocks (KvUnits).
  const int pp = sp.deployment.par.pp;
  if (sp.pipeline_batches < 0) throw Error(SourceLocation{"", 0, 0, "pipeline_batches"}, "pipeline_batches must be >= 0 (0: pp)");
  const int slots = pipeline_slots(pp, sp.pipeline_batches);
  const KvCacheLayout layout = kv_cache_layout(cm, draft, cap_tokens, slots);
  const KvUnits units = layout.units;
  const int64_t blocks = layout.blocks, pool_units = layout.pool_units, slot_blocks = layout.slot_blocks;
  // The longest context one slot holds for a single sequence (in whole blocks).
  const int64_t longest_fit = layout.longest_fit_tokens();
  if (blocks <= 0) throw no_kv_cache_room_error(sp);
  if (slots > 1 && slot_blocks <= 0)
    throw Error(SourceLocation{"", 0, 0, "serving.pipeline_batches"},
                "the KV cache (" + std::to_string(blocks) + " blocks) cannot be split between " + std::to_string(slots) +
                    " pipeline batches: each holds its share of the blocks",
                "fewer pipeline batches (serving.pipeline_batches), or more memory per replica");
  if (sp.limits.max_batch_seqs < 1 || sp.limits.max_batch_tokens < 1)
    throw Error(SourceLocation{"", 0, 0, "batching"}, "max_batch_seqs and max_batch_tokens must be positive");
  int replicas = 0;
  if (sp.disaggregation) {
    if (sp.disaggregation->prefill_instances < 1 || sp.disaggregation->decode_instances < 1)
      throw Error(SourceLocation{"", 0, 0, "disaggregation"}, "prefill and decode instances must be >= 1");
    replicas = sp.disaggregation->prefill_instances + sp.disaggregation->decode_instances;
  } else {
    if (sp.replicas < 1) throw Error(SourceLocation{"", 0, 0, "replicas"}, "replicas must be >= 1");
    replicas = sp.replicas;
  }
  // Reserved up front: instances keep references to their pool and pipeline.
  pools_.assign(static_cast<size_t>(replicas) * static_cast<size_t>(slots), BlockPool{pool_units, pool_units});
  replicas_ = replicas;
  link_free_.assign(static_cast<size_t>(replicas), 0.0);
  slots_ = slots;
  pipes_.assign(pp > 1 ? static_cast<size_t>(replicas) : 0, Pipeline{0.0, std::vector<double>(static_cast<size_t>(pp), 0.0)});
  int idx = 0, rep = 0;
  // A replica of pp > 1 stages runs `slots` passes at once (vLLM's virtual engines): one scheduler
  // slot each, with its share of the replica's KV blocks, sharing the replica's pipeline.
  auto add = [&](Role r) {
    for (int k = 0; k < slots; ++k)
      instances_.push_back(std::make_unique<Instance>(*this, idx++, r, cm, draft, pools_[static_cast<size_t>(rep * slots + k)],
                                                      pp > 1 ? &pipes_[static_cast<size_t>(rep)] : nullptr, bt, units, sp.limits,
                                                      sp.prefix_caching, policies.create(sp.policy, policy_key)));
    ++rep;
  };
  if (sp.disaggregation) {
    for (int i = 0; i < sp.disaggregation->prefill_instances; ++i) add(Role::Prefill);
    for (int i = 0; i < sp.disaggregation->decode_instances; ++i) add(Role::Decode);
  } else {
    for (int i = 0; i < sp.replicas; ++i) add(Role::Colocated);
  }
  rng = RandomStream(sp.seed, 7);
  seqs.resize(reqs_.size());
  for (size_t i = 0; i < reqs_.size(); ++i) {
    const auto& r = reqs_[i];
    Seq& q = seqs[i];
    q.prompt = r.prompt_tokens;
    q.output = r.output_tokens;
    q.prefix_group = r.prefix_group;
    q.prefix_tokens = r.prefix_tokens;
    q.arrival = r.arrival_s;
    if (q.prompt < 1 || q.output < 1) throw Error(SourceLocation{"", 0, 0, "requests"}, "prompt and output lengths must be >= 1");
    // A request whose context cannot fit one instance's KV cache, or goes beyond the model's
    // context window (max_position_embeddings, vLLM's default max_model_len), is refused at
    // arrival, as an engine refuses it; it counts as an SLO miss. It used to stop the whole run;
    // the window was not checked before 2026-12-02.
    const int64_t window = sp.deployment.context_window_tokens;
    const bool beyond_window = window > 0 && q.prompt + q.output > window;
    // Whole blocks: a request within a block of the capacity fits no pool (62 blocks of 16 hold
    // 992 of 1,000 tokens; it was admitted and the run ended with 'cannot schedule').
    // With a window, the cache peaks at the end of the policy's largest pass (the prompt's, whole or
    // a chunk, or a preempted request's recompute: BatchingPolicy::largest_pass) or at the last
    // token. The recompute was not counted: a continuous-batching request preempted at 27,300
    // tokens could never be re-prefilled, and the run stopped (2026-12-03 review).
    // The cache ends at prompt + output - 1 tokens: the last token's KV is never written, no pass
    // consuming it (prompt + output had refused a request that fits by one token; 2026-12-04
    // review).
    // The last token's need is the cache's size; a pass's beyond it (the prompt's, or a recompute)
    // is the policy's doing, said as such: the prompt's pass had been counted with the last token,
    // and GPT-OSS-120B requests of 101,500 tokens were said to need "more KV tokens than one
    // instance holds (109232)" where a smaller max_batch_tokens runs them (2026-12-06 review).
    const BatchingPolicy::Pass largest = arrival_policy->largest_pass(q.prompt, q.output, sp.limits);
    const int64_t final_kv = q.prompt + q.output - 1;
    const bool over_steady = layout.last_token_units(q.prompt, q.output) > pool_units;
    const bool over_pass = !over_steady && layout.pass_units(q.prompt, largest) > pool_units;
    const bool over_pool = over_steady || over_pass;
    if (over_pool || beyond_window) {
      q.rejected = true;
      ++rejected;
      rejected_window += beyond_window;
      rejected_pass += !beyond_window && !over_steady;
      if (!beyond_window && over_steady) longest_rejected = std::max<int64_t>(longest_rejected, final_kv);
      if (!beyond_window && !over_steady)
        shortest_rejected_pass = shortest_rejected_pass == 0 ? final_kv : std::min<int64_t>(shortest_rejected_pass, final_kv);
    } else if (sp.policy != "chunked-prefill" && q.prompt > sp.limits.max_batch_tokens) {
      ++over_budget;
      longest_over_budget = std::max<int64_t>(longest_over_budget, q.prompt);
    }
  }
  const std::string holder = holder_text(slots);
  if (!reqs_.empty() && rejected_window == static_cast<int64_t>(reqs_.size()))
    throw Error(SourceLocation{"", 0, 0, "workload"}, "every request is longer than " + context_window_text(sp.deployment) +
                " (prompt + output)", "shorter prompts or outputs, or a model with a longer window");
  if (!reqs_.empty() && rejected == static_cast<int64_t>(reqs_.size()) && rejected_window > 0)
    throw Error(SourceLocation{"", 0, 0, "workload"}, "every request is refused: " + std::to_string(rejected_window) +
                " longer than " + context_window_text(sp.deployment) + ", " + std::to_string(rejected - rejected_window) + " needing more KV tokens than " + holder + " (" +
                std::to_string(longest_fit) + ")",
                "shorter prompts or outputs, more memory per instance, or a model with a longer window");
  // Refusals of the largest pass's kind are said as such: the requests fit the cache at their last
  // token, and "needs more KV tokens than one instance holds (109232)" had been said of 101,041-token
  // GPT-OSS requests refused for their recompute pass (2026-12-06 review).
  if (!reqs_.empty() && rejected == static_cast<int64_t>(reqs_.size()) && rejected_pass > 0)
    throw Error(SourceLocation{"", 0, 0, "workload"},
                "every request is refused: " +
                    (rejected_pass < rejected ? std::to_string(rejected - rejected_pass) + " need more KV tokens than " + holder + " (" +
                                                    std::to_string(longest_fit) + "), and " + std::to_string(rejected_pass)
                                              : std::string("each")) +
                    " fit" + (rejected_pass < rejected ? "" : "s") + " the " + std::to_string(longest_fit) + " tokens " + holder +
                    " at the last token but not in the " + sp.policy + " policy's largest pass (the shortest such request, " +
                    std::to_string(shortest_rejected_pass) + " tokens of context): " + largest_pass_text(sp.policy, sp.limits.max_batch_tokens),
                "shorter prompts or outputs, more memory per instance (tp, a smaller weight or KV format)" +
                    std::string(sp.policy == "chunked-prefill" ? ", or a smaller serving.max_batch_tokens (the chunk of a pass)"
                                                               : ", or serving.policy chunked-prefill (its passes are bounded by max_batch_tokens)"));
  if (!reqs_.empty() && rejected == static_cast<int64_t>(reqs_.size()))
    throw Error(SourceLocation{"", 0, 0, "workload"}, "every request needs more KV tokens than " + holder + " (" +
                std::to_string(longest_fit) + "; the shortest request needs more)",
                "shorter prompts or outputs, more memory per instance (tp, a smaller weight or KV format), or a smaller model");
  // Timeline.
  const double horizon = reqs_.empty() ? 0 : reqs_.back().arrival_s;
  // Arrivals all at one instant (a burst) give no horizon: every event is a point, and when the
  // points reach twice timeline_points, neighbours merge (maxima kept) and the spacing doubles.
  // The timeline had been empty (2026-12-03 review).
  const bool adaptive_timeline = !(horizon > 0) && !reqs_.empty();
  double sample_dt = horizon > 0 ? horizon / std::max(1, sp.timeline_points) : 0;
  double next_sample = 0;
  int64_t interval_used = 0, interval_run = 0, interval_wait = 0;  // maxima since the last timeline point
  std::vector<std::array<double, 4>> timeline;
  const double kv_tok_bytes = (cm.kv_bytes_per_token_per_device() + (draft ? draft->kv_bytes_per_token_per_device() : 0.0)) *
                              sp.deployment.par.devices();

  size_t next_arrival = 0;
  const Role entry = sp.disaggregation ? Role::Prefill : Role::Colocated;
  using Ev = std::pair<double, int>;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> busy;  // (end time, instance)
  std::vector<int> dirty;
  auto try_start = [&](Instance& in) {
    if (in.busy() || !in.has_work()) return false;
    if (!in.start(now)) return false;
    busy.emplace(in.busy_until(), in.index());
    return true;
  };
  int64_t peak_blocks = 0;
  // Running totals over the instances, updated from the ones logged as touched at each event.
  std::vector<int> touch_log;
  for (auto& in : instances_) in->set_touch_log(&touch_log);
  std::vector<int64_t> cached_used(instances_.size(), 0), cached_run(instances_.size(), 0), cached_wait(instances_.size(), 0);
  std::vector<int64_t> replica_used(static_cast<size_t>(replicas_), 0);
  int64_t total_used = 0, total_run = 0, total_wait = 0;
  for (size_t i = 0; i < instances_.size(); ++i) {
    cached_used[i] = pools_[i].used();
    total_used += cached_used[i];
    replica_used[i / static_cast<size_t>(slots_)] += cached_used[i];
  }
  while (true) {
    const double ta = next_arrival < reqs_.size() ? reqs_[next_arrival].arrival_s : INFINITY;
    const double tb = busy.empty() ? INFINITY : busy.top().first;
    const double tt = transfers_.empty() ? INFINITY : transfers_.top().first;
    const double t = std::min({ta, tb, tt});
    if (!std::isfinite(t)) break;
    now = t;
    dirty.clear();
    while (!busy.empty() && busy.top().first <= t) {
      const int i = busy.top().second;
      busy.pop();
      instances_[static_cast<size_t>(i)]->complete(t);
      dirty.push_back(i);
    }
    while (!transfers_.empty() && transfers_.top().first <= t) {
      const int32_t s = transfers_.top().second;
      transfers_.pop();
      Seq& q = seqs[static_cast<size_t>(s)];
      const int from = q.instance;
      instances_[static_cast<size_t>(from)]->release_sent(s);
      dirty.push_back(from);  // its freed blocks may admit waiting prompts
      // The decode side's reserved blocks become the sequence's.
      q.blocks = q.incoming_blocks;
      q.incoming_blocks = 0;
      q.instance = q.handoff_to;
      q.handoff_to = -1;
      instances_[static_cast<size_t>(q.instance)]->enqueue_with_kv(s);
      dirty.push_back(q.instance);
    }
    // Prefills finished by the passes that just ended, and room freed on the decode side.
    if (sp.disaggregation) start_handoffs(t, dirty);
    while (next_arrival < reqs_.size() && reqs_[next_arrival].arrival_s <= t) {
      if (seqs[next_arrival].rejected) {
        ++next_arrival;
        continue;
      }
      Instance& in = least_loaded(entry);
      seqs[next_arrival].instance = in.index();
      in.enqueue(static_cast<int32_t>(next_arrival));
      dirty.push_back(in.index());
      ++next_arrival;
    }
    // The slots of a pipelined replica share its KV pool: blocks one frees may be what another's
    // waiting sequences need, so every slot of a touched replica is retried (a slot refused for
    // want of blocks was never retried, and the run ended with 'cannot schedule').
    if (slots > 1) {
      const size_t n = dirty.size();
      for (size_t d = 0; d < n; ++d)
        for (int j = dirty[d] / slots * slots; j < (dirty[d] / slots + 1) * slots; ++j) dirty.push_back(j);
    }
    std::sort(dirty.begin(), dirty.end());
    dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
    for (int i : dirty) try_start(*instances_[static_cast<size_t>(i)]);
    // A slot that preempted its own partial prefill to free blocks (chunked prefill, slots sharing
    // one pool) started nothing; a slot tried before it may now fit: the replica's idle slots are
    // retried while some start (the two prefills had blocked each other: 'cannot schedule',
    // 2026-12-04 review).
    if (slots > 1)
      for (int round = 0; round < slots; ++round) {
        bool started = false;
        for (int i : dirty) started |= try_start(*instances_[static_cast<size_t>(i)]);
        if (!started) break;
      }
    for (int i : touch_log) {
      const size_t k = static_cast<size_t>(i);
      Instance& in = *instances_[k];
      in.clear_touch();
      const int64_t u = pools_[k].used(), r = static_cast<int64_t>(in.running().size()), w = static_cast<int64_t>(in.waiting().size());
      total_used += u - cached_used[k];
      int64_t& ru = replica_used[k / static_cast<size_t>(slots_)];
      ru += u - cached_used[k];
      peak_blocks = std::max(peak_blocks, ru);  // a replica's slots together
      cached_used[k] = u;
      total_run += r - cached_run[k];
      cached_run[k] = r;
      total_wait += w - cached_wait[k];
      cached_wait[k] = w;
    }
    touch_log.clear();
    if (sample_dt > 0 || adaptive_timeline) {
      // Each point holds the maxima since the previous one, so a short peak between two points
      // is drawn (the chart read 45% where the run peaked at 48.5%).
      interval_used = std::max(interval_used, total_used);
      interval_run = std::max(interval_run, total_run);
      interval_wait = std::max(interval_wait, total_wait);
      if (t >= next_sample) {
        timeline.push_back({t, static_cast<double>(interval_used), static_cast<double>(interval_run), static_cast<double>(interval_wait)});
        interval_used = interval_run = interval_wait = 0;
        next_sample = t + sample_dt;
        if (adaptive_timeline && timeline.size() >= 2 * static_cast<size_t>(std::max(1, sp.timeline_points))) {
          std::vector<std::array<double, 4>> merged;
          for (size_t i = 0; i < timeline.size(); i += 2) {
            auto pt = timeline[i + 1 < timeline.size() ? i + 1 : i];  // the later time: its maxima cover both
            if (i + 1 < timeline.size())
              for (int k = 1; k < 4; ++k) pt[static_cast<size_t>(k)] = std::max(timeline[i][static_cast<size_t>(k)], timeline[i + 1][static_cast<size_t>(k)]);
            merged.push_back(pt);
          }
          timeline.swap(merged);
          sample_dt = std::max(2 * sample_dt, (t - timeline.front()[0]) / std::max(1, sp.timeline_points));
          next_sample = t + sample_dt;
        }
      }
    }
    if (busy.empty() && transfers_.empty() && next_arrival >= reqs_.size()) {
      if (!handoffs_.empty())
        throw Error(SourceLocation{"", 0, 0, "disaggregation"}, std::to_string(handoffs_.size()) +
                    " finished prefills wait for KV room that no idle decode instance has (decode pool too small for one request?)");
      for (const auto& in : instances_)
        if (in->has_work())
          throw Error(SourceLocation{"", 0, 0, "policy"}, "instance " + std::to_string(in->index()) + " cannot schedule its " +
                      std::to_string(in->load()) + " sequences (KV cache too small for policy '" + sp.policy + "'?)");
      break;
    }
  }

  // Metrics.
  std::vector<double> ttft, tpot, e2e;
  int64_t out_tokens = 0, in_tokens = 0, met = 0, met_ttft = 0, met_tpot = 0;
  double t0 = reqs_.empty() ? 0 : reqs_.front().arrival_s, t1 = t0, last_arrival = t0;
  for (const auto& q : reqs_) {
    t0 = std::min(t0, q.arrival_s);
    last_arrival = std::max(last_arrival, q.arrival_s);
  }
  t1 = t0;
  for (const auto& q : seqs) {
    if (q.finish < 0) continue;
    ttft.push_back(q.first_token - q.arrival);
    e2e.push_back(q.finish - q.arrival);
    const double tp = q.output > 1 ? (q.finish - q.first_token) / (q.output - 1) : std::nan("");
    tpot.push_back(tp);
    out_tokens += q.output;
    in_tokens += q.prompt;
    t1 = std::max(t1, q.finish);
    const bool ttft_ok = sp.slo.ttft_s <= 0 || q.first_token - q.arrival <= sp.slo.ttft_s;
    const bool tpot_ok = sp.slo.tpot_s <= 0 || std::isnan(tp) || tp <= sp.slo.tpot_s;
    met += ttft_ok && tpot_ok ? 1 : 0;
    met_ttft += ttft_ok ? 1 : 0;
    met_tpot += tpot_ok ? 1 : 0;
  }
  // The measurement window: from the first arrival over n mean gaps between the n arrivals (each
  // request owns one gap; the offered rate, (n - 1) / (last - first arrival), is one over that mean
  // gap), or to the last completion when that is later (a queue draining after the last arrival). Every per-second figure (throughput, goodput, tokens per second) and the run's energy
  // and cost, idle time included, are over it, so that the throughput is at most the offered rate
  // and equals it when every request completes within a gap of its arrival. Before 2026-12-06 the
  // window ended at the last completion: 10 requests 10 s apart, served in 1.5 s each, read 0.1093
  // requests/s against an offered 0.1, and the cost per token 8% below the steady figure (review).
  const double n_reqs = static_cast<double>(reqs_.size());
  const double arrival_window = reqs_.size() >= 2 ? (last_arrival - t0) * n_reqs / (n_reqs - 1.0) : 0.0;
  const double makespan = t1 - t0;
  const double dur = std::max(makespan, arrival_window);
  sort_values(ttft);
  sort_values(tpot);
  sort_values(e2e);
  auto percentile = [](const std::vector<double>& v, double q) { return percentile_sorted(v, q); };
  Result r;
  r.command = "infer serve";
  const auto& d = sp.deployment;
  r.set("model", d.model.id);
  r.set("accelerator", d.accel.id);
  r.set("engine", d.engine.id);
  r.set("policy", sp.policy);
  const int per_inst = d.par.devices();
  const int devices = per_inst * replicas_;
  r.set("devices_count", static_cast<int64_t>(devices));
  r.set("instances_count", static_cast<int64_t>(replicas_));
  if (d.par.pp > 1) r.set("pipeline_batches_count", static_cast<int64_t>(slots_));
  r.set("requests_count", static_cast<int64_t>(reqs_.size()));
  r.set("completed_count", completed_);
  r.set("duration_s", dur);
  r.set("makespan_s", makespan);  // first arrival to last completion
  r.set("throughput_requests_per_s", dur > 0 ? completed_ / dur : 0.0);
  r.set("output_tokens_per_s", dur > 0 ? out_tokens / dur : 0.0);
  r.set("total_tokens_per_s", dur > 0 ? (out_tokens + in_tokens) / dur : 0.0);
  auto pct = [&](const std::string& name, const std::vector<double>& v) {
    r.set(name + "_p50_s", percentile(v, 0.5));
    r.set(name + "_p90_s", percentile(v, 0.9));
    r.set(name + "_p99_s", percentile(v, 0.99));
  };
  pct("ttft", ttft);
  pct("tpot", tpot);
  r.set("itl_p50_s", itl.percentile(0.5));
  r.set("itl_p90_s", itl.percentile(0.9));
  r.set("itl_p99_s", itl.percentile(0.99));
  pct("e2e", e2e);
  // Refused requests miss the SLO. Without a bound (no slo: section) there is no SLO to meet: the
  // attainment and goodput are no number (NaN, null in JSON), as are the bounds not given; they
  // had read 1.0 beside bounds of 0 s (2026-12-06 review).
  const bool has_slo = sp.slo.ttft_s > 0 || sp.slo.tpot_s > 0;
  const double slo_frac = !has_slo                    ? std::nan("")
                          : completed_ + rejected > 0 ? static_cast<double>(met) / static_cast<double>(completed_ + rejected)
                                                      : 0;
  r.set("rejected_count", rejected);
  if (rejected_window > 0)
    r.notes.push_back(std::to_string(rejected_window) + " request(s) are longer than " + context_window_text(sp.deployment) +
                      " (prompt + output): refused at arrival, as vLLM refuses a " +
                      "request beyond max_model_len, and counted as SLO misses");
  if (rejected_pass > 0)
    r.notes.push_back(std::to_string(rejected_pass) + " request(s) fit the KV cache while decoding but not in the " + sp.policy +
                      " policy's largest pass: " + largest_pass_text(sp.policy, sp.limits.max_batch_tokens) +
                      "; refused at arrival (it could not be run, or re-run after a preemption) and counted as SLO misses" +
                      (sp.policy == "chunked-prefill" ? "; a smaller serving.max_batch_tokens shrinks the pass" : ""));
  if (rejected > rejected_window + rejected_pass)
    r.notes.push_back(std::to_string(rejected - rejected_window - rejected_pass) + " request(s) need more KV tokens than " + holder_text(slots_) + " (the longest " +
                      std::to_string(longest_rejected) + " > " + std::to_string(longest_fit) +
                      "): refused at arrival, as an engine refuses a prompt beyond its max_model_len, and counted as SLO misses");
  if (slots_ > 1)
    r.notes.push_back("pipeline parallelism: each of the " + std::to_string(slots_) + " batches in flight per replica holds 1/" +
                      std::to_string(slots_) + " of its KV cache (" + std::to_string(slot_blocks * bt) +
                      " tokens), as vLLM V0's virtual engines split the blocks: the longest request one slot takes");
  if (over_budget > 0)
    r.notes.push_back(std::to_string(over_budget) + " prompt(s) longer than max_batch_tokens (" + std::to_string(sp.limits.max_batch_tokens) +
                      "; the longest " + std::to_string(longest_over_budget) + ") were prefilled whole in one pass: the " + sp.policy +
                      " policy never splits a prompt (vLLM refuses max_num_batched_tokens below max_model_len without chunked "
                      "prefill); raise serving.max_batch_tokens or use serving.policy chunked-prefill");
  r.set("slo_ttft_s", sp.slo.ttft_s > 0 ? sp.slo.ttft_s : std::nan(""));
  r.set("slo_tpot_s", sp.slo.tpot_s > 0 ? sp.slo.tpot_s : std::nan(""));
  r.set("slo_attainment_fraction", slo_frac);
  r.set("goodput_requests_per_s", !has_slo ? std::nan("") : dur > 0 ? met / dur : 0.0);
  if (!has_slo)
    r.notes.push_back("no SLO (the study has no slo: ttft_s or tpot_s): slo_attainment_fraction and goodput_requests_per_s are no number; "
                      "add slo: {ttft_s: ..., tpot_s: ...} to measure them");
  r.set("preemptions_count", preemptions);
  r.set("prefix_cache_hit_fraction", prefix_lookups > 0 ? static_cast<double>(prefix_hits) / prefix_lookups : 0.0);
  int64_t iters = 0, bsum = 0;
  double energy = devices * sp.idle_power_w * dur;
  for (const auto& in : instances_) {
    iters += in->iterations;
    bsum += in->batch_seq_sum;
    energy += in->dynamic_energy_j;
  }
  r.set("iterations_count", iters);
  r.set("mean_batch_seqs", iters > 0 ? static_cast<double>(bsum) / iters : 0.0);
  r.set("kv_capacity_tokens_per_instance", std::floor(cap_tokens / bt) * bt);
  // An engine that allocates per sequence says so, with what the memory holds (2026-12-06 review).
  if (!(sp.kv_capacity_tokens > 0)) {
    const int64_t alloc_seqs = sp.limits.max_batch_seqs * static_cast<int64_t>(slots_);
    const double by_memory = kv_capacity_tokens_by_memory(sp, sp.deployment);
    const std::string note = kv_allocation_note(sp.deployment, engine_kv_allocation(sp.deployment, alloc_seqs, by_memory), alloc_seqs, by_memory);
    if (!note.empty()) r.notes.push_back(note);
  }
  // The device's memory, as estimate gives it (serve never said which size it assumed on a SoC;
  // 2026-12-07 review).
  r.set("memory_capacity_bytes_per_device", sp.deployment.accel.memory_bytes.value);
  // Beyond an advisory share (a Mac's Metal recommended working set), as infer estimate says it
  // (serve had sized the cache from the whole memory and said nothing; 2026-12-05 review).
  if (sp.memory_recommended_fraction > 0) {
    const double rec_bytes = sp.deployment.accel.memory_bytes.value * sp.memory_recommended_fraction;
    r.set("memory_recommended_bytes_per_device", rec_bytes);
    ServingSpec within = sp;
    within.memory_available_fraction = sp.memory_recommended_fraction;
    within.kv_capacity_tokens = 0;
    const double rec_cap = std::floor(std::max(0.0, kv_capacity_tokens_by_memory(within, sp.deployment)) / bt) * bt;
    if (cap_tokens > rec_cap)
      r.notes.push_back("beyond the recommended working set: the KV cache of " + format_double(std::floor(cap_tokens / bt) * bt) +
                        " tokens per instance, with the weights and the workspace, reaches beyond the " +
                        format_double(std::round(rec_bytes / 1e7) / 100) + " GB (" + format_double(sp.memory_recommended_fraction) +
                        " of memory: Metal's recommendedMaxWorkingSetSize, data/infer/devices.yaml) that leave the OS and other "
                        "applications their share; the engine warns and allocates (8 GB M1 Macs run Llama-2-7B Q8_0 so); " +
                        (rec_cap >= bt ? "serving.kv_capacity_tokens: " + format_double(rec_cap) + " keeps within it"
                                       : std::string("the weights and the workspace alone reach beyond it")));
  }
  r.set("kv_peak_fraction", static_cast<double>(peak_blocks) / (pool_units * slots_));
  // A draft model's weights share the devices (the KV capacity leaves them out, kv_memory_budget):
  // shown beside the target's as draft_weights_bytes_per_device. weights_bytes_per_device is the
  // target's alone, as docs/inference.md defines it and as estimate gives it; from 2026-12-05 to
  // 2026-12-07 it had included the draft's too, printed beside it (review of 2026-12-07).
  const double draft_weights = sp.draft ? CostModel(*sp.draft).weight_bytes_per_device() : 0.0;
  r.set("weights_bytes_per_device", cm.weight_bytes_per_device());
  if (sp.draft) r.set("draft_weights_bytes_per_device", draft_weights);
  r.set("kv_bytes_per_token", cm.kv_bytes_per_token());
  if (sp.busy_power_w > 0 && out_tokens > 0) {
    r.set("energy_j", energy);
    r.set("energy_per_output_token_j", energy / out_tokens);
  }
  // The devices paid for: the whole nodes the instances are placed on under a system's node price
  // (billed_nodes: each pipeline stage's TP group inside one node, 4 TP6 instances on 8-device
  // nodes on 4 of them, 4 TP2 x PP3 instances on 3), else the devices used. Before 2026-12-06 the
  // instances' devices were rounded up together (24 devices, 3 nodes, for those 4 TP6) and the
  // note promised room for "more instances" where 2 devices were left; then whole instances were
  // packed, a node each for the 4 TP2 x PP3 (review).
  const int group = d.par.tp;  // what must lie inside one node: a pipeline stage's TP group
  const int64_t billed = billed_devices(replicas_, per_inst, sp.price_node_devices, pp);
  if (!sp.price_source.empty()) r.set("price_source", sp.price_source);
  if (sp.usd_per_device_hour > 0) {
    r.set("usd_per_device_hour", sp.usd_per_device_hour);
    r.set("billed_devices_count", billed);
    r.set("usd_per_hour", static_cast<double>(billed) * sp.usd_per_device_hour);
    if (billed > devices) {
      const int64_t nodes = billed / sp.price_node_devices, spare = spare_instances(replicas_, per_inst, sp.price_node_devices, pp);
      const std::string unit = pp > 1 ? "stage group(s) of tp " + std::to_string(group) : "instance(s)";
      const std::string placed = group <= sp.price_node_devices
                                     ? std::to_string(sp.price_node_devices / group) + " " + unit + " per node, none straddling two"
                                     : "each " + std::string(pp > 1 ? "stage group" : "instance") + " on " +
                                           std::to_string(billed_nodes(1, group, sp.price_node_devices)) + " node(s) of its own";
      r.notes.push_back("the deployment's " + std::to_string(devices) + " device(s) (" + std::to_string(replicas_) + " instance(s) of " +
                        std::to_string(per_inst) + (pp > 1 ? ", " + std::to_string(pp) + " pipeline stages of tp " + std::to_string(group) : "") +
                        ") are billed as " + std::to_string(nodes) + " whole node(s) of " + std::to_string(sp.price_node_devices) + " (" +
                        std::to_string(billed) + " devices; nodes are rented whole, as sweep rents them; " + placed + ")" +
                        (spare > 0 ? ": " + std::to_string(spare) + " more instance(s) would fit them at no extra cost"
                                   : ": no more instance fits them"));
    }
  }
  if (sp.usd_per_device_hour > 0 && out_tokens > 0) {
    const double usd = static_cast<double>(billed) * sp.usd_per_device_hour * dur / 3600.0;
    r.set("usd_per_million_output_tokens", usd / out_tokens * 1e6);
    r.set("usd_per_million_total_tokens", usd / (out_tokens + in_tokens) * 1e6);
  }
  Table& lt = r.add_table("latency", "latency percentiles over completed requests (itl: per generated token)");
  lt.add_str("metric"); lt.add_f64("p50_s"); lt.add_f64("p90_s"); lt.add_f64("p95_s"); lt.add_f64("p99_s"); lt.add_f64("max_s");
  for (auto [name, v] : {std::pair<const char*, const std::vector<double>*>{"ttft", &ttft}, {"tpot", &tpot}, {"e2e", &e2e}})
    lt.add_row({std::string(name), percentile(*v, 0.5), percentile(*v, 0.9), percentile(*v, 0.95), percentile(*v, 0.99), percentile(*v, 1.0)});
  lt.add_row({std::string("itl"), itl.percentile(0.5), itl.percentile(0.9), itl.percentile(0.95), itl.percentile(0.99), itl.percentile(1.0)});
  // A trace's rows are served in time order from 0 (arrivals/trace.cpp): the shift and the rows
  // moved are said, and the requests table gives each request's line and stated arrival
  // (2026-12-07 review: the table had numbered the reordered, shifted requests with no word).
  const bool from_trace = !reqs_.empty() && reqs_.front().trace_line >= 0;
  if (from_trace) {
    std::vector<int64_t> lines;
    for (const auto& q : reqs_) lines.push_back(q.trace_line);
    // The rows moved: those outside the longest run of rows served in the file's order (the longest
    // increasing subsequence of lines in served order, O(n log n)). Before 2026-12-07 the served
    // lines were compared with the sorted ones position by position, so one late row shifted
    // every position after it (review: one row moved of 10 read "10 of 10").
    std::vector<int64_t> tails;  // tails[k]: the least last line of an increasing run of k + 1 rows
    for (int64_t line : lines) {
      const auto it = std::lower_bound(tails.begin(), tails.end(), line);
      if (it == tails.end()) tails.push_back(line);
      else *it = line;
    }
    const int64_t moved = static_cast<int64_t>(lines.size()) - static_cast<int64_t>(tails.size());
    const double shift_s = reqs_.front().trace_arrival_s - reqs_.front().arrival_s;
    if (shift_s != 0 || moved > 0) {
      std::string what;
      if (shift_s != 0)
        what = "arrivals shifted by " + format_double(-shift_s) + " s to start at 0 (the earliest, line " +
               std::to_string(reqs_.front().trace_line) + ", states " + format_double(reqs_.front().trace_arrival_s) + " s)";
      if (moved > 0)
        what += (what.empty() ? "" : "; ") + std::to_string(moved) + " of " + std::to_string(lines.size()) +
                " requests served out of the file's row order, sorted by arrival (rows of one time keep the file's order)";
      r.notes.push_back("trace: " + what + "; the requests table numbers the requests in arrival order, its trace_line (the row's "
                        "1-based line in the file, the header line 1) and trace_arrival_s (the arrival the row states) give each "
                        "one's row");
    }
  }
  if (sp.request_table) {
    // Without an SLO there is none to meet: the flag is no number (NaN, null in JSON), as the
    // attainment and goodput are. It had read 1 for every request beside a null attainment
    // (review of 2026-12-06); the column is f64 so that it can hold the NaN, 1 and 0 otherwise.
    Table& rt = r.add_table("requests", "every completed request: arrival, lengths, latencies (tpot empty for one-token outputs), preemptions, "
                                        "SLO met (1) or not (0), empty without an SLO");
    rt.add_i64("request"); rt.add_f64("arrival_s"); rt.add_i64("prompt_tokens"); rt.add_i64("output_tokens"); rt.add_f64("ttft_s");
    rt.add_f64("tpot_s"); rt.add_f64("e2e_s"); rt.add_i64("preemptions_count"); rt.add_f64("meets_slo_flag");
    if (from_trace) {
      rt.add_i64("trace_line");
      rt.add_f64("trace_arrival_s");
    }
    for (size_t i = 0; i < seqs.size(); ++i) {
      const Seq& q = seqs[i];
      if (q.finish < 0) continue;
      const double ft = q.first_token - q.arrival;
      const double tp = q.output > 1 ? (q.finish - q.first_token) / (q.output - 1) : std::nan("");
      const bool ok = (sp.slo.ttft_s <= 0 || ft <= sp.slo.ttft_s) && (sp.slo.tpot_s <= 0 || std::isnan(tp) || tp <= sp.slo.tpot_s);
      std::vector<Value> row = {static_cast<int64_t>(i), q.arrival, static_cast<int64_t>(q.prompt), static_cast<int64_t>(q.output), ft, tp,
                                q.finish - q.arrival, static_cast<int64_t>(q.preemptions), !has_slo ? std::nan("") : ok ? 1.0 : 0.0};
      if (from_trace) {
        row.emplace_back(reqs_[i].trace_line);
        row.emplace_back(reqs_[i].trace_arrival_s);
      }
      rt.add_row(row);
    }
  }
  Table& mt = r.add_table("memory_timeline", "KV cache use over time, all instances: each point the maxima since the previous point");
  mt.add_f64("time_s"); mt.add_f64("kv_used_bytes"); mt.add_f64("kv_used_fraction"); mt.add_i64("running_count"); mt.add_i64("waiting_count");
  const double total_blocks = static_cast<double>(pool_units) * static_cast<double>(pools_.size());
  for (const auto& p : timeline)
    mt.add_row({p[0], p[1] * bt * kv_tok_bytes / units.per_block(), p[1] / total_blocks, static_cast<int64_t>(p[2]), static_cast<int64_t>(p[3])});
  if (summary) {
    summary->completed = completed_;
    summary->preemptions = preemptions;
    summary->iterations = iters;
    summary->duration_s = dur;
    summary->output_tokens_per_s = r.number("output_tokens_per_s");
    summary->requests_per_s = r.number("throughput_requests_per_s");
    summary->ttft_p50_s = r.number("ttft_p50_s");
    summary->ttft_p99_s = r.number("ttft_p99_s");
    summary->tpot_p50_s = r.number("tpot_p50_s");
    summary->tpot_p99_s = r.number("tpot_p99_s");
    summary->e2e_p50_s = r.number("e2e_p50_s");
    summary->itl_p50_s = r.number("itl_p50_s");
    summary->itl_p99_s = r.number("itl_p99_s");
    summary->slo_attainment_fraction = slo_frac;
    const double served = static_cast<double>(completed_ + rejected);
    summary->slo_ttft_met_fraction = sp.slo.ttft_s > 0 && served > 0 ? static_cast<double>(met_ttft) / served : std::nan("");
    summary->slo_tpot_met_fraction = sp.slo.tpot_s > 0 && served > 0 ? static_cast<double>(met_tpot) / served : std::nan("");
    summary->goodput_requests_per_s = r.number("goodput_requests_per_s");
    summary->kv_capacity_tokens = cap_tokens;
    summary->kv_peak_fraction = r.number("kv_peak_fraction");
    summary->mean_batch_seqs = r.number("mean_batch_seqs");
    summary->prefix_hit_fraction = r.number("prefix_cache_hit_fraction");
    if (const Value* v = r.scalar("energy_per_output_token_j")) summary->energy_per_output_token_j = std::get<double>(*v);
    if (const Value* v = r.scalar("usd_per_million_output_tokens")) summary->usd_per_million_output_tokens = std::get<double>(*v);
  }
  return r;
}

}  // namespace

KvCacheLayout kv_cache_layout(const CostModel& cm, const CostModel* draft, double capacity_tokens, int slots) {
  KvCacheLayout L;
  const int bt = cm.deployment().engine.kv_block_tokens;
  L.block_tokens = bt;
  L.blocks = static_cast<int64_t>(capacity_tokens / bt);  // blocks of every layer
  const double draft_bytes = draft ? draft->kv_bytes_per_token_per_device() : 0.0;
  if (const int win = cm.kv_windowed_layers_per_device(); win > 0) {
    const double layer_bytes = cm.kv_bytes_per_token_per_device() / cm.kv_layers_per_device();  // one layer, one token
    L.units.full_units = cm.kv_layers_per_device() - win + static_cast<int32_t>(std::ceil(draft_bytes / layer_bytes - 1e-9));
    L.units.window_units = win;
    L.units.window = cm.deployment().model.sliding_window;
  }
  const int64_t replica_units = L.units.window_units > 0 ? static_cast<int64_t>(capacity_tokens / bt * L.units.per_block()) : L.blocks;
  L.pool_units = replica_units / std::max(1, slots);
  L.slot_blocks = L.blocks / std::max(1, slots);
  L.unit_bytes_per_device = bt * (cm.kv_bytes_per_token_per_device() + draft_bytes) / L.units.per_block();
  return L;
}

int pipeline_slots(int pp, int pipeline_batches) { return pp > 1 ? (pipeline_batches > 0 ? pipeline_batches : pp) : 1; }

Batch draft_prefill_batch(const Batch& target) {
  Batch pb;
  pb.prefill_seqs = target.prefill_seqs;
  pb.prefill_tokens = target.prefill_tokens;
  pb.prefill_attention_pairs = target.prefill_attention_pairs;
  pb.prefill_past_tokens = target.prefill_past_tokens;
  return pb;
}

int64_t for_each_prefill_pass(const CostModel& cm, int64_t seqs, int64_t prompt, int64_t max_batch_tokens, bool chunked,
                              const std::function<void(const Batch&, double)>& f) {
  if (seqs < 1 || prompt < 1) return 0;
  const int64_t budget = std::max<int64_t>(1, max_batch_tokens);
  if (!chunked) {
    // Whole prompts: k a pass, the last pass the remainder.
    const int64_t k = std::min<int64_t>(seqs, std::max<int64_t>(1, budget / prompt));
    const int64_t full = seqs / k, rest = seqs % k;
    f(cm.prefill(k, prompt), static_cast<double>(full));
    if (rest > 0) f(cm.prefill(rest, prompt), 1.0);
    return full + (rest > 0 ? 1 : 0);
  }
  // The prompts back to back, budget tokens a pass: pass j holds tokens [j x budget, end) of the
  // stream, a chunk of the sequence it starts in (past its earlier chunks), the whole prompts after
  // it, and the head of the sequence it ends in.
  const int64_t total = seqs * prompt;
  const int64_t passes = (total + budget - 1) / budget;
  auto pass = [&](int64_t j) {
    Batch b;
    const int64_t begin = j * budget, end = std::min(total, begin + budget);
    const int64_t first = begin / prompt, last = (end - 1) / prompt;
    const int64_t past = begin - first * prompt;
    if (first == last) {
      cm.add_prefill_chunk(b, static_cast<double>(past), static_cast<double>(end - begin), end == (first + 1) * prompt);
      return b;
    }
    cm.add_prefill_chunk(b, static_cast<double>(past), static_cast<double>(prompt - past), true);
    cm.add_prefill_chunk(b, 0.0, static_cast<double>(prompt), true, last - first - 1);
    cm.add_prefill_chunk(b, 0.0, static_cast<double>(end - last * prompt), end == (last + 1) * prompt);
    return b;
  };
  // Each pass costs O(1); a stream of more passes than this is sampled evenly (a prompt of 536
  // million tokens in chunks of 8,192).
  constexpr int64_t kMaxPasses = int64_t{1} << 16;
  if (passes <= kMaxPasses) {
    for (int64_t j = 0; j < passes; ++j) f(pass(j), 1.0);
  } else {
    const double each = static_cast<double>(passes) / static_cast<double>(kMaxPasses);
    for (int64_t i = 0; i < kMaxPasses; ++i) f(pass(static_cast<int64_t>((static_cast<double>(i) + 0.5) * each)), each);
  }
  return passes;
}

int64_t KvCacheLayout::last_token_units(int64_t prompt, int64_t output) const {
  return units.units(prompt + output - 1, 0, 1, block_tokens);
}

int64_t KvCacheLayout::pass_units(int64_t prompt, const BatchingPolicy::Pass& largest) const {
  return std::max(units.units(prompt, 0, std::min<int64_t>(prompt, largest.new_tokens), block_tokens),
                  units.units(largest.context_tokens, 0, largest.new_tokens, block_tokens));
}

int64_t KvCacheLayout::longest_fit_tokens() const {
  if (units.window_units == 0) return slot_blocks * block_tokens;
  const int64_t window_blocks = static_cast<int64_t>(units.window_units) * ((units.window - 1) / block_tokens + 2);
  return units.full_units == 0 ? (pool_units >= window_blocks ? std::numeric_limits<int32_t>::max() : 0)
                               : std::max<int64_t>(0, (pool_units - window_blocks) / units.full_units) * block_tokens;
}

double activation_workspace_bytes(const Deployment& d, double pass_tokens) {
  // Its tokens x hidden x (a few live tensors), each at least 16 bits wide.
  return pass_tokens * d.model.hidden * std::max(d.activation.bytes(), 2.0) * 8;
}

KvMemoryBudget kv_memory_budget(const Deployment& d, const Deployment* draft, double memory_available_fraction, double pass_tokens) {
  const CostModel cm(d);
  KvMemoryBudget b;
  b.usable_bytes = d.accel.memory_bytes.value * memory_available_fraction;
  b.weight_bytes = cm.weight_bytes_per_device();
  b.workspace_bytes = activation_workspace_bytes(d, pass_tokens);
  b.kv_bytes_per_token = cm.kv_bytes_per_token_per_device();
  if (draft) {
    // A draft model keeps its own cache of every token the target holds (40% more capacity had
    // been counted for a Llama 3.1 8B draft of a 70B target).
    const CostModel dm(*draft);
    b.draft_weight_bytes = dm.weight_bytes_per_device();
    b.draft_kv_bytes_per_token = dm.kv_bytes_per_token_per_device();
    b.kv_bytes_per_token += b.draft_kv_bytes_per_token;
  }
  return b;
}

namespace {
double kv_capacity_tokens_by_memory(const ServingSpec& spec, const Deployment& d) {
  const KvMemoryBudget b = kv_memory_budget(d, spec.draft ? &*spec.draft : nullptr, spec.memory_available_fraction,
                                            static_cast<double>(spec.limits.max_batch_tokens));
  const double usable = b.free_bytes();
  if (usable <= 0) return 0;
  return usable / b.kv_bytes_per_token;
}
}  // namespace

double kv_capacity_tokens(const ServingSpec& spec, const Deployment& d) {
  const double by_memory = kv_capacity_tokens_by_memory(spec, d);
  if (spec.kv_capacity_tokens > 0) return given_kv_capacity_tokens(spec.kv_capacity_tokens, by_memory, d);
  // The engine's own allocation: a per-sequence engine sizes it for every sequence a replica runs
  // at once, max_batch_seqs in each of its pipeline batches (2026-12-06 review).
  const int64_t seqs = spec.limits.max_batch_seqs * static_cast<int64_t>(pipeline_slots(d.par.pp, spec.pipeline_batches));
  return engine_kv_allocation(d, seqs, by_memory).tokens;
}

KvAllocation engine_kv_allocation(const Deployment& d, int64_t seqs, double by_memory_tokens) {
  KvAllocation a;
  a.tokens = by_memory_tokens;
  if (d.engine.kv_allocation != "context_per_sequence" || d.context_window_tokens <= 0 || seqs < 1) return a;
  a.per_sequence = true;
  a.per_sequence_tokens = static_cast<double>(d.context_window_tokens);
  a.asked_tokens = a.per_sequence_tokens * static_cast<double>(seqs);
  a.capped_by_memory = a.asked_tokens > by_memory_tokens;
  a.tokens = std::min(a.asked_tokens, std::max(0.0, by_memory_tokens));
  return a;
}

std::string kv_allocation_note(const Deployment& d, const KvAllocation& a, int64_t seqs, double by_memory_tokens) {
  if (!a.per_sequence) return "";
  const std::string n = std::to_string(seqs), window = format_double(a.per_sequence_tokens);
  // The source's id (or "estimated"), not its whole text: the engines file holds that.
  const std::string& src = d.engine.kv_allocation_source;
  const std::string how = "engine " + d.engine.id + " allocates the context window for each sequence it runs at once (kv_allocation " +
                          d.engine.kv_allocation + " in data/infer/engines.yaml, " + src.substr(0, src.find(':')) + ")";
  if (!a.capped_by_memory)
    return "KV cache: " + how + ": " + window + " tokens for each of " + n + " sequences, " + format_double(a.tokens) +
           " tokens per instance (llama-server -c " + format_double(a.tokens) + " -np " + n + "), where the memory holds " +
           format_double(std::floor(std::max(0.0, by_memory_tokens))) + "; serving.kv_capacity_tokens gives another -c";
  const double held = std::floor(std::max(0.0, a.tokens));
  return "KV cache: " + how + ": " + window + " tokens for each of " + n + " sequences, " + format_double(a.asked_tokens) +
         " tokens, more than the memory holds: the cache is the " + format_double(held) + " tokens it holds (-c " + format_double(held) +
         ", " + format_double(std::floor(held / static_cast<double>(seqs))) + " tokens a slot), shared by the sequences as llama-server's "
         "--kv-unified shares it" +
         // Fewer sequences help only where the memory holds one whole window (at one sequence, or
         // a window beyond the memory, the remedy had been offered anyway; review of 2026-12-06).
         (seqs > 1 && by_memory_tokens >= a.per_sequence_tokens
              ? "; " + format_double(std::floor(by_memory_tokens / a.per_sequence_tokens)) +
                    " or fewer serving.max_batch_seqs give each the whole window"
              : "; the memory holds less than one " + window + "-token window: a shorter context (deployment.max_model_len) or a smaller "
                "KV format fits more of it");
}

double given_kv_capacity_tokens(double given_tokens, double by_memory_tokens, const Deployment& d) {
  if (!(given_tokens > 0)) return by_memory_tokens;
  // A capacity given (vLLM's num_gpu_blocks_override) is checked against the memory and the block
  // size: 1e8 tokens of Llama 3.1 8B (13 TB of KV) ran on one H100, and 10 tokens blamed the
  // weights (2026-12-04 review).
  const SourceLocation key{"", 0, 0, "serving.kv_capacity_tokens"};
  const int bt = d.engine.kv_block_tokens;
  if (given_tokens > by_memory_tokens)
    throw Error(key, "is more than the memory holds: " + format_double(given_tokens) + " tokens where " + d.accel.id +
                         " holds " + format_double(std::floor(std::max(0.0, by_memory_tokens))) + " beside the weights and the workspace",
                "at most that, or 0 for what the memory holds");
  if (given_tokens < bt)
    throw Error(key, "is less than one KV block: " + format_double(given_tokens) + " tokens where a block of " + d.engine.id +
                         " holds " + std::to_string(bt),
                "at least " + std::to_string(bt) + ", or 0 for what the memory holds");
  return given_tokens;
}

Result simulate_serving(const ServingSpec& spec, const std::vector<Request>& requests, ServingSummary* summary) {
  Simulation sim(spec, requests);
  return sim.run(summary);
}

double saturation_requests_per_s(const ServingSpec& spec, const WorkloadSpec& workload, int64_t n) {
  // A burst of n requests at time 0 pays its ramp-up (no request finishes before the first ones
  // have generated their outputs) and the drain of its longest outputs with a shrinking batch, so
  // n / makespan understates the rate a loaded server sustains (by 12% at n = 1024 for an 8B model
  // on one H100, and it grew with n). The steady rate is counted inside the burst instead: the
  // completions between the n/10-th one and the last first token (after which nothing waits),
  // over that window.
  WorkloadSpec w = workload;
  w.arrival = "poisson";
  w.rate_per_s = 1e9;  // everything waiting at (almost) time 0
  w.requests = n;
  return saturation_requests_per_s(spec, generate_requests(w));
}

double saturation_requests_per_s(const ServingSpec& spec, const std::vector<Request>& reqs) {
  ServingSpec s = spec;
  s.timeline_points = 1;
  s.request_table = true;
  ServingSummary sum;
  const Result r = simulate_serving(s, reqs, &sum);
  const Table* t = r.table("requests");
  if (!t || t->rows() < 20) return sum.requests_per_s;
  const auto& arrival = t->column("arrival_s").f64;
  const auto& ttft = t->column("ttft_s").f64;
  const auto& e2e = t->column("e2e_s").f64;
  std::vector<double> finish(t->rows());
  double last_first_token = 0;
  for (size_t k = 0; k < t->rows(); ++k) {
    finish[k] = arrival[k] + e2e[k];
    last_first_token = std::max(last_first_token, arrival[k] + ttft[k]);
  }
  std::sort(finish.begin(), finish.end());
  const size_t skip = finish.size() / 10;
  // The window runs from one completion to another, and counts those after its start up to its
  // end: completions come in groups (a static batch, a step that ends several sequences), and
  // counting the group at the start (finish[skip-1] shared by the ones after it) or ending between
  // groups had read 3% high for batches of 64 (2026-12-04 review).
  const double t_a = finish[skip - 1];
  const auto end = std::upper_bound(finish.begin(), finish.end(), last_first_token);
  if (end == finish.begin()) return sum.requests_per_s;
  const double t_b = *(end - 1);
  const auto in_window = static_cast<double>(end - std::upper_bound(finish.begin(), finish.end(), t_a));
  if (t_b <= t_a || in_window < static_cast<double>(skip)) return sum.requests_per_s;
  return in_window / (t_b - t_a);
}

}  // namespace sextant::infer
