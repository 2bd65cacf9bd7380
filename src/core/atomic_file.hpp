#pragma once
// Atomic output: content goes to a temporary file beside the target (its folder is created when
// missing, as --csv DIR's is), is flushed and fsynced, then renamed over the target. A failure (disk full, permission) throws Error naming the path
// and leaves any previous file intact; the temporary is removed.
//
// Several outputs of one command (--json, every CSV of --csv DIR, --report) are committed as a
// set: every file is staged first, and only when all are written are they renamed into place,
// with SIGINT/SIGTERM/SIGHUP blocked during the renames. A failure or an interruption therefore
// leaves either the whole previous set or the whole new one, never a mix and never a temporary.
//
// Signal safety. The one piece of process-wide mutable state in the library lives here: a
// fixed table of the temporaries currently on disk. It exists only so that a signal handler
// (install_temp_cleanup_on_signals(), called once by the CLI's main) can unlink them before the
// process dies; the handler uses nothing but unlink(2), signal(2) and raise(3), all
// async-signal-safe. Nothing else reads the table and no result depends on it. A process that
// never installs the handler only pays for the bookkeeping. Beyond kMaxLiveTemporaries files
// staged at once, the extra temporaries are still removed on errors but not on signals.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sextant {

void write_file_atomic(const std::string& path, std::string_view content);
std::string read_file(const std::string& path);  // throws Error naming the path (missing, directory, read error)
inline std::string read_file_text(const std::string& path) { return read_file(path); }

class AtomicFileSet {
 public:
  AtomicFileSet() = default;
  AtomicFileSet(const AtomicFileSet&) = delete;
  AtomicFileSet& operator=(const AtomicFileSet&) = delete;
  ~AtomicFileSet();  // removes the temporaries of an uncommitted set

  // Writes content to a temporary beside path (fsynced). "-" and "/dev/stdout" (standard output)
  // and other non-regular files (/dev/null, /dev/full, a FIFO) are written at commit(), first.
  void stage(const std::string& path, std::string_view content);
  // A registered temporary name beside path for a writer that creates the file itself (it
  // must write exactly that name); renamed over path by commit(), or, for a special file
  // (a device, a FIFO, standard output), a temporary elsewhere copied to it by commit().
  // A symbolic link is written through, here and in stage().
  std::string reserve(const std::string& path);
  // Unlinks path at commit(), after the renames (a missing or unremovable file is no error): a file an earlier
  // run of the same output wrote that the new set no longer has (a --csv folder's table).
  void remove_at_commit(const std::string& path);
  // Writes the special files, then renames every temporary over its target, then removes the
  // files named by remove_at_commit().
  void commit();

 private:
  // Throws Error when path is already an entry (standard output counted once, whatever its name;
  // /dev/null exempt).
  void check_distinct(const std::string& path) const;
  struct Entry {
    std::string path;
    std::string tmp;       // empty for special files
    std::string content;   // special files only
    bool copy_to_special = false;  // reserved for a special file: tmp is copied to it at commit()
  };
  std::vector<Entry> entries_;
  std::vector<std::string> removals_;
  bool committed_ = false;
};

// Installs SIGINT, SIGTERM and SIGHUP handlers that unlink every live temporary, then re-raise
// the signal with its default action (the exit status still says which signal ended the run).
void install_temp_cleanup_on_signals();

inline constexpr size_t kMaxLiveTemporaries = 1024;

}  // namespace sextant
