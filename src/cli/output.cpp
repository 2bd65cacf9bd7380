#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "cli/cli.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/result_json.hpp"

namespace sextant::cli {

// A --timeline whose name ends in .gz is written as gzip (review of 2026-12-06: plain JSON had
// gone under the .gz name, which gunzip, Python's gzip.open and Perfetto refused). The case of the
// suffix does not matter; standard output ("-") is written as text.
bool names_gzip(const std::string& path) {
  if (path.size() < 3) return false;
  const std::string tail = path.substr(path.size() - 3);
  return tail[0] == '.' && std::tolower(static_cast<unsigned char>(tail[1])) == 'g' && std::tolower(static_cast<unsigned char>(tail[2])) == 'z';
}

// The bytes of a one-member gzip file holding text, at zlib level 6 as `trace synth --gzip`
// writes (src/trace/synth.cpp). Shared by `simulate --timeline` and Python's simulate(timeline=) (2026-12-06
// review: Python wrote plain JSON under a .gz name). Compressed in memory, not through gzopen as synth streams its
// files, so that the timeline is staged and renamed with --json, --csv and --report as before
// (AtomicFileSet): a failed run leaves the previous file (review of 2026-12-06).
std::string gzip_text(std::string_view text, const std::string& path, const std::string& option) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16 /* gzip header and trailer */, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error(SourceLocation{path, 0, 0, option}, "cannot start the gzip compression (out of memory?)");
  std::string out;
  out.reserve(text.size() / 8 + 1024);  // Chrome trace JSON deflates about 10x
  constexpr size_t kChunkBytes = size_t{1} << 20;
  char buf[1 << 16];
  size_t pos = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (zs.avail_in == 0 && pos < text.size()) {  // avail_in is 32-bit: fed in chunks
      const size_t n = std::min(kChunkBytes, text.size() - pos);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + pos));
      zs.avail_in = static_cast<uInt>(n);
      pos += n;
    }
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = deflate(&zs, pos == text.size() ? Z_FINISH : Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      deflateEnd(&zs);
      throw Error(SourceLocation{path, 0, 0, option}, "gzip compression failed");
    }
    out.append(buf, sizeof buf - zs.avail_out);
  }
  deflateEnd(&zs);
  return out;
}


namespace {
struct ReportHolder {
  ReportWriter writer;
  std::function<void()> preflight;  // throws when the writer could not work (no charting library)
};
ReportHolder& report_holder() {
  static ReportHolder h;  // set once at start-up by main(), read-only afterwards
  return h;
}
}  // namespace

void set_report_writer(ReportWriter w, std::function<void()> preflight) {
  report_holder().writer = std::move(w);
  report_holder().preflight = std::move(preflight);
}

