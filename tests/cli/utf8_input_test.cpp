// Bytes that are not UTF-8, in files and in file names and arguments, fed
// through every reader of the tool (override files, the calibration cache,
// graph files, deployment and processor profiles, tuning specs) and every
// JSON output (`overrides show/lookup --json`, `cache show --json`,
// `tune --json`, `describe --json`, `calibrate --report`): no run crashes,
// each exits 0 or 2 as its input deserves, what it prints is UTF-8 and its
// JSON parses. A message that quotes such bytes shows U+FFFD in their place.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"
#include "support/text_file.hpp"
#include "tunekit/core/utf8.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using tunekit::testing::read_text;
using tunekit::testing::run_tool;
using tunekit::testing::ScratchDir;
using tunekit::testing::ToolRun;
using tunekit::testing::write_text;

const fs::path kData = TUNEKIT_TEST_DATA_DIR;
const std::string kReplacement = "\xEF\xBF\xBD";
const std::string kBom = "\xEF\xBB\xBF";

// Each kind of ill-formed UTF-8: a lone continuation byte, overlong forms, a
// UTF-16 surrogate, bytes that never occur, and a sequence cut short.
const std::vector<std::string> kBadBytes = {"\x80", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xFF\xFE", "\xE2\x82"};

// Every string of a JSON value (keys too) is valid UTF-8.
bool strings_are_utf8(const json& value) {
  if (value.is_string()) return tunekit::core::is_valid_utf8(value.get<std::string>());
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (!tunekit::core::is_valid_utf8(key) || !strings_are_utf8(item)) return false;
    }
  }
  if (value.is_array()) {
    for (const json& item : value) {
      if (!strings_are_utf8(item)) return false;
    }
  }
  return true;
}

// The run exited normally with `code`, printed only UTF-8 and, when `json_out`, printed
// one JSON document (or nothing, when it exits 2 before it has one to print).
::testing::AssertionResult clean(const ToolRun& run, int code, bool json_out) {
  using tunekit::core::replace_invalid_utf8;
  const std::string err = replace_invalid_utf8(run.err);
  if (run.signal != 0) return ::testing::AssertionFailure() << "killed by signal " << run.signal << ": " << err;
  if (run.exit_code != code) {
    return ::testing::AssertionFailure() << "exit code " << run.exit_code << ", expected " << code << ": " << err;
  }
  if (!tunekit::core::is_valid_utf8(run.err)) return ::testing::AssertionFailure() << "stderr is not UTF-8: " << err;
  if (!tunekit::core::is_valid_utf8(run.out)) {
    return ::testing::AssertionFailure() << "stdout is not UTF-8: " << replace_invalid_utf8(run.out);
  }
  if (json_out && !(code == 2 && run.out.empty())) {
    const json parsed = json::parse(run.out, nullptr, false);
    if (parsed.is_discarded()) return ::testing::AssertionFailure() << "stdout is not JSON: " << run.out;
    if (!strings_are_utf8(parsed)) return ::testing::AssertionFailure() << "a JSON string is not UTF-8";
  }
  return ::testing::AssertionSuccess();
}

std::string sample_overrides() { return read_text(kData / "overrides" / "sample_overrides.json"); }

// Override files that nlohmann's parser refuses, each quoting bad bytes in its message.
std::vector<std::string> bad_override_texts() {
  std::vector<std::string> texts;
  for (const std::string& bad : kBadBytes) {
    texts.push_back("{\"version\": 2, \"engine_overrides\": [{\"op\": \"m" + bad +
                    "(\", \"engine_name\": \"x\", \"tensors\": []}]}");
    texts.push_back("{\"version\": 2, \"" + bad + "\": 1}");
    texts.push_back("{\"version\": 2, \"engine_overrides\": [{\"op\": \"matmul" + bad);  // cut short at the end
  }
  // A long token, cut short in its last character.
  texts.push_back("{\"version\": 2, " + std::string(200, 'x') + "\xF0\x9D\x84");
  return texts;
}

