#include "report_page.hpp"

#include <fmt/format.h>

#include <cstddef>

namespace tunekit::cli {

// Chart.js and its licence (generated from Debian's libjs-chart.js, see
// generator/CMakeLists.txt): pieces that concatenate to the files.
extern const char* const kChartJs[];
extern const std::size_t kChartJs_count;
extern const char* const kChartJsLicence[];
extern const std::size_t kChartJsLicence_count;

namespace {

using nlohmann::json;

std::string joined(const char* const pieces[], std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += pieces[i];
  return out;
}

std::string text(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return fmt::format("{:.6g}", value.get<double>());
  return value.dump();
}

std::string cell(const json& value) { return "<td>" + escape_html(text(value)) + "</td>"; }

// The drawing of every chart from the model; written for this page.
constexpr const char* kRenderer = R"js(
(function () {
  'use strict';
  const model = JSON.parse(document.getElementById('tunekit-report-data').textContent);
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
  function crossover(spec) {
    const datasets = [];
    let lowest = Infinity, highest = 0;
    spec.paths.forEach(function (path, i) {
      const color = palette[i % palette.length];
      const points = path.points;
      points.forEach(function (p) { lowest = Math.min(lowest, p[1] - p[2]); highest = Math.max(highest, p[1] + p[2]); });
      datasets.push({label: path.name, data: points.map(function (p) { return {x: p[0], y: p[1]}; }),
                     borderColor: color, backgroundColor: color, tension: 0});
      datasets.push({label: path.name + ' - MAD', data: points.map(function (p) { return {x: p[0], y: Math.max(p[1] - p[2], p[1] / 1000)}; }),
                     borderColor: 'transparent', pointRadius: 0, fill: false});
      datasets.push({label: path.name + ' + MAD', data: points.map(function (p) { return {x: p[0], y: p[1] + p[2]}; }),
                     borderColor: 'transparent', backgroundColor: color + '33', pointRadius: 0, fill: '-1'});
    });
    lowest = Math.max(lowest, highest / 1e6);
    spec.markers.forEach(function (m, i) {
      datasets.push({label: m.label + ' ' + m.x, data: [{x: m.x, y: lowest}, {x: m.x, y: highest}],
                     borderColor: i === 0 ? '#000000' : '#7f7f7f', borderDash: [6, 4], pointRadius: 0});
    });
    return {type: 'line', data: {datasets: datasets},
            options: {animation: false, maintainAspectRatio: false,
                      scales: {x: {type: 'logarithmic', title: {display: true, text: 'problem size (elements)'}},
                               y: {type: 'logarithmic', title: {display: true, text: 'ms per run (median, band: MAD)'}}},
                      plugins: {title: {display: true, text: spec.title},
                                legend: {labels: {filter: function (item) { return item.text.indexOf('MAD') < 0; }}}}}};
  }
  function bars(spec) {
    const datasets = [
      {label: 'median (' + spec.unit + ')', data: spec.rows.map(function (r) { return r.median; }),
       backgroundColor: spec.rows.map(function (r) { return r.highlight ? '#2ca02c' : '#1f77b4'; })},
      {label: 'middle half of the samples', data: spec.rows.map(function (r) { return [r.low, r.high]; }),
       backgroundColor: '#00000055', grouped: false, barPercentage: 0.3}];
    if (spec.band) {
      datasets.push({label: spec.band_label, data: spec.rows.map(function () { return spec.band; }),
                     backgroundColor: '#ff7f0e40', grouped: false, barPercentage: 1.0, categoryPercentage: 1.0});
    }
    return {type: 'bar', data: {labels: spec.rows.map(function (r) { return r.label; }), datasets: datasets},
            options: {indexAxis: 'y', animation: false, maintainAspectRatio: false,
                      scales: {x: {beginAtZero: true, title: {display: true, text: spec.unit}},
                               y: {ticks: {autoSkip: false}}},
                      plugins: {title: {display: true, text: spec.title}}}};
  }
  let drawn = 0;
  document.querySelectorAll('canvas[data-chart]').forEach(function (canvas) {
    const spec = model.charts[canvas.dataset.chart];
    const chart = new Chart(canvas, spec.kind === 'crossover' ? crossover(spec) : bars(spec));
    canvas.dataset.renderedPoints = chart.data.datasets.reduce(function (n, d) { return n + d.data.length; }, 0);
    drawn += 1;
  });
  document.body.dataset.chartsRendered = drawn;
})();
)js";

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 2em; max-width: 1200px; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } tr.changed td { background: #fff3cd; } tr.failed td { color: #a00; }
.chart { position: relative; height: 320px; margin: 0.5em 0 1.5em; }
.muted { color: #777; } .winner { color: #2a7d2a; font-weight: bold; }
)css";

std::string chart_canvas(const json& model, const json& id) {
  if (!id.is_string()) return "";
  const json& spec = model["charts"][id.get<std::string>()];
  const std::size_t rows = spec.contains("rows") ? spec["rows"].size() : 0;
  const int height = spec["kind"] == "bars" ? std::max<int>(160, 40 + 28 * static_cast<int>(rows)) : 320;
  return fmt::format("<div class=\"chart\" style=\"height:{}px\"><canvas data-chart=\"{}\" data-expected-points=\"{}\"></canvas></div>\n",
                     height, escape_html(id.get<std::string>()), spec["expected_points"].get<std::size_t>());
}

std::string descriptor_table(const json& descriptors) {
  std::string out = "<table>\n";
  for (const char* part : {"processor", "execution", "power"}) {
    if (!descriptors.contains(part) || !descriptors[part].is_object()) continue;
    for (const auto& [field, value] : descriptors[part].items()) {
      out += fmt::format("<tr><th>{} {}</th>{}</tr>\n", part, escape_html(field), cell(value));
    }
  }
  return out + "</table>\n";
}

std::string comparison_section(const json& comparison) {
  std::string out = "<h2>Before and after</h2>\n";
  if (!comparison["shapes"].empty()) {
    out += "<table><tr><th>graph [shape]</th><th>winner before</th><th>ms</th><th>winner after</th><th>ms</th><th></th></tr>\n";
    for (const json& s : comparison["shapes"]) {
      const bool changed = s["changed"].get<bool>();
      const auto side = [](const json& w) { return w.is_null() ? std::string("<td>none</td><td></td>") : cell(w["label"]) + cell(w["median_ms"]); };
      out += fmt::format("<tr{}><td>{} [{}]</td>{}{}<td>{}</td></tr>\n", changed ? " class=\"changed\"" : "",
                         escape_html(text(s["graph"])), escape_html(text(s["shape_set"])), side(s["before"]),
                         side(s["after"]), changed ? "changed" : "same");
    }
    out += "</table>\n";
  }
  if (!comparison["calibration"].empty()) {
    out += "<table><tr><th>key</th><th>parameter</th><th>before</th><th>after</th><th>why (after)</th></tr>\n";
    for (const json& c : comparison["calibration"]) {
      out += fmt::format("<tr{}>{}{}{}{}{}</tr>\n", c["changed"].get<bool>() ? " class=\"changed\"" : "", cell(c["key"]),
                         cell(c["parameter"]), cell(c["before"]), cell(c["after"]), cell(c["reason"]));
    }
    out += "</table>\n";
  }
  if (comparison["shapes"].empty() && comparison["calibration"].empty()) {
    out += "<p class=\"muted\">No shape or key appears both before and after.</p>\n";
  }
  return out;
}

std::string calibration_section(const json& model) {
  std::string out = "<h2>Calibration</h2>\n";
  for (const json& key : model["calibration"]) {
    out += fmt::format("<h3>{} <span class=\"muted\">{}</span></h3>\n", escape_html(text(key["name"])),
                       escape_html(text(key["outcome"])));
    if (key.contains("reason")) out += "<p>" + escape_html(text(key["reason"])) + "</p>\n";
    if (key["parameters"].empty()) continue;
    out += "<table><tr><th>parameter</th><th>value</th><th>portable default</th><th>why</th></tr>\n";
    for (const json& p : key["parameters"]) {
      out += "<tr>" + cell(p["name"]) + cell(p["value"]) + cell(p.value("portable_default", json())) + cell(p["reason"]) +
             "</tr>\n";
    }
    out += "</table>\n";
    for (const json& id : key["charts"]) out += chart_canvas(model, id);
  }
  return out;
}

std::string shapes_section(const json& model) {
  std::string out = "<h2>Graph autotuning</h2>\n";
  for (const json& s : model["shapes"]) {
    out += fmt::format("<h3>{} [{}]</h3>\n", escape_html(text(s["graph"])), escape_html(text(s["shape_set"])));
    out += s["winner"].is_null() ? std::string("<p>No candidate succeeded.</p>\n")
                                 : "<p>Winner: <span class=\"winner\">" + escape_html(text(s["winner"])) + "</span></p>\n";
    if (!text(s["error"]).empty()) out += "<p>" + escape_html(text(s["error"])) + "</p>\n";
    out += chart_canvas(model, s.value("chart", json()));
    out += "<table><tr><th>rank</th><th>candidate</th><th>median ms</th><th>min ms</th><th>samples</th><th>vs fastest</th><th>status</th></tr>\n";
    for (const json& c : s["candidates"]) {
      const bool ok = c["succeeded"].get<bool>();
      std::string against;
      if (c["against_fastest"].is_object()) {
        const json& a = c["against_fastest"];
        const auto figure = [](const json& v) { return v.is_number() ? fmt::format("{:.3g}", v.get<double>()) : text(v); };
        against = fmt::format("{} [{}, {}] {}", figure(a["ratio"]), figure(a["ratio_low"]), figure(a["ratio_high"]),
                              text(a["verdict"]));
      }
      const std::string status = ok ? (c["rank"] == 0 ? "winner" : "ok") + std::string(c["tied"].get<bool>() ? " (tie)" : "")
                                    : "failed: " + text(c["error"]);
      out += fmt::format("<tr{}>{}{}{}{}{}{}{}</tr>\n", ok ? "" : " class=\"failed\"", cell(ok ? c["rank"] : json("-")),
                         cell(c["label"]), cell(c["median_ms"]), cell(c["min_ms"]), cell(c["samples"]), cell(against),
                         cell(status));
    }
    out += "</table>\n";
  }
  return out;
}

template <typename Columns>
std::string table_section(const char* title, const json& rows, const Columns& columns) {
  std::string out = fmt::format("<h2>{}</h2>\n<table><tr>", title);
  for (const auto& [field, heading] : columns) out += "<th>" + escape_html(heading) + "</th>";
  out += "</tr>\n";
  for (const json& row : rows) {
    out += "<tr>";
    for (const auto& [field, heading] : columns) out += cell(row.value(field, json()));
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string escape_html(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_report_page(const json& model) {
  const std::string title = escape_html(text(model["title"]));
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<title>" + title + "</title>\n<style>" + kStyle + "</style>\n";
  // Chart.js, inlined so that the page needs no network; its licence:
  std::string licence = joined(kChartJsLicence, kChartJsLicence_count);
  for (std::size_t at = licence.find("--"); at != std::string::npos; at = licence.find("--", at)) licence.replace(at, 2, "- -");
  page += "<!-- Chart.js, inlined below:\n" + licence + "-->\n<script>\n" + joined(kChartJs, kChartJs_count) + "\n</script>\n";
  page += "</head>\n<body>\n<h1>" + title + "</h1>\n";
  const json& generated = model["generated"];
  page += fmt::format("<p class=\"muted\">Generated by tunekit {} from:</p>\n<ul>\n", escape_html(text(generated["tunekit_version"])));
  for (const json& input : model["inputs"]) {
    page += fmt::format("<li>{} ({}{})</li>\n", escape_html(text(input["file"])), escape_html(text(input["kind"])),
                        input["before"].get<bool>() ? ", before" : "");
  }
  page += "</ul>\n";
  if (model.contains("comparison")) page += comparison_section(model["comparison"]);
  if (!model["calibration"].empty()) page += calibration_section(model);
  if (!model["shapes"].empty()) page += shapes_section(model);
  if (!model["overrides"].empty()) {
    page += table_section("Engine overrides", model["overrides"],
                          std::vector<std::pair<std::string, std::string>>{{"file", "file"}, {"op", "op"}, {"shape", "shape"},
                                                                           {"engine", "engine"}, {"knobs", "knobs"},
                                                                           {"min_time_ms", "min ms"}, {"timestamp", "tuned"},
                                                                           {"device", "device"},
                                                                           {"engine_catalogue", "engine catalogue"}});
  }
  if (!model["cache"].empty()) {
    page += table_section("Calibration cache", model["cache"],
                          std::vector<std::pair<std::string, std::string>>{{"file", "file"}, {"key", "key"},
                                                                           {"execution", "execution"}, {"values", "values"},
                                                                           {"library_version", "library"},
                                                                           {"tunekit_version", "tunekit"}});
  }
  page += "<h2>Machine</h2>\n";
  if (model.contains("machine")) {
    page += "<p>Calibrated on (from " + escape_html(text(model["machine"]["from"])) + "):</p>\n" +
            descriptor_table(model["machine"]);
  }
  page += "<p>This page was generated on:</p>\n" + descriptor_table(generated);
  for (const json& note : model["notes"]) page += "<p class=\"muted\">" + escape_html(text(note)) + "</p>\n";
  // The model, for the renderer. Every "<" (only ever inside a JSON string)
  // is written \u003c, so that no text from the inputs can end the script
  // element or open a comment in it.
  std::string data;
  for (char c : model.dump(-1, ' ', false, json::error_handler_t::replace)) {
    if (c == '<') {
      data += "\\u003c";
    } else {
      data += c;
    }
  }
  page += "<script type=\"application/json\" id=\"tunekit-report-data\">" + data + "</script>\n";
  page += std::string("<script>") + kRenderer + "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace tunekit::cli