// The folder an output will be written into, or its nearest existing ancestor (the missing ones
// are created): an Error naming the option when that is not a writable folder. Shared with the
// Python module, which names its argument (review of 2026-12-06: simulate(timeline=) and
// plan(write_scenario=) had run first and failed after the run, leaving an empty folder).
void check_output_path(const std::string& option, const std::string& path, bool is_folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw Error(SourceLocation{"", 0, 0, option}, "an empty path: give a file or folder name");
  // As the writer: a NUL would cut the path short here and the check pass for another file (a
  // Python string may hold one).
  if (path.find('\0') != std::string::npos)
    throw Error(SourceLocation{path.substr(0, path.find('\0')), 0, 0, option}, "the path holds a NUL byte (\\0): no file has such a name");
  if (!is_folder) {
    // A file output that names a folder failed after the whole run ("rename failed: Is a
    // directory"), and one ending in '/' left an empty folder behind (2026-12-04 review).
    if (path.back() == '/' || fs::is_directory(path, ec))
      throw Error(SourceLocation{path, 0, 0, option}, "'" + path + "' names a folder: " + option + " takes a file name", "give a file name");
    // An existing special file (/dev/null, /dev/stdout, a pipe from the shell's >(...)) is
    // written in place: what counts is that it can be opened for writing, not its folder.
    const fs::file_status st = fs::status(path, ec);
    if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
      if (::access(path.c_str(), W_OK) != 0)
        throw Error(SourceLocation{path, 0, 0, option}, std::string("cannot write to it (") + std::strerror(errno) + ")", "give another path");
      return;
    }
  }
  fs::path at = is_folder ? fs::path(path) : fs::path(path).parent_path();
  if (at.empty()) at = ".";
  while (!fs::exists(at, ec) && at.has_relative_path() && at.has_parent_path() && at != at.parent_path()) at = at.parent_path();
  if (!fs::exists(at, ec)) return;  // a relative path whose first folder is missing: created in "."
  if (!fs::is_directory(at, ec))
    throw Error(SourceLocation{path, 0, 0, option}, "'" + at.string() + "' is a file, not a folder: the output cannot be written under it");
  // A file made and removed at once: access(W_OK) says yes to root on /proc, where no file can be made.
  std::string probe = (at / ".sextant-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0)
    throw Error(SourceLocation{path, 0, 0, option}, "cannot write into the folder '" + at.string() + "' (" + std::strerror(errno) + ")",
                "give another path");
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace {
// One place for --csv's folder and --json's or --report's file: the folder was created, then the
// file could not replace it. Compared as places, not as text (`--csv res --json ./res` got by).
bool same_place(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  namespace fs = std::filesystem;
  std::error_code ec1, ec2;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec1), ec1), cb = fs::weakly_canonical(fs::absolute(b, ec2), ec2);
  return (ec1 || ec2) ? a == b : ca == cb;
}
// The file outputs asked for, by option: --json, --report and the command's own (--timeline).
std::vector<std::pair<std::string, std::string>> file_outputs(const OutputOptions& o) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!o.json.empty()) out.emplace_back("--json", o.json);
  if (!o.report.empty()) out.emplace_back("--report", o.report);
  for (const auto& [option, path] : o.extra_files)
    if (path && !path->empty()) out.emplace_back(option, *path);
  return out;
}
void check_csv_apart(const OutputOptions& o) {
  if (o.csv_dir.empty()) return;
  for (const auto& [option, path] : file_outputs(o))
    if (same_place(o.csv_dir, path))
      throw Error(SourceLocation{o.csv_dir, 0, 0, "--csv"}, "is also the path of " + option, "give each output its own path");
}
// Two file outputs at one place: one overwrote the other, or two documents ran together on
// standard output. Found when the files were staged, after the whole run, before 2026-12-05
// (`--timeline t.json --json t.json`); /dev/null may take any number, as there.
void check_files_apart(const OutputOptions& o) {
  const auto files = file_outputs(o);
  auto to_stdout = [](const std::string& p) { return p == "-" || p == "/dev/stdout"; };
  for (size_t i = 0; i < files.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const std::string &a = files[j].second, &b = files[i].second;
      const bool both_stdout = to_stdout(a) && to_stdout(b);
      const bool one_file = !to_stdout(a) && !to_stdout(b) && a != "/dev/null" && same_place(a, b);
      if (!both_stdout && !one_file) continue;
      throw Error(SourceLocation{b, 0, 0, files[i].first},
                  both_stdout ? "writes to standard output, as " + files[j].first + " does" : "is also the path of " + files[j].first,
                  "give each output its own path");
    }
}

