#include "report_command.hpp"

#include <fmt/format.h>

#include <memory>

#include "exit_codes.hpp"
#include "report_model.hpp"
#include "report_page.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/store/atomic_file.hpp"

namespace tunekit::cli {
namespace {

int run_report(const ReportOptions& options) {
  Result<nlohmann::json> model = build_report_model(options);
  if (!model.ok()) {
    fmt::print(stderr, "tunekit report: {}\n", core::replace_invalid_utf8(model.error().message()));
    return kBadInput;
  }
  store::AtomicWriteOptions write;
  write.create_parent_folders = true;
  Error written = store::write_file_atomically(options.output, render_report_page(*model), write);
  if (written.is_bad()) {
    fmt::print(stderr, "tunekit report: {}\n", core::replace_invalid_utf8(written.message()));
    return output_exit_code(written, kTuningFailure);
  }
  fmt::print(stderr, "report: {} ({} charts)\n", core::replace_invalid_utf8(options.output), (*model)["charts"].size());
  return kSuccess;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* report = app.add_subcommand(
      "report", "Write one self-contained HTML page of calibration reports, caches, override files and tune --json tables");
  report->add_option("inputs", options->inputs,
                     "Calibration reports (calibrate --report), calibration caches, override files, tune --json output")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_option("-o,--output", options->output, "The HTML page to write")->required();
  report->add_option("--before", options->before, "Inputs of an earlier run: the page shows what changed since")
      ->check(CLI::ExistingFile);
  report->add_option("--tie-band", options->tie_band_percent, "Percent shaded beside each shape's fastest candidate")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
  report->add_option("--title", options->title, "The page's title")->capture_default_str();
  report->callback([options, &exit_code] { exit_code = run_report(*options); });
}

}  // namespace tunekit::cli
