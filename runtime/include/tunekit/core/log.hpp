// The one logger of tunekit. Levels follow TUNEKIT_LOG_LEVEL
// (trace|debug|info|warn|error|off, default warn); a user callback can take
// every message instead of standard error. spdlog stays inside the library.
#pragma once

#include <fmt/core.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tunekit::core::log {

enum class Level { TRACE, DEBUG, INFO, WARN, ERROR, OFF };

std::string_view to_string(Level level) noexcept;
std::optional<Level> parse_level(std::string_view name) noexcept;

// Called with every message at or above the current level. Must be
// thread-safe: messages can come from several threads at once.
using Sink = std::function<void(Level level, std::string_view message)>;

// Replaces the destination of messages; an empty sink restores standard error.
void set_sink(Sink sink);

Level level() noexcept;
void set_level(Level level) noexcept;

// Re-reads TUNEKIT_LOG_LEVEL; an unknown value leaves the level unchanged
// and is reported as a warning naming the variable and value.
void apply_environment();

bool enabled(Level level) noexcept;
// A message that is not valid UTF-8 (it quotes a file name or input bytes)
// reaches the sink with U+FFFD for each ill-formed part (core/utf8.hpp).
void write(Level level, std::string_view message);

template <typename... Args>
void emit(Level lvl, fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(lvl)) write(lvl, fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void trace(fmt::format_string<Args...> format, Args&&... args) {
  emit(Level::TRACE, format, std::forward<Args>(args)...);
}
template <typename... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  emit(Level::DEBUG, format, std::forward<Args>(args)...);
}
template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  emit(Level::INFO, format, std::forward<Args>(args)...);
}
template <typename... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) {
  emit(Level::WARN, format, std::forward<Args>(args)...);
}
template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
  emit(Level::ERROR, format, std::forward<Args>(args)...);
}

}  // namespace tunekit::core::log

namespace tunekit {
namespace log = core::log;
}  // namespace tunekit