class Utf8Input : public ::testing::Test {
 protected:
  ScratchDir scratch{"tunekit-cli-utf8"};
  fs::path at(const std::string& name) const { return scratch.path() / name; }
};

TEST_F(Utf8Input, LookupJsonOfAnOverrideFileTheParserRefusesListsItAsSkippedWithTheQuoteRepaired) {
  // The input that aborted `overrides lookup --json` (type_error 316 in dump).
  const fs::path file = at("bad.json");
  write_text(file,
             "{\"version\": 2, \"engine_overrides\": [{\"op\": \"m\xC3(\", \"engine_name\": \"x\", \"tensors\": []}]}");
  const ToolRun run = run_tool({"overrides", "lookup", file.string(), "--op", "matmul", "--json"});
  ASSERT_TRUE(clean(run, 0, true));
  const json out = json::parse(run.out);
  EXPECT_EQ(out["matched"], false);
  ASSERT_EQ(out["skipped"].size(), 1u) << run.out;
  EXPECT_EQ(out["skipped"][0]["file"], file.string());
  const std::string reason = out["skipped"][0]["reason"];
  EXPECT_NE(reason.find("ill-formed UTF-8"), std::string::npos) << reason;
  EXPECT_NE(reason.find("\"m" + kReplacement + "("), std::string::npos) << reason;
}

TEST_F(Utf8Input, EveryOverridesSubcommandRefusesOrSkipsAFileWithBadBytesAndPrintsOnlyUtf8) {
  const std::vector<std::string> texts = bad_override_texts();
  for (std::size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    const fs::path file = at("bad" + std::to_string(i) + ".json");
    write_text(file, texts[i]);
    EXPECT_TRUE(clean(run_tool({"overrides", "show", file.string(), "--json"}), 2, true));
    EXPECT_TRUE(clean(run_tool({"overrides", "show", file.string()}), 2, false));
    EXPECT_TRUE(clean(run_tool({"overrides", "validate", file.string()}), 2, false));
    EXPECT_TRUE(clean(run_tool({"overrides", "merge", file.string(), "-o", at("merged.json").string()}), 2, false));
    EXPECT_TRUE(clean(run_tool({"gen-overrides", file.string(), "-o", at("embedded.hpp").string()}), 2, false));
    const ToolRun lookup = run_tool({"overrides", "lookup", file.string(), "--op", "matmul", "--json"});
    ASSERT_TRUE(clean(lookup, 0, true));
    EXPECT_EQ(json::parse(lookup.out)["skipped"].size(), 1u) << lookup.out;
    EXPECT_TRUE(clean(run_tool({"overrides", "lookup", file.string(), "--op", "matmul"}), 0, false));
  }
}

TEST_F(Utf8Input, AnOverrideFileThatStartsWithAByteOrderMarkReadsAsWithout) {
  const fs::path file = at("bom.json");
  write_text(file, kBom + sample_overrides());
  const ToolRun show = run_tool({"overrides", "show", file.string(), "--json"});
  ASSERT_TRUE(clean(show, 0, true));
  EXPECT_EQ(json::parse(show.out)[0]["entries"].size(), 2u) << show.out;
  EXPECT_TRUE(clean(run_tool({"overrides", "validate", file.string()}), 0, false));
  EXPECT_TRUE(clean(run_tool({"gen-overrides", file.string(), "-o", at("embedded.hpp").string()}), 0, false));
  // Only the first mark is skipped: a second one is text where JSON allows none.
  write_text(file, kBom + kBom + sample_overrides());
  EXPECT_TRUE(clean(run_tool({"overrides", "show", file.string(), "--json"}), 2, true));
}

