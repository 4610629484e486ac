#include "check_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "check_profiles.hpp"
#include "exit_codes.hpp"
#include "tune_incumbent.hpp"
#include "tune_options.hpp"
#include "tune_shape.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/graph/override_file.hpp"
#include "tunekit/graph/shape_selection.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/internal/knob_json.hpp"

namespace tunekit::cli {
namespace {

using nlohmann::json;

struct CheckOptions {
  std::string overrides;
  TuneOptions tune;
  double margin_percent = 5.0;
  std::vector<std::string> profile_folders;  // --profiles: check processor profiles instead
  double key_time_budget_seconds = 10.0;
};

// What became of one shape's stored choice.
enum class Outcome {
  UNCHANGED,   // still the fastest, or not significantly slower than it
  CHANGED,     // significantly slower than the new fastest, within the margin
  REGRESSED,   // significantly slower than the new fastest by more than the margin
  UNUSABLE,    // stored, but it failed or is no longer a candidate
  NOT_STORED,  // no usable exact entry for the shape
  FAILED,      // the shape could not be tuned
};

std::string_view label(Outcome o) {
  switch (o) {
    case Outcome::UNCHANGED: return "unchanged";
    case Outcome::CHANGED: return "changed";
    case Outcome::REGRESSED: return "slower";
    case Outcome::UNUSABLE: return "unusable";
    case Outcome::NOT_STORED: return "not stored";
    case Outcome::FAILED: return "failed";
  }
  return "?";
}

struct ShapeCheck {
  Problem problem;
  // The stored winner and the new fastest raced against each other, when
  // the tune called the stored one slower: the figures that decide.
  std::optional<Problem> head_to_head;
  Outcome outcome = Outcome::FAILED;
  std::optional<StoredWinner> stored;
  StoredAgainstFastest found;
  std::optional<measure::Comparison> against_margin;  // the same samples, the margin as tie band
  std::string detail;
};

std::string candidate_text(const graph::AutotuneResult& r) {
  return fmt::format("'{}' {} {:.4f} ms", r.engine_name, graph::describe_knob_settings(r.knob_settings),
                     r.median_time_ms);
}

// Decides the outcome from `results` (the tune's, or the head-to-head race's)
// and the stored winner.
void judge(ShapeCheck& s, const std::vector<graph::AutotuneResult>& results, const graph::Handle& handle,
           const measure::ComparisonConfig& comparison, double margin) {
  if (s.problem.exit_code != 0) {
    s.outcome = Outcome::FAILED;
    s.detail = s.problem.error;
    return;
  }
  if (!s.stored) {
    s.outcome = Outcome::NOT_STORED;
    s.detail = "no usable entry for this shape: nothing to check";
    return;
  }
  s.found = find_stored_result(*s.stored, results, handle, comparison);
  s.against_margin.reset();
  const std::string stored_name = fmt::format("'{}' {}", s.stored->engine_name, s.stored->where);
  if (s.found.stored == nullptr) {
    s.outcome = Outcome::UNUSABLE;
    s.detail = fmt::format("the stored {} is no longer a candidate for this shape", stored_name);
    return;
  }
  if (!s.found.stored->succeeded) {
    s.outcome = Outcome::UNUSABLE;
    s.detail = fmt::format("the stored {} failed: {}", stored_name, s.found.stored->error_message);
    return;
  }
  const std::string raced =
      s.head_to_head ? fmt::format(" (head to head, {} and {} samples)", s.found.stored->samples_ms.size(),
                                   s.found.fastest ? s.found.fastest->samples_ms.size() : 0)
                     : std::string();
  if (!s.found.comparison) {
    s.outcome = Outcome::UNCHANGED;
    s.detail = fmt::format("{} is still the fastest{}", candidate_text(*s.found.stored), raced);
    return;
  }
  const measure::Comparison& c = *s.found.comparison;
  const std::string figures = fmt::format("{} -> {}: {}{}", candidate_text(*s.found.stored),
                                          candidate_text(*s.found.fastest), measure::describe(c, comparison), raced);
  if (c.verdict != measure::Verdict::FASTER) {
    s.outcome = Outcome::UNCHANGED;
    s.detail = figures + " (kept)";
    return;
  }
  measure::ComparisonConfig beyond = comparison;
  beyond.tie_band = margin;
  s.against_margin = measure::compare_times(s.found.fastest->samples_ms, s.found.stored->samples_ms, beyond);
  const bool regressed = s.against_margin->verdict == measure::Verdict::FASTER;
  s.outcome = regressed ? Outcome::REGRESSED : Outcome::CHANGED;
  s.detail = fmt::format("{}; {} the {:g}% margin", figures,
                         regressed ? "significantly beyond" : "not shown beyond", margin * 100.0);
}

// One tune measures each candidate in turn, so a slow phase of a shared
// machine can fall on one of them: before a stored winner is called slower,
// it and the new fastest race each other in interleaved rounds (at least 10
// samples each, at most 60 rounds), and that race decides.
void race_head_to_head(ShapeCheck& s, const graph::GraphFile& file, const std::string& path,
                       std::optional<std::size_t> set, graph::Handle& handle, const TuneOptions& tune,
                       const measure::ComparisonConfig& comparison, double margin) {
  TuneOptions race = tune;
  race.isolate = false;
  race.strategy = "race";
  race.race_min_samples = std::max(tune.race_min_samples, 10);
  race.iterations = 60;
  race.only_candidates = {{s.found.stored->engine_id, s.found.stored->engine_name, s.found.stored->knob_settings},
                          {s.found.fastest->engine_id, s.found.fastest->engine_name, s.found.fastest->knob_settings}};
  Result<graph::AutotuneConfig> config = autotune_config_from(race);
  if (!config.ok()) return;  // the options were valid for the tune: nothing to add
  Problem& raced = s.head_to_head.emplace();
  raced.file = s.problem.file;
  raced.shape_set = s.problem.shape_set;
  tune_shape(raced, file, path, set, handle, *config, graph::AutotuneStorageConfig{}, race);
  if (raced.exit_code != 0) {
    s.detail += fmt::format("; the head-to-head race failed: {}", raced.error);
    return;
  }
  judge(s, raced.results, handle, comparison, margin);
}

json result_json(const graph::AutotuneResult* r) {
  if (r == nullptr) return nullptr;
  return {{"engine_id", r->engine_id},
          {"engine_name", r->engine_name},
          {"knobs", internal::knob_settings_to_json(r->knob_settings)},
          {"succeeded", r->succeeded},
          {"median_time_ms", r->median_time_ms},
          {"min_time_ms", r->min_time_ms},
          {"error_message", r->error_message}};
}

json comparison_json(const std::optional<measure::Comparison>& c) {
  if (!c) return nullptr;
  auto number = [](double x) { return std::isnan(x) ? json() : json(x); };
  return {{"ratio", number(c->ratio)},
          {"ratio_low", number(c->ratio_low)},
          {"ratio_high", number(c->ratio_high)},
          {"verdict", std::string(measure::to_string(c->verdict))}};
}

json check_json(const ShapeCheck& s) {
  return {{"graph", s.problem.file},
          {"shape_set", s.problem.shape_set},
          {"outcome", std::string(label(s.outcome))},
          {"stored_entry", s.stored ? json(s.stored->where) : json()},
          {"stored", result_json(s.found.stored)},
          {"fastest", result_json(s.found.fastest ? s.found.fastest
                                                  : (s.problem.results.empty() || !s.problem.results.front().succeeded
                                                         ? nullptr
                                                         : &s.problem.results.front()))},
          {"comparison", comparison_json(s.found.comparison)},
          {"against_margin", comparison_json(s.against_margin)},
          {"head_to_head", s.head_to_head.has_value()},
          {"detail", s.detail}};
}

int run_check(const CheckOptions& o, const EngineRegistrations& engines) {
  TuneOptions tune = o.tune;
  tune.keep_unless_faster = false;
  tune.program = "tunekit check";
  Result<graph::AutotuneConfig> config = autotune_config_from(tune);
  if (!config.ok()) return fmt::print(stderr, "tunekit check: {}\n", config.error().message()), kBadInput;
  std::error_code missing;
  if (!std::filesystem::exists(o.overrides, missing)) {
    return fmt::print(stderr, "tunekit check: {}: no such file\n", core::replace_invalid_utf8(o.overrides)), kBadInput;
  }
  if (Result<graph::OverrideFile> read = graph::read_override_file(o.overrides); !read.ok()) {
    return fmt::print(stderr, "tunekit check: {}\n", read.error().message()), kBadInput;
  }
  Result<std::unique_ptr<TuneSession>> session = open_tune_session(tune, engines);
  if (!session.ok()) return fmt::print(stderr, "tunekit check: {}\n", session.error().message()), kTuningFailure;
  graph::Handle& handle = *(*session)->handle;
  const measure::ComparisonConfig comparison = graph::to_comparison_config(*config);
  const double margin = o.margin_percent / 100.0;

  std::vector<ShapeCheck> checks;
  for (const std::string& path : tune.graphs) {
    Result<graph::GraphFile> file = graph::read_graph_file(path);
    if (!file.ok()) return fmt::print(stderr, "tunekit check: {}\n", file.error().message()), kBadInput;
    Result<std::vector<std::optional<std::size_t>>> sets = graph::select_shapes(*file, tune.shape_sets);
    if (!sets.ok()) return fmt::print(stderr, "tunekit check: {}\n", sets.error().message()), kBadInput;
    for (const auto& set : *sets) {
      ShapeCheck s;
      s.problem.file = core::replace_invalid_utf8(path);
      s.problem.shape_set = graph::shape_name(*file, set);
      // The stored entry is looked up on the shape's own built graph.
      Result<graph::Graph> made = graph::make_graph(*file, set);
      if (!made.ok()) return fmt::print(stderr, "tunekit check: {}\n", made.error().message()), kBadInput;
      if (Error e = made->build_operation_graph(&handle); e.is_bad()) {
        return fmt::print(stderr, "tunekit check: {} [{}]: {}\n", s.problem.file, s.problem.shape_set, e.message()),
               kBadInput;
      }
      s.stored = find_stored_winner(o.overrides, *made, handle);
      tune_shape(s.problem, *file, path, set, handle, *config, graph::AutotuneStorageConfig{}, tune);
      judge(s, s.problem.results, handle, comparison, margin);
      if (s.outcome == Outcome::CHANGED || s.outcome == Outcome::REGRESSED) {
        race_head_to_head(s, *file, path, set, handle, tune, comparison, margin);
      }
      fmt::print(stderr, "check: {} [{}]: {}\n", s.problem.file, s.problem.shape_set, label(s.outcome));
      checks.push_back(std::move(s));
    }
  }

  int exit_code = kSuccess;
  std::size_t counts[6] = {};
  for (const ShapeCheck& s : checks) {
    ++counts[static_cast<int>(s.outcome)];
    if (s.outcome == Outcome::REGRESSED || s.outcome == Outcome::UNUSABLE) exit_code = kTuningFailure;
    if (s.outcome == Outcome::FAILED) exit_code = std::max(exit_code, s.problem.exit_code);
  }
  if (tune.json) {
    json out = json::array();
    for (const ShapeCheck& s : checks) out.push_back(check_json(s));
    std::cout << internal::json_text(out, 2) << '\n';
  } else {
    fmt::print("{} on this machine (tie band {:g}%, margin {:g}%, confidence {:g}%):\n",
               core::replace_invalid_utf8(o.overrides), tune.tie_band_percent, o.margin_percent,
               tune.confidence_percent);
    for (const ShapeCheck& s : checks) {
      fmt::print("  {:<10} {} [{}]: {}\n", label(s.outcome), s.problem.file, s.problem.shape_set, s.detail);
    }
  }
  fmt::print(stderr,
             "tunekit check: {} shapes: {} unchanged, {} changed within the margin, {} slower beyond it, {} unusable, "
             "{} not stored, {} failed\n",
             checks.size(), counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]);
  return exit_code;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code, const EngineRegistrations& engines) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* check = app.add_subcommand(
      "check", "Retune the shapes an override file stores winners for and show which choices changed (the file is "
               "not written)");
  check->add_option("overrides", o->overrides, "Engine-override file (JSON, version 2) to check");
  check->add_option("--graphs", o->tune.graphs, "Graph files (TOML) whose shapes to check (with OVERRIDES)")
      ->check(CLI::ExistingFile);
  check->add_option("--profiles", o->profile_folders,
                    "Processor profile folder (repeatable) to check instead: every key a profile of this machine "
                    "covers is calibrated again from its committed values")
      ->check(CLI::ExistingDirectory);
  check->add_option("--key-time-budget", o->key_time_budget_seconds, "--profiles: seconds of measurement per key")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  check->add_option("--shape-set", o->tune.shape_sets,
                    "Check only this shape of the files, repeatable: a shape set's name, 'base' or 'all'");
  check->add_option("--margin", o->margin_percent,
                    "Percent by which a stored choice must be significantly slower than the new fastest for the "
                    "check to fail (exit 1)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  check->add_flag("--json", o->tune.json, "Print each shape's outcome as JSON");
  add_measurement_options(*check, o->tune);
  check->callback([o, &exit_code, &engines] {
    if (!o->profile_folders.empty()) {
      if (!o->overrides.empty() || !o->tune.graphs.empty()) {
        fmt::print(stderr, "tunekit check: --profiles checks processor profiles; give it no override file or --graphs\n");
        exit_code = kBadInput;
        return;
      }
      exit_code = run_profile_check({o->profile_folders, o->margin_percent, o->key_time_budget_seconds, o->tune.json});
      return;
    }
    if (o->overrides.empty() || o->tune.graphs.empty()) {
      fmt::print(stderr, "tunekit check: give an override file and --graphs, or --profiles\n");
      exit_code = kBadInput;
      return;
    }
    exit_code = run_check(*o, engines);
  });
}

}  // namespace tunekit::cli