// An output at the place of a file the command reads: `simulate job.yaml --timeline job.yaml`
// replaced the only copy of the scenario with the trace and exited 0 (review of 2026-12-06;
// --json and --report did the same). Every value given to a non-output option (and the part after
// '=' of a KEY=VALUE, as --set accelerator=FILE) that names an existing file is an input.
void check_inputs_apart(const CLI::App& cmd, const OutputOptions& o) {
  const auto files = file_outputs(o);
  if (files.empty()) return;
  std::set<std::string> output_options{"--json", "--csv", "--report"};
  for (const auto& f : files) output_options.insert(f.first);
  for (const CLI::Option* opt : cmd.get_options()) {
    bool is_output = false;
    for (const auto& name : opt->get_lnames()) is_output = is_output || output_options.count("--" + name) > 0;
    if (is_output) continue;
    for (const std::string& value : opt->results()) {
      std::vector<std::string> candidates{value};
      if (const auto eq = value.find('='); eq != std::string::npos) candidates.push_back(value.substr(eq + 1));
      for (const std::string& input : candidates) {
        std::error_code ec;
        if (input.empty() || input == "-" || !std::filesystem::is_regular_file(input, ec)) continue;
        for (const auto& [option, path] : files)
          if (path != "-" && path != "/dev/stdout" && path != "/dev/null" && same_place(input, path))
            throw Error(SourceLocation{path, 0, 0, option},
                        "is also the input '" + input + "' (" + (opt->get_name().empty() ? std::string("argument") : opt->get_name()) +
                            "): writing it would replace the file being read",
                        "give the output another path");
      }
    }
  }
}

// Output problems that can be seen before the command runs are reported then, not after a search
// of minutes whose result would be lost (2026-12-03 review: a missing charting library or an
// unwritable --report folder failed plan after the whole search, writing no --json either).
// A command's own output file (simulate's --timeline) is checked as --json is: a path that could
// not be written failed after the whole simulation without naming the option ("cannot open for
// writing" for /proc/sys/x.json), and one ending in '/' failed there too, leaving an empty folder
// (review of 2026-12-05).
void preflight_outputs(const OutputOptions& o) {
  check_csv_apart(o);
  check_files_apart(o);
  if (!o.json.empty() && !o.json_to_stdout()) check_output_path("--json", o.json, false);
  for (const auto& [option, path] : o.extra_files)
    if (path && !path->empty() && *path != "-" && *path != "/dev/stdout") check_output_path(option, *path, false);
  if (!o.csv_dir.empty()) check_output_path("--csv", o.csv_dir, true);
  if (!o.report.empty()) {
    check_output_path("--report", o.report, false);
    if (!report_holder().writer) throw Error("--report: this build has no report writer");
    if (report_holder().preflight) report_holder().preflight();
  }
}

// An empty path is refused (it wrote nothing and exited 0 before 2026-12-03; --timeline before
// 2026-12-05).
std::string not_empty(const std::string& path) { return path.empty() ? "an empty path: give a file or folder name" : std::string(); }
}  // namespace

void check_not_input(const std::string& option, const std::string& output, const std::string& input) {
  std::error_code ec;
  if (output.empty() || output == "-" || output == "/dev/stdout" || output == "/dev/null" || input.empty() ||
      !std::filesystem::is_regular_file(input, ec) || !same_place(input, output))
    return;
  throw Error(SourceLocation{output, 0, 0, option}, "is also the input '" + input + "': writing it would replace the file being read",
              "give the output another path");
}

CLI::Option* add_output_file_option(CLI::App& cmd, OutputOptions& o, const std::string& name, std::string& path,
                                    const std::string& description) {
  o.extra_files.emplace_back(name, &path);
  return cmd.add_option(name, path, description)->check(not_empty);
}

void add_output_options(CLI::App& cmd, OutputOptions& o) {
  cmd.add_option("--json", o.json, "Write the result as JSON to FILE ('-' for standard output)")->check(not_empty);
  cmd.add_option("--csv", o.csv_dir, "Write one CSV per result table (and scalars.csv, notes.csv) into DIR")
      ->check(not_empty)
      ->check([](const std::string& dir) -> std::string {
        // Several tables cannot share standard output (a folder named '-' was created before 2026-12-02).
        return dir == "-" ? "--csv writes a folder of CSV files, not to standard output: give a folder, or --json - for standard output"
                          : std::string();
      });
  cmd.add_option("--report", o.report, "Write a self-contained HTML report to FILE")
      ->check(not_empty)
      ->check([](const std::string& path) -> std::string {
        // (a file named '-' was written, where --json - writes to standard output; before 2026-12-03)
        if (path == "-") return "--report writes an HTML file, not to standard output: give a file name";
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) return "'" + path + "' is a folder: --report takes the HTML file's name";
        return std::string();
      });
  cmd.add_flag("-q,--quiet", o.quiet, "Do not print the result table");
  cmd.parse_complete_callback([&o, &cmd] {
    check_inputs_apart(cmd, o);
    preflight_outputs(o);
  });
}