TEST_F(Utf8Input, FileNamesAndArgumentsWithBadBytesAreShownRepaired) {
  for (const std::string& bad : kBadBytes) {
    SCOPED_TRACE(tunekit::core::replace_invalid_utf8(bad));
    const fs::path file = at("over" + bad + "rides.json");
    write_text(file, sample_overrides());
    const std::string shown = tunekit::core::replace_invalid_utf8(file.string());

    const ToolRun show = run_tool({"overrides", "show", file.string(), "--json"});
    ASSERT_TRUE(clean(show, 0, true));
    EXPECT_EQ(json::parse(show.out)[0]["file"], shown);
    EXPECT_TRUE(clean(run_tool({"overrides", "show", file.string()}), 0, false));
    EXPECT_TRUE(clean(run_tool({"overrides", "validate", file.string()}), 0, false));
    EXPECT_TRUE(clean(run_tool({"gen-overrides", file.string(), "-o", at("embedded.hpp").string()}), 0, false));

    // An operation no entry has, named with bad bytes: every entry misses, quoting it.
    const ToolRun miss =
        run_tool({"overrides", "lookup", file.string(), "--op", "mat" + bad, "--any-device", "--json"});
    ASSERT_TRUE(clean(miss, 0, true));
    const json missed = json::parse(miss.out);
    EXPECT_EQ(missed["matched"], false);
    ASSERT_EQ(missed["misses"].size(), 2u) << miss.out;
    EXPECT_EQ(missed["misses"][0]["file"], shown);
    EXPECT_NE(missed["misses"][0]["reason"].get<std::string>().find(kReplacement), std::string::npos) << miss.out;
    EXPECT_TRUE(clean(run_tool({"overrides", "lookup", file.string(), "--op", "mat" + bad}), 0, false));
    const ToolRun hit = run_tool({"overrides", "lookup", file.string(), "--op", "matmul", "--tensor", "A=4x8",
                                  "--tensor", "B=8x2", "--any-device", "--json"});
    ASSERT_TRUE(clean(hit, 0, true));
    EXPECT_EQ(json::parse(hit.out)["file"], shown);

    // Arguments that do not parse are quoted.
    EXPECT_TRUE(clean(run_tool({"overrides", "lookup", file.string(), "--op", "matmul", "--tensor", "A" + bad}), 2,
                      false));
    EXPECT_TRUE(clean(run_tool({"overrides", "lookup", file.string(), "--op", "matmul", "--criteria", bad + "=x"}), 2,
                      false));

    // A file that is not there, and an output folder that cannot be made.
    const fs::path absent_file = at("none" + bad + ".json");
    const ToolRun absent = run_tool({"overrides", "lookup", absent_file.string(), "--op", "matmul", "--json"});
    ASSERT_TRUE(clean(absent, 0, true));
    EXPECT_EQ(json::parse(absent.out)["skipped"][0]["file"], tunekit::core::replace_invalid_utf8(absent_file.string()));
    EXPECT_TRUE(clean(run_tool({"overrides", "show", absent_file.string(), "--json"}), 2, true));
    EXPECT_TRUE(clean(run_tool({"overrides", "merge", file.string(), "-o", (file / ("x" + bad)).string()}), 3, false));
  }
}

// A calibration cache entry as tunekit writes it, with `name` as its name.
std::string cache_entry(const std::string& name) {
  return "\n[[entries]]\nname = \"" + name +
         "\"\nlibrary = \"tunekit_cpu\"\nkernel = \"Abs\"\nimplementation = \"portable\"\nelement_type = \"float\"\n"
         "device = \"cpu\"\ntuning_abi = 1\nlibrary_version = \"0.1.0\"\ntunekit_version = \"0.1.0\"\n"
         "report_digest = \"abc123\"\n\n[entries.processor]\narchitecture = \"x86_64\"\nvendor = \"AMD\"\n"
         "family = 25\nmodel = 1\nstepping = 1\nmicroarchitecture = \"zen3\"\nfeatures = [\"avx\"]\n\n"
         "[entries.execution]\neffective_threads = 8\nnuma_policy = \"default\"\n\n[entries.parameters]\n"
         "\"parallel.minimum_elements\" = 65536\n";
}

