// The fuzz targets' own main for builds without libFuzzer (GCC, the Release and ASan builds that
// `make test` runs). It replays every input of the seed corpora, then runs a fixed number of
// random mutations of them, deterministically from a seed:
//
//   fuzz_json_codec [-runs=N] [-seed=S] [-max_len=BYTES] [-timeout=SECONDS] CORPUS_DIR_OR_FILE...
//
// This is a smoke test, not a fuzzer: it has no coverage feedback. `make fuzz` builds the same
// targets with clang's libFuzzer (coverage-guided) and runs them for as long as asked; both call
// the same LLVMFuzzerTestOneInput. A crash (a failed check, an exception escaping, a sanitizer
// report) or an input running past -timeout (default 10 s, like libFuzzer's slow-unit limit) leaves
// the input in ./fuzz-crash-<target> so it can be replayed and turned into a test.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being run, for the crash handler (which may only use async-signal-safe calls).
const std::string* gCurrent = nullptr;
unsigned gTimeout = 10;
char gCrashPath[512] = "fuzz-crash";

void onCrash(int sig) {
  if (sig == SIGALRM) {
    const char msg[] = "fuzz driver: an input ran longer than -timeout\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
  }
  if (gCurrent) {
    int fd = ::open(gCrashPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t ignored = ::write(fd, gCurrent->data(), gCurrent->size());
      (void)ignored;
      ::close(fd);
    }
    const char msg[] = "\nfuzz driver: the crashing input was written to ";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    ignored = ::write(2, gCrashPath, std::strlen(gCrashPath));
    ignored = ::write(2, "\n", 1);
    (void)ignored;
  }
  ::signal(SIGABRT, SIG_DFL);
  ::signal(sig, SIG_DFL);
  ::raise(sig == SIGALRM ? SIGABRT : sig);
}

// Byte sequences that make decoders take their rare paths.
const std::vector<std::string> kTokens = {"null",
                                          "{}",
                                          "[]",
                                          "\"\"",
                                          "0",
                                          "-1",
                                          "1e309",
                                          "9223372036854775808",
                                          "-9223372036854775809",
                                          "0.5",
                                          "true",
                                          "\"\\u0000\"",
                                          "{\"a\":",
                                          "]",
                                          "}",
                                          ",",
                                          ":",
                                          "\"metadata\"",
                                          "\"spec\"",
                                          "\"status\"",
                                          "\"items\"",
                                          "\"kind\"",
                                          "\"name\"",
                                          "\n",
                                          "---\n",
                                          "- ",
                                          ": ",
                                          "&a",
                                          "*a",
                                          "!!",
                                          "\r\n",
                                          "%",
                                          "Ki",
                                          "m",
                                          "e",
                                          "in",
                                          "notin",
                                          "!",
                                          "=",
                                          "==",
                                          "!=",
                                          "(",
                                          ")",
                                          "\xff",
                                          "\xc3"};

class Mutator {
 public:
  Mutator(uint64_t seed, size_t maxLen) : rng_(seed), maxLen_(maxLen) {}

  std::string mutate(const std::string& base, const std::vector<std::string>& corpus) {
    std::string s = base;
    const int rounds = 1 + pick(4);
    for (int i = 0; i < rounds; ++i) {
      switch (pick(8)) {
        case 0:  // flip a bit
          if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
          break;
        case 1:  // a random byte
          if (!s.empty()) s[pick(s.size())] = static_cast<char>(pick(256));
          break;
        case 2:  // insert a token
          s.insert(pick(s.size() + 1), kTokens[pick(kTokens.size())]);
          break;
        case 3: {  // delete a range
          if (s.empty()) break;
          const size_t at = pick(s.size());
          s.erase(at, 1 + pick(std::min<size_t>(16, s.size() - at)));
          break;
        }
        case 4: {  // duplicate a range
          if (s.empty()) break;
          const size_t at = pick(s.size());
          const size_t n = 1 + pick(std::min<size_t>(32, s.size() - at));
          s.insert(pick(s.size() + 1), s.substr(at, n));
          break;
        }
        case 5: {  // splice with another input
          const std::string& other = corpus[pick(corpus.size())];
          const size_t cut = pick(s.size() + 1);
          const size_t from = pick(other.size() + 1);
          s = s.substr(0, cut) + other.substr(from);
          break;
        }
        case 6:  // replace a byte with a digit (numbers, counts, lengths)
          if (!s.empty()) s[pick(s.size())] = static_cast<char>('0' + pick(10));
          break;
        default:  // truncate
          s.resize(pick(s.size() + 1));
          break;
      }
    }
    if (s.size() > maxLen_) s.resize(maxLen_);
    return s;
  }

 private:
  size_t pick(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  std::mt19937_64 rng_;
  size_t maxLen_;
};

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void run(const std::string& input) {
  gCurrent = &input;
  ::alarm(gTimeout);
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  ::alarm(0);
  gCurrent = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t runs = 0, seed = 1;
  size_t maxLen = 64 * 1024;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-runs=", 0) == 0) {
      runs = std::stoull(arg.substr(6));
    } else if (arg.rfind("-seed=", 0) == 0) {
      seed = std::stoull(arg.substr(6));
    } else if (arg.rfind("-max_len=", 0) == 0) {
      maxLen = std::stoull(arg.substr(9));
    } else if (arg.rfind("-timeout=", 0) == 0) {
      gTimeout = static_cast<unsigned>(std::stoul(arg.substr(9)));
    } else if (arg.rfind("-", 0) == 0) {
      std::cerr << "unknown flag " << arg
                << " (this driver takes -runs=, -seed=, -max_len=, -timeout=)\n";
      return 2;
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (std::filesystem::exists(arg)) {
      files.push_back(arg);
    } else {
      std::cerr << "no such corpus file or directory: " << arg << "\n";
      return 2;
    }
  }
  std::sort(files.begin(), files.end());  // the same order on every machine: reproducible runs
  const std::string target = std::filesystem::path(argv[0]).filename().string();
  std::snprintf(gCrashPath, sizeof gCrashPath, "fuzz-crash-%s", target.c_str());
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM}) ::signal(sig, onCrash);

  std::vector<std::string> corpus;
  for (const auto& f : files) corpus.push_back(readFile(f));
  for (const auto& input : corpus) run(input);
  if (corpus.empty()) corpus.push_back("");
  Mutator mutator(seed, maxLen);
  for (uint64_t i = 0; i < runs; ++i) run(mutator.mutate(corpus[i % corpus.size()], corpus));
  std::cout << target << ": " << files.size() << " corpus inputs and " << runs
            << " mutations (seed " << seed << ") ran without a defect\n";
  return 0;
}
