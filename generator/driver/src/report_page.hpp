// The HTML page of `tunekit report`: one self-contained file (no network) with
// the report model (report_model.hpp) in a JSON block, tables written here,
// and Chart.js (inlined, with its licence) drawing each chart from the model.
// Every chart's canvas carries data-expected-points; once drawn it also
// carries data-rendered-points (the points its datasets hold), and the body
// data-charts-rendered (how many charts were drawn), which the browser test
// of the page reads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tunekit::cli {

std::string render_report_page(const nlohmann::json& model);

// Text as HTML (& < > " ' escaped).
std::string escape_html(std::string_view text);

}  // namespace tunekit::cli