TEST_F(Utf8Input, CacheShowAndCalibrateReadACacheWithBadBytes) {
  for (const std::string& bad : kBadBytes) {
    SCOPED_TRACE(tunekit::core::replace_invalid_utf8(bad));
    // Bad bytes in one entry: the others are recovered, the damaged one is named.
    const fs::path damaged = at("damaged.toml");
    write_text(damaged, "schema_version = 1\n" + cache_entry("fine") + cache_entry("bad" + bad));
    const ToolRun show = run_tool({"cache", "show", "--json", "--cache", damaged.string()});
    ASSERT_TRUE(clean(show, 0, true));
    const json shown = json::parse(show.out);
    EXPECT_EQ(shown["entries"].size(), 1u) << show.out;
    EXPECT_EQ(shown["invalid"].size(), 1u) << show.out;
    EXPECT_TRUE(clean(run_tool({"cache", "show", "--cache", damaged.string()}), 0, false));

    // Bad bytes in the header: nothing can be recovered.
    const fs::path broken = at("broken.toml");
    write_text(broken, "schema_version = 1 # " + bad + "\n" + cache_entry("fine"));
    EXPECT_TRUE(clean(run_tool({"cache", "show", "--json", "--cache", broken.string()}), 2, true));

    // Bad bytes in the cache's name, which every message and the JSON quote.
    const fs::path named = at("cache" + bad + ".toml");
    EXPECT_TRUE(clean(run_tool({"cache", "show", "--json", "--cache", named.string()}), 0, true));
    write_text(named, "schema_version = 1\n" + cache_entry("fine"));
    const ToolRun read = run_tool({"cache", "show", "--json", "--cache", named.string()});
    ASSERT_TRUE(clean(read, 0, true));
    EXPECT_EQ(json::parse(read.out)["path"], tunekit::core::replace_invalid_utf8(named.string()));

    // calibrate loads the cache first; a kernel that is not registered keeps it short.
    const fs::path report = at("report.json");
    for (const fs::path& cache : {damaged, broken, named}) {
      const ToolRun run = run_tool({"calibrate", "--cache", cache.string(), "--kernel", "Nothing" + bad,
                                    "--time-budget", "1", "--report", report.string()});
      EXPECT_TRUE(clean(run, 0, false));
      const json written = json::parse(read_text(report), nullptr, false);
      ASSERT_FALSE(written.is_discarded()) << read_text(report);
      EXPECT_TRUE(strings_are_utf8(written));
    }
  }
}

TEST_F(Utf8Input, ACacheThatStartsWithAByteOrderMarkReadsAsWithout) {
  const fs::path cache = at("bom.toml");
  write_text(cache, kBom + "schema_version = 1\n" + cache_entry("fine"));
  const ToolRun show = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  ASSERT_TRUE(clean(show, 0, true));
  EXPECT_EQ(json::parse(show.out)["entries"].size(), 1u) << show.out;
}

std::string matmul_graph(const std::string& tensor_a) {
  return "[[tensors]]\nname = \"" + tensor_a +
         "\"\nuid = 1\ndims = [4, 4]\n[[tensors]]\nname = \"B\"\nuid = 2\ndims = [4, 4]\n[[tensors]]\nname = \"C\"\n"
         "uid = 3\ndims = [4, 4]\n[[operations]]\nkind = \"matmul\"\ninputs = { A = \"" +
         tensor_a + "\", B = \"B\" }\noutputs = { C = \"C\" }\n";
}

std::vector<std::string> tune(const fs::path& graph, const fs::path& output) {
  return {"tune", graph.string(), "-o", output.string(), "--strategy", "fixed_average", "--iterations", "1", "--json"};
}

