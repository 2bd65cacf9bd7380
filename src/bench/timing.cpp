#include "bench/timing.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace sextant::bench {

double timer_now_s(Timer t) {
  if (t == Timer::Wall) return now_s();
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

const char* to_string(Timer t) { return t == Timer::Wall ? "wall" : "cpu"; }

Timer parse_timer(const std::string& name) {
  if (name == "wall") return Timer::Wall;
  if (name == "cpu") return Timer::ProcessCpu;
  throw Error(SourceLocation{"", 0, 0, "--timer"}, "unknown timer '" + name + "'", valid_choices_hint(name, {"wall", "cpu"}));
}

double expected_time_repeated_s(double call_s, int warmup, int reps, double min_rep_s) {
  // A call shorter than min_rep_s: the sizing grows the loop by 1.2x its shortfall and at least
  // 2x, so a repetition is about ceil(1.2 min_rep_s / call_s) calls (2 calls of 9 ms against
  // 10 ms), and the sizing batches before it add up to less than two such repetitions.
  const double call = std::max(call_s, 0.0);
  const double rep = call >= min_rep_s ? call : call > 0 ? call * std::ceil(1.2 * min_rep_s / call) : min_rep_s;
  const double sizing = call >= min_rep_s ? call : 2 * rep;
  return call + sizing + static_cast<double>(warmups_run(warmup) + std::max(reps, 0)) * rep;
}

int64_t warm_up_and_size(const std::function<void()>& body, int warmup, double min_rep_s, int64_t max_inner, Timer timer) {
  return warm_up_and_size(body, warmup, min_rep_s, max_inner, Clock([timer] { return timer_now_s(timer); }));
}

double time_repetition(const std::function<void()>& body, int64_t inner_count, Timer timer) {
  return time_repetition(body, inner_count, Clock([timer] { return timer_now_s(timer); }));
}

Timed time_repeated(const std::function<void()>& body, int warmup, int reps, double min_rep_s, int64_t max_inner,
                    Timer timer) {
  return time_repeated(body, warmup, reps, min_rep_s, max_inner, Clock([timer] { return timer_now_s(timer); }));
}

int64_t warm_up_and_size(const std::function<void()>& body, int warmup, double min_rep_s, int64_t max_inner,
                         const Clock& timer) {
  // Sizing, untimed: one cold call (first touch, lazy initialisation, a BLAS's thread start-up),
  // then batches of inner calls, each timed as a whole and grown by the measured shortfall (at
  // least 2x, at most 10x) until one batch lasts min_rep_s. Extrapolating from a single call sized
  // the loop on the cold call: 64 calls of a 6 us GEMM made 0.4 ms repetitions against 10 ms.
  body();
  int64_t inner = 1;
  for (;;) {
    const double t = time_repetition(body, inner, timer);
    if (t >= min_rep_s || inner >= max_inner) break;
    const double grow = t > 0 ? std::clamp(1.2 * min_rep_s / t, 2.0, 10.0) : 10.0;
    inner = std::min(max_inner, static_cast<int64_t>(std::ceil(static_cast<double>(inner) * grow)));
  }
  // Warm-up: whole repetitions of the sized loop, untimed (at least one), which also confirm the
  // size: a sizing batch slowed by load had stopped the growth early, and the timed repetitions
  // of 128^3 lasted 7 ms against 10 (2026-12-06 review). One shorter than min_rep_s grows the
  // loop by its shortfall and the warm-ups start again, at most four times.
  for (int w = 0, grown = 0; w < warmups_run(warmup); ++w) {
    const double t = time_repetition(body, inner, timer);
    if (t < min_rep_s && inner < max_inner && grown < 4) {
      const double grow = t > 0 ? std::clamp(1.2 * min_rep_s / t, 1.1, 10.0) : 10.0;
      inner = std::min(max_inner, static_cast<int64_t>(std::ceil(static_cast<double>(inner) * grow)));
      ++grown;
      w = -1;
    }
  }
  return inner;
}

double time_repetition(const std::function<void()>& body, int64_t inner_count, const Clock& now) {
  const double t0 = now();
  for (int64_t i = 0; i < inner_count; ++i) body();
  return now() - t0;
}

Timed time_repeated(const std::function<void()>& body, int warmup, int reps, double min_rep_s, int64_t max_inner,
                    const Clock& timer) {
  if (reps < 1) throw Error(SourceLocation{"", 0, 0, "repetitions"}, "need at least one repetition");
  Timed t;
  t.inner_count = warm_up_and_size(body, warmup, min_rep_s, max_inner, timer);
  t.rep_s.reserve(static_cast<size_t>(reps));
  for (int r = 0; r < reps; ++r) t.rep_s.push_back(time_repetition(body, t.inner_count, timer));
  return t;
}

}  // namespace sextant::bench
