// The logger behind the facade: spdlog writing to standard error, or the
// user's sink. The level is an atomic read on every call so that disabled
// messages cost one load and no formatting.
#include "tunekit/core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "tunekit/core/utf8.hpp"

namespace tunekit::core::log {
namespace {

constexpr std::array<std::string_view, 6> kNames{"trace", "debug", "info", "warn", "error", "off"};

spdlog::level::level_enum to_spdlog(Level level) {
  switch (level) {
    case Level::TRACE: return spdlog::level::trace;
    case Level::DEBUG: return spdlog::level::debug;
    case Level::INFO: return spdlog::level::info;
    case Level::WARN: return spdlog::level::warn;
    case Level::ERROR: return spdlog::level::err;
    case Level::OFF: return spdlog::level::off;
  }
  return spdlog::level::off;
}

struct LoggerState {
  std::atomic<Level> level{Level::WARN};
  std::mutex sink_mutex;
  std::shared_ptr<const Sink> sink;  // replaced whole, read under the mutex
  std::shared_ptr<spdlog::logger> stderr_logger;

  LoggerState() {
    stderr_logger = std::make_shared<spdlog::logger>(
        "tunekit", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    stderr_logger->set_pattern("[tunekit %l] %v");
    stderr_logger->set_level(spdlog::level::trace);
  }
};

Level level_from_environment(Level fallback, bool report) {
  const char* text = std::getenv("TUNEKIT_LOG_LEVEL");
  if (text == nullptr || *text == '\0') return fallback;
  if (auto parsed = parse_level(text)) return *parsed;
  if (report) {
    write(Level::WARN, fmt::format("TUNEKIT_LOG_LEVEL='{}' is not one of trace, debug, info, warn, "
                                   "error, off; keeping level {}",
                                   text, to_string(fallback)));
  }
  return fallback;
}

LoggerState& state() {
  static LoggerState instance;
  static const bool initialised = [] {
    instance.level.store(level_from_environment(Level::WARN, false));
    return true;
  }();
  (void)initialised;
  return instance;
}

}  // namespace

std::string_view to_string(Level level) noexcept {
  return kNames[static_cast<std::size_t>(level)];
}

std::optional<Level> parse_level(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<Level>(i);
  }
  if (name == "warning") return Level::WARN;
  return std::nullopt;
}

void set_sink(Sink sink) {
  LoggerState& s = state();
  std::shared_ptr<const Sink> next = sink ? std::make_shared<const Sink>(std::move(sink)) : nullptr;
  std::lock_guard lock(s.sink_mutex);
  s.sink = std::move(next);
}

Level level() noexcept { return state().level.load(std::memory_order_relaxed); }

void set_level(Level level) noexcept { state().level.store(level, std::memory_order_relaxed); }

void apply_environment() { set_level(level_from_environment(level(), true)); }

bool enabled(Level lvl) noexcept { return lvl != Level::OFF && lvl >= level(); }

void write(Level level, std::string_view text) {
  // Messages quote file names and input; sinks (and terminals) get UTF-8.
  std::string repaired;
  std::string_view message = text;
  if (!is_valid_utf8(text)) message = repaired = replace_invalid_utf8(text);
  LoggerState& s = state();
  std::shared_ptr<const Sink> sink;
  {
    std::lock_guard lock(s.sink_mutex);
    sink = s.sink;
  }
  if (sink) {
    (*sink)(level, message);
  } else {
    s.stderr_logger->log(to_spdlog(level), "{}", message);
  }
}

}  // namespace tunekit::core::log
