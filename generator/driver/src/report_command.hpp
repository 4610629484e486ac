// `tunekit report INPUT... -o report.html [--before INPUT...]`: one
// self-contained HTML page of calibration reports, calibration caches,
// engine-override files and `tune --json` tables (report_model.hpp,
// report_page.hpp); with --before, what changed since those inputs.
#pragma once

#include <CLI/CLI.hpp>

namespace tunekit::cli {

void add_report_command(CLI::App& app, int& exit_code);

}  // namespace tunekit::cli