TEST_F(Utf8Input, TuneJsonRefusesAGraphFileWithBadBytesAndNamesAGraphFileWithBadBytesInItsName) {
  for (const std::string& bad : kBadBytes) {
    SCOPED_TRACE(tunekit::core::replace_invalid_utf8(bad));
    const fs::path output = at("out" + bad + ".json");
    const fs::path broken = at("broken.toml");
    write_text(broken, matmul_graph("A" + bad));
    EXPECT_TRUE(clean(run_tool(tune(broken, output)), 2, true));
    write_text(broken, "# " + bad + "\n" + matmul_graph("A"));
    EXPECT_TRUE(clean(run_tool(tune(broken, output)), 2, true));

    const fs::path named = at("graph" + bad + ".toml");
    write_text(named, matmul_graph("A"));
    const ToolRun run = run_tool(tune(named, output));
    ASSERT_TRUE(clean(run, 0, true));
    EXPECT_EQ(json::parse(run.out)[0]["graph"], tunekit::core::replace_invalid_utf8(named.string()));
    // What tune wrote reads back, through every reader of override files.
    EXPECT_TRUE(clean(run_tool({"overrides", "show", output.string(), "--json"}), 0, true));
    EXPECT_TRUE(clean(run_tool({"overrides", "validate", output.string()}), 0, false));
    std::vector<std::string> unknown_mode = tune(named, output);
    unknown_mode.insert(unknown_mode.end(), {"--mode", "fast" + bad});
    EXPECT_TRUE(clean(run_tool(unknown_mode), 2, true));
    // An unknown shape set named with bad bytes.
    std::vector<std::string> unknown_set = tune(named, output);
    unknown_set.insert(unknown_set.end(), {"--shape-set", "wide" + bad});
    EXPECT_TRUE(clean(run_tool(unknown_set), 2, true));
  }
  const fs::path bom = at("bom.toml");
  write_text(bom, kBom + matmul_graph("A"));
  EXPECT_TRUE(clean(run_tool(tune(bom, at("bom.json"))), 0, true));
}

std::string deployment_profile(const std::string& name) {
  return "schema_version = 1\n\n[[profiles]]\nname = \"" + name +
         "\"\nlibrary = \"tunekit_cpu\"\nkernel = \"Abs\"\nimplementation = \"portable\"\nelement_type = \"float\"\n"
         "device = \"cpu\"\ntuning_abi = 1\npriority = 0\n\n[profiles.selector]\nvendor = \"AMD\"\nfamily = 25\n"
         "models = [1]\n\n[profiles.parameters]\n\"parallel.minimum_elements\" = 65536\n";
}

TEST_F(Utf8Input, ProfileAndSpecReadersRefuseBadBytesWithUtf8Messages) {
  const fs::path spec = kData / "spec" / "small_tuning.toml";
  for (const std::string& bad : kBadBytes) {
    SCOPED_TRACE(tunekit::core::replace_invalid_utf8(bad));
    const fs::path profile = at("profiles" + bad + "/this.toml");
    write_text(profile, deployment_profile("abs" + bad));
    EXPECT_TRUE(clean(run_tool({"cache", "import", profile.string()}), 2, false));
    EXPECT_TRUE(clean(run_tool({"promote", "--profile", profile.string(), "--spec", spec.string()}), 2, false));
    EXPECT_TRUE(clean(run_tool({"gen-profiles", profile.parent_path().string(), "--spec", spec.string(), "-o",
                                at("profiles.hpp").string()}),
                      2, false));
    // A folder of profiles that does not read covers nothing: calibrate goes on.
    const fs::path report = at("report.json");
    EXPECT_TRUE(clean(run_tool({"calibrate", "--no-cache", "--kernel", "Nothing", "--unless-covered-by",
                                profile.parent_path().string(), "--report", report.string()}),
                      0, false));
    EXPECT_FALSE(json::parse(read_text(report), nullptr, false).is_discarded());

    const fs::path bad_spec = at("spec" + bad + ".toml");
    write_text(bad_spec, read_text(spec) + "\n# " + bad + "\n");
    EXPECT_TRUE(clean(run_tool({"gen-defaults", bad_spec.string(), "-o", at("defaults.hpp").string()}), 2, false));
    write_text(bad_spec, read_text(spec));
    EXPECT_TRUE(clean(run_tool({"gen-defaults", bad_spec.string(), "-o", at("defaults" + bad + "/x.hpp").string()}),
                      0, false));
  }
}

TEST_F(Utf8Input, DescribeJsonIsUtf8) { EXPECT_TRUE(clean(run_tool({"describe", "--json"}), 0, true)); }

}  // namespace
