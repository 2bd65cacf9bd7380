#pragma once
// Child processes: running a command with its output captured (the MPI helper), and running a
// user's command repeatedly with its resource usage (`sextant bench run -- CMD`).
#include <cstdint>
#include <string>
#include <vector>

namespace sextant::bench {

struct ProcessResult {
  int exit_code = -1;      // exit status; -1 when killed by a signal
  int signal = 0;          // terminating signal; 0 when it exited
  double wall_s = 0;
  double user_s = 0, sys_s = 0;  // from wait4's rusage (the child and its waited-for children)
  int64_t max_rss_bytes = 0;     // peak resident set of the largest process (ru_maxrss)
  // The launcher's own peak resident set when it spawned the command (VmHWM): Linux carries the
  // peak of the memory a process had before exec into ru_maxrss, and a vfork-like spawn starts
  // in the launcher's memory, so max_rss_bytes is at least about this (0: unknown).
  int64_t max_rss_floor_bytes = 0;
  std::string output;            // stdout+stderr when captured
};

// Runs argv (argv[0] searched in PATH) and waits. capture: collect stdout and stderr into
// output; otherwise they go to /dev/null (quiet) or are inherited (!quiet). timeout_s > 0 kills
// the child's process group with SIGKILL when exceeded (exit_code -1, signal 9).
// Throws Error when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, bool capture, bool quiet = true, double timeout_s = 0);

// The absolute path of an executable found in PATH (or the path itself when it has a slash and
// exists); empty when not found.
std::string find_in_path(const std::string& name);

// The folder of the running executable (/proc/self/exe); empty when unknown.
std::string executable_dir();

// argv as a shell command line that runs it again when pasted into bash, zsh or ksh: the name of a
// `bench run` case. A word of letters, digits and @%+=:,./-_ stays as it is (quoted where a shell
// reads it otherwise: an argv[0] with '=', an assignment; a word starting with '=', zsh's command
// path expansion; an argv[0] starting with '%', bash's job control); any other word is single-quoted, ' as
// '"'"'; a word with control characters or bytes that are not UTF-8 is written $'...' with those
// bytes as \xHH (a name stays valid UTF-8, and two commands differ in name when their argv
// differ). Before 2026-12-05 the words were joined with spaces, so `sh -c 'a b' c` and
// `sh -c 'a b c'` had one name.
std::string shell_quote(const std::string& word, bool first_word = false);
std::string shell_command_line(const std::vector<std::string>& argv);

}  // namespace sextant::bench
