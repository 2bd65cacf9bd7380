#include "cli/mpi_world.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>

#include "core/error.hpp"

#ifdef SEXTANT_HAVE_MPI
#include <dlfcn.h>
#include <unistd.h>

#include <climits>

#include "cli/mpi/module_abi.h"
#endif

namespace sextant::cli {

namespace {

SourceLocation mpirun_location() { return SourceLocation{"mpirun", 0, 0, "OMPI_COMM_WORLD_SIZE"}; }

std::string world_size_text() {
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  return n ? n : "?";
}

#ifdef SEXTANT_HAVE_MPI
// The directory of the running executable: the MPI module is built and installed beside it.
std::string executable_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  const std::string exe(buf, static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  return slash == std::string::npos ? std::string(".") : exe.substr(0, slash);
}

// Opens libsextant_mpi.so beside the executable (only ever under mpirun) and checks its ABI.
const SextantMpiModule* open_mpi_module() {
  const std::string path = executable_dir() + "/" + SEXTANT_MPI_MODULE_FILE;
  const std::string why = "launched by mpirun with " + world_size_text() + " ranks, but the MPI module " + path;
  const std::string hint = "build the target sextant_mpi (ninja sextant builds it) and keep " SEXTANT_MPI_MODULE_FILE
                           " beside the sextant executable, or run without mpirun";
  // RTLD_GLOBAL: Open MPI's components (opened by libmpi itself) resolve libmpi's symbols globally.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* e = dlerror();
    throw Error(mpirun_location(), why + " cannot be loaded: " + (e ? e : "unknown dlopen error"), hint);
  }
  const auto entry = reinterpret_cast<SextantMpiModuleEntry>(dlsym(handle, SEXTANT_MPI_MODULE_ENTRY));
  const SextantMpiModule* m = entry ? entry() : nullptr;
  if (!m || m->abi_version != SEXTANT_MPI_MODULE_ABI_VERSION)
    throw Error(mpirun_location(),
                why + (m ? " has interface version " + std::to_string(m->abi_version) + ", this sextant needs " +
                               std::to_string(SEXTANT_MPI_MODULE_ABI_VERSION)
                         : std::string(" does not export " SEXTANT_MPI_MODULE_ENTRY)),
                hint);
  return m;  // never closed: Open MPI must not be unloaded after MPI_Finalize
}

void check_mpi(const SextantMpiModule* m, int rc, const char* call) {
  if (rc == 0) return;
  char text[512];
  m->error_string(rc, text, sizeof text);
  throw Error(std::string(call) + " failed: " + text);
}
#endif

constexpr std::streamoff kFileEndBytes = 64 * 1024;

// The bytes [offset, offset + n) of an open file, or "" when they cannot be read.
std::string read_span(std::ifstream& in, std::streamoff offset, std::streamoff n) {
  std::string buf(static_cast<size_t>(n), '\0');
  in.clear();
  in.seekg(offset);
  in.read(buf.data(), n);
  buf.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return buf;
}

// The hash of a file that cannot be opened: its error, alike on every rank that meets it.
uint64_t unreadable_hash(const std::string& path) {
  Fnv1a64 h;
  h.add_text("unreadable");
  h.add_text(path);
  h.add_text(std::strerror(errno));
  return h.value();
}

}  // namespace

void Fnv1a64::add(std::string_view bytes) {
  for (const char c : bytes) {
    h_ ^= static_cast<unsigned char>(c);
    h_ *= 1099511628211ull;
  }
}

void Fnv1a64::add_u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) {  // little-endian whatever the machine's order
    h_ ^= (v >> (8 * i)) & 0xffu;
    h_ *= 1099511628211ull;
  }
}

void Fnv1a64::add_double(double v) {
  uint64_t bits = 0;
  static_assert(sizeof bits == sizeof v);
  std::memcpy(&bits, &v, sizeof bits);
  add_u64(bits);
}

void Fnv1a64::add_text(std::string_view text) {
  add_u64(text.size());
  add(text);
}

InputPart command_line_part() {
  Fnv1a64 h;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t first_end = all.find('\0');  // argv[0], the program's path, is left out
  h.add_text(first_end == std::string::npos ? std::string_view() : std::string_view(all).substr(first_end + 1));
  return {"the command line", h.value()};
}

uint64_t file_ends_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unreadable_hash(path);
  in.seekg(0, std::ios::end);
  const std::streamoff size = std::max<std::streamoff>(in.tellg(), 0);
  Fnv1a64 h;
  h.add_u64(static_cast<uint64_t>(size));
  h.add_text(read_span(in, 0, std::min(size, kFileEndBytes)));
  if (size > kFileEndBytes) h.add_text(read_span(in, std::max(size - kFileEndBytes, kFileEndBytes), std::min(size - kFileEndBytes, kFileEndBytes)));
  return h.value();
}

uint64_t file_bytes_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unreadable_hash(path);
  Fnv1a64 h;
  h.add_text(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  return h.value();
}

bool MpiWorld::launched_by_mpirun() {
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  return n && std::atoi(n) > 1;
}

int MpiWorld::launcher_rank() {
  if (!launched_by_mpirun()) return 0;
  const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
  return r ? std::atoi(r) : 0;
}