void emit(const Result& r, const OutputOptions& o, const std::vector<std::pair<std::string, std::string>>& extra_files) {
  // Every requested file is staged as a temporary first and renamed into place only when all are
  // written (AtomicFileSet): a failure (disk full, unwritable folder) or a signal leaves the
  // previous outputs, never a partial set. Names or strings that are not valid UTF-8 (from a
  // trace or a config) are written with U+FFFD in the JSON rather than failing the run.
  AtomicFileSet files;
  check_csv_apart(o);
  if (!o.json.empty())
    files.stage(o.json, render_json(r));
  if (!o.csv_dir.empty()) stage_csv_dir(r, o.csv_dir, files);
  if (!o.report.empty()) {
    if (!report_holder().writer) throw Error("--report: this build has no report writer");
    const std::string tmp = files.reserve(o.report);
    try {
      report_holder().writer(r, tmp);
    } catch (const Error& e) {
      // The writer writes the staged temporary: name the file the user asked for (an error about
      // another file, such as the charting library, is passed on as it is).
      if (e.where().file != tmp) throw;
      SourceLocation at = e.where();
      at.file = o.report;
      throw Error(at, e.message(), e.hint());
    }
  }
  for (const auto& [path, content] : extra_files) files.stage(path, content);
  files.commit();
  // The table is not printed after a JSON document on standard output, however it is spelled
  // (`--json /dev/stdout` printed both, 2026-12-04 review), nor after another file written there
  // (`plan --write-scenario -` had been followed by the table, a YAML no reader took; 2026-12-06).
  bool stdout_taken = o.json_to_stdout();
  for (const auto& extra : extra_files) stdout_taken = stdout_taken || extra.first == "-" || extra.first == "/dev/stdout";
  if (!o.quiet && !stdout_taken) {
    const std::string text = render_text(r);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
}

std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets, const std::string& example) {
  std::vector<std::pair<std::string, std::string>> out;
  // A key given twice is refused, as a key twice in a file and a repeated --fix are: the last had
  // won silently (review of 2026-12-06). Keys are compared as the override reads them
  // (processes[0].shape is processes.0.shape).
  std::map<std::string, size_t> seen;  // key, list indices as .N -> its entry in out
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(SourceLocation{"--set", 0, 0, s}, "expected KEY=VALUE, e.g. --set " + example);
    const std::string key = s.substr(0, eq), value = s.substr(eq + 1);
    std::string same;
    for (const char c : key)
      if (c == '[') same += '.';
      else if (c != ']') same += c;
    if (const auto [it, fresh] = seen.emplace(same, out.size()); !fresh)
      throw Error(SourceLocation{"--set", 0, 0, key},
                  "is given twice: '" + out[it->second].second + "'" + (out[it->second].first == key ? "" : " (as " + out[it->second].first + ")") +
                      ", then '" + value + "'",
                  "give each key once");
    // A whole value after a key inside it replaces that key's value without a word (`--set
    // parallel.tp=4 --set parallel={tp: 8, ...}` ran at tp 8; review of 2026-12-06). The other
    // order edits the whole value given first, and stays.
    for (const auto& [earlier, at] : seen)
      if (earlier.size() > same.size() && earlier.compare(0, same.size(), same) == 0 && earlier[same.size()] == '.')
        throw Error(SourceLocation{"--set", 0, 0, key},
                    "replaces the whole of '" + key + "' after --set " + out[at].first + "=" + out[at].second +
                        " set a key inside it, whose value would be lost",
                    "give the whole value first and then the keys inside it, or fold " + out[at].first + " into the whole value");
    out.emplace_back(key, value);
  }
  return out;
}

}  // namespace sextant::cli
