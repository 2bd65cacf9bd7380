#pragma once
// Fitting failure processes from a CSV of one's own incidents.
//
// CSV columns (header required): `time_h` (or `time_s`; incident time since the start of the
// observation), `category` (becomes the process name), optional `component` and `node_lost`
// (true/false). With the observation's node count and length, each category becomes a process
// with rate = count / (nodes x days) per node-day. With at least `min_events_for_shape` incidents,
// the Weibull shape of its inter-arrival times is fitted by maximum likelihood, with a 95% profile-
// likelihood interval; the Weibull is chosen over the exponential (shape 1, one parameter fewer)
// only when a likelihood-ratio test rejects the exponential at the 5% level (chi-square, 1 degree
// of freedom). Fewer incidents, or no evidence against shape 1, give an exponential process.
// Times with ties that share a resolution (whole hours; whole minutes in seconds or in decimal
// hours alike: a time lies on a unit within its printed rounding) are fitted as interval-censored at that
// resolution: dropping the ties had made Poisson incidents look regular (shape 1.34).
#include <string>
#include <vector>

#include "goodput/config.hpp"

namespace sextant::goodput {

struct FittedProcess {
  FailureProcess process;
  int64_t count = 0;
  double mean_interarrival_s = 0;
  double weibull_shape = 1;  // MLE (1 = not fitted)
  bool shape_fitted = false;   // the shape was estimated (enough incidents)
  double shape_ci_low = 1, shape_ci_high = 1;  // 95% profile-likelihood interval of the shape
  double lr_p_value = 1;       // likelihood-ratio test of shape 1 (exponential) against the Weibull
  bool weibull_selected = false;  // the process uses the Weibull (p < 0.05)
  // Times recorded at a resolution with ties (an hourly log): the gaps are fitted as interval-
  // censored at this resolution (s); 0: exact times (ties, if any, dropped: tied_gaps).
  double time_resolution_s = 0;
  int64_t tied_gaps = 0;  // gaps of 0 between consecutive incidents of the category
};

// The log-likelihood of positive samples under a Weibull of shape k with its scale at the MLE for
// that k (the profile likelihood); k = 1 is the exponential's maximum.
double weibull_profile_loglik(const std::vector<double>& x, double k);

std::vector<FittedProcess> fit_incidents(const std::string& csv_text, const std::string& name, double nodes, double days,
                                         int64_t min_events_for_shape = 10);
// Maximum-likelihood Weibull shape of positive samples (Newton on the profile likelihood).
double weibull_shape_mle(const std::vector<double>& x);
// A preset YAML (data/goodput format) for the fitted processes.
std::string fitted_preset_yaml(const std::vector<FittedProcess>& f, const std::string& name, double nodes, double days,
                               const std::string& source);

}  // namespace sextant::goodput
