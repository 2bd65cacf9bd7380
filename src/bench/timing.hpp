#pragma once
// Repetition driver shared by the suites: warm-up, inner-loop sizing so a repetition lasts at
// least min_rep_s, and timed repetitions.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sextant::bench {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Which clock times a repetition. Wall: steady clock (the default; what a user waits for).
// ProcessCpu: CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID): on a machine shared
// with other work it excludes the time the benchmark was not scheduled, so single-threaded cases
// measure the hardware rather than the contention; meaningless for multi-threaded cases (it sums
// threads) and for I/O (waiting is not CPU time).
enum class Timer { Wall, ProcessCpu };
double timer_now_s(Timer t);
const char* to_string(Timer t);
Timer parse_timer(const std::string& name);  // "wall" | "cpu"; throws Error

struct Timed {
  int64_t inner_count = 1;          // calls of the body per repetition
  std::vector<double> rep_s;        // seconds per repetition (all inner calls)
  double per_call_s(size_t i) const { return rep_s[i] / static_cast<double>(inner_count); }
};

// Sizes the inner loop so one repetition takes at least min_rep_s (untimed: one cold call, then
// batches timed as a whole, growing 2-10x, at most max_inner calls), runs `warmup` untimed
// repetitions of that size, then times `reps` repetitions.
Timed time_repeated(const std::function<void()>& body, int warmup, int reps, double min_rep_s,
                    int64_t max_inner = 1 << 20, Timer timer = Timer::Wall);

// The untimed warm-up repetitions time_repeated and warm_up_and_size run for `warmup` asked:
// at least one (it also confirms the loop's size), so that `--warmup 0` runs one and a suite
// records that count (it recorded 0, and compare refused it against a run of --warmup 1 that
// did the same work; review of 2026-12-05).
inline int warmups_run(int warmup) { return warmup > 1 ? warmup : 1; }

// Expected seconds that time_repeated spends on a body one call of which lasts call_s: the cold
// call, the sizing (one call where a call outlasts min_rep_s, else batches adding up to less than
// two repetitions), the warm-ups that run and the timed repetitions, each one call or the whole
// calls that fill min_rep_s (max_inner not reached). For the suites' expected durations: a call longer than min_rep_s makes a repetition of
// one call, and every size runs at least warmups_run(warmup) + reps + 2 of them. Before
// 2026-12-06 the suites counted a repetition as min_rep_s whatever their call lasted, and
// memory_latency, whose call at 512 MiB is a lap of its cycle (seconds), said "about 8 s" and
// took 125 s (review).
double expected_time_repeated_s(double call_s, int warmup, int reps, double min_rep_s);

// The two halves of time_repeated, for suites that interleave the repetitions of several cases:
// warm-up and inner-loop sizing (returns the inner count), and one timed repetition (seconds).
int64_t warm_up_and_size(const std::function<void()>& body, int warmup, double min_rep_s, int64_t max_inner, Timer timer);
double time_repetition(const std::function<void()>& body, int64_t inner_count, Timer timer);

// The same three on a clock given as a function returning seconds: the Timer forms call these
// with timer_now_s. Tests pass a simulated clock that the body advances, so the sizing and
// warm-up logic is checked on exact durations whatever the load of the machine running them.
using Clock = std::function<double()>;
Timed time_repeated(const std::function<void()>& body, int warmup, int reps, double min_rep_s, int64_t max_inner,
                    const Clock& now);
int64_t warm_up_and_size(const std::function<void()>& body, int warmup, double min_rep_s, int64_t max_inner,
                         const Clock& now);
double time_repetition(const std::function<void()>& body, int64_t inner_count, const Clock& now);

}  // namespace sextant::bench