MpiWorld::MpiWorld() : uncaught_(std::uncaught_exceptions()) {
  if (!launched_by_mpirun()) return;
#ifdef SEXTANT_HAVE_MPI
  module_ = open_mpi_module();
  int here = 0;
  check_mpi(module_, module_->init(&rank_, &size_, &here), "MPI_Init");
  initialised_ = here != 0;
#else
  throw Error(mpirun_location(), "launched by mpirun with " + world_size_text() + " ranks, but this sextant was built without MPI",
              "install libopenmpi-dev (scripts/install-deps.sh) and rebuild, or run without mpirun");
#endif
}

MpiWorld::~MpiWorld() {
#ifdef SEXTANT_HAVE_MPI
  if (initialised_ && std::uncaught_exceptions() == uncaught_) module_->finalize();
#endif
}

std::string MpiWorld::all_gather(const std::string& mine) const {
  if (size_ == 1) return mine;
#ifdef SEXTANT_HAVE_MPI
  // A share of 2 GiB or more is sent as -1, so that every rank sees it and refuses together (the
  // size had been cut to an int before the check; one rank throwing alone would hang the rest).
  const int n = mine.size() > 2147483647u ? -1 : static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  check_mpi(module_, module_->all_gather_int(n, counts.data()), "MPI_Allgather");
  int64_t total = 0;
  for (int i = 0; i < size_; ++i) {
    displs[static_cast<size_t>(i)] = static_cast<int>(std::min<int64_t>(total, 2147483647));
    total += counts[static_cast<size_t>(i)] < 0 ? int64_t{1} << 40 : counts[static_cast<size_t>(i)];
  }
  if (total > 2147483647)
    throw Error(SourceLocation{"mpirun", 0, 0, ""}, "MPI gather of more than 2 GiB (MPI counts are ints)",
                "plan and sweep: fix some plan dimensions with --fix; analyze: run without mpirun, or analyse fewer rank files per run");
  std::string all(static_cast<size_t>(total), '\0');
  check_mpi(module_, module_->all_gather_bytes(mine.data(), n, all.data(), counts.data(), displs.data()), "MPI_Allgatherv");
  return all;
#else
  return mine;
#endif
}

void MpiWorld::require_same_inputs(const std::vector<InputPart>& parts, const std::string& hint) const {
  if (size_ == 1) return;
  std::string mine;
  auto put = [&mine](uint64_t v) { mine.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(parts.size());
  for (const auto& p : parts) put(p.hash);
  const std::string all = all_gather(mine);
  // Every rank's list of hashes, in rank order (a rank's list may be longer or shorter than rank
  // 0's: another command line can take another path through the command).
  std::vector<std::vector<uint64_t>> ranks;
  size_t pos = 0;
  auto get = [&all, &pos]() {
    uint64_t v = 0;
    if (all.size() - pos < sizeof v) throw Error("mpirun: damaged gather buffer");
    std::memcpy(&v, all.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  };
  while (pos < all.size()) {
    const uint64_t n = get();
    if (n > (all.size() - pos) / sizeof(uint64_t)) throw Error("mpirun: damaged gather buffer");
    auto& r = ranks.emplace_back();
    for (uint64_t i = 0; i < n; ++i) r.push_back(get());
  }
  if (ranks.size() != static_cast<size_t>(size_)) throw Error("mpirun: damaged gather buffer");
  std::vector<std::string> differing;  // for every rank that differs from rank 0: "R in WHAT"
  for (size_t r = 1; r < ranks.size(); ++r) {
    if (ranks[r] == ranks[0]) continue;
    std::vector<std::string> what;
    for (size_t i = 0; i < std::min({ranks[r].size(), ranks[0].size(), parts.size()}); ++i)
      if (ranks[r][i] != ranks[0][i]) what.push_back(parts[i].what);
    if (ranks[r].size() != ranks[0].size())
      what.push_back("the number of inputs compared (" + std::to_string(ranks[r].size()) + ", rank 0 " + std::to_string(ranks[0].size()) + ")");
    if (what.size() > 4) {  // a job of a thousand trace files names a few
      const size_t more = what.size() - 3;
      what.resize(3);
      what.push_back(std::to_string(more) + " more");
    }
    std::string words;
    for (size_t i = 0; i < what.size(); ++i) words += (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") + what[i];
    differing.push_back(std::to_string(r) + " in " + words);
  }
  if (differing.empty()) return;
  if (rank_ != 0) throw CLI::RuntimeError(2);  // rank 0 says why; the same text from every rank would only repeat it
  std::string list;
  const size_t shown = std::min<size_t>(differing.size(), 8);
  for (size_t i = 0; i < shown; ++i) list += (i == 0 ? "rank " : "; rank ") + differing[i];
  if (differing.size() > shown) list += "; and " + std::to_string(differing.size() - shown) + " more ranks";
  throw Error(SourceLocation{"mpirun", 0, 0, ""},
              "the " + std::to_string(size_) + " ranks do not read the same inputs (their shares of the work would be mixed into one result): " +
                  "compared with rank 0, " + list,
              hint);
}

}  // namespace sextant::cli
