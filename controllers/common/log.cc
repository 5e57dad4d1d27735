#include "controllers/common/log.h"

#include <spdlog/formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace flotilla::controllers::log {

namespace {

// Fields of an object message travel in the payload separated by the ASCII unit separator, which
// never appears in keys or messages we produce; the formatter splits them again.
constexpr char kSeparator = '\x1f';

std::string timestamp(spdlog::log_clock::time_point t) {
  const auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(t - secs).count();
  const std::time_t tt = spdlog::log_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return buf;
}

struct Fields {
  std::string_view controller, key, message;
  bool structured = false;
};

Fields split(std::string_view payload) {
  Fields f;
  const auto a = payload.find(kSeparator);
  if (a == std::string_view::npos) {
    f.message = payload;
    return f;
  }
  const auto b = payload.find(kSeparator, a + 1);
  if (b == std::string_view::npos) {
    f.message = payload;
    return f;
  }
  f.controller = payload.substr(0, a);
  f.key = payload.substr(a + 1, b - a - 1);
  f.message = payload.substr(b + 1);
  f.structured = true;
  return f;
}

class Formatter final : public spdlog::formatter {
 public:
  explicit Formatter(Format format) : format_(format) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const Fields f = split(std::string_view(msg.payload.data(), msg.payload.size()));
    const auto level = spdlog::level::to_string_view(msg.level);
    std::string line;
    if (format_ == Format::kJson) {
      line = "{\"ts\":\"" + timestamp(msg.time) + "\",\"level\":\"";
      line.append(level.data(), level.size());
      line += "\"";
      if (f.structured) {
        line += ",\"controller\":";
        appendJsonString(line, f.controller);
        line += ",\"key\":";
        appendJsonString(line, f.key);
      }
      line += ",\"msg\":";
      appendJsonString(line, f.message);
      line += "}\n";
    } else {
      line = timestamp(msg.time) + " ";
      line.append(level.data(), level.size());
      line += " ";
      if (f.structured) {
        line += "[";
        line += f.controller;
        line += "] ";
        line += f.key;
        line += ": ";
      }
      line += f.message;
      line += "\n";
    }
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<Formatter>(format_);
  }

 private:
  Format format_;
};

void emit(spdlog::level::level_enum level, std::string_view controller, std::string_view key,
          std::string_view message) {
  if (!spdlog::should_log(level)) return;
  std::string payload;
  payload.reserve(controller.size() + key.size() + message.size() + 2);
  payload.append(controller).push_back(kSeparator);
  payload.append(key).push_back(kSeparator);
  payload.append(message);
  spdlog::log(level, "{}", payload);
}

}  // namespace

void appendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void setup(Format format, spdlog::level::level_enum level) {
  // Logs go to stderr (stdout stays free for a command's output), one line per message.
  spdlog::set_default_logger(spdlog::stderr_logger_mt("flotilla"));
  spdlog::set_formatter(std::make_unique<Formatter>(format));
  spdlog::set_level(level);
}

void info(std::string_view c, std::string_view k, std::string_view m) {
  emit(spdlog::level::info, c, k, m);
}
void warn(std::string_view c, std::string_view k, std::string_view m) {
  emit(spdlog::level::warn, c, k, m);
}
void error(std::string_view c, std::string_view k, std::string_view m) {
  emit(spdlog::level::err, c, k, m);
}
void debug(std::string_view c, std::string_view k, std::string_view m) {
  emit(spdlog::level::debug, c, k, m);
}

}  // namespace flotilla::controllers::log
