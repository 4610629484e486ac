// End-to-end tests of `tunekit cache`: files written here by hand (so the
// on-disk format is pinned from outside the library), then shown, merged,
// pruned, exported and imported through the real executable.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_tool.hpp"

namespace {

namespace fs = std::filesystem;
using tunekit::testing::run_tool;

class Scratch {
 public:
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "tunekit-cli-cache-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One cache entry as tunekit writes it; `kernel` and `model` vary.
std::string entry(const std::string& kernel, int model, int threads = 8) {
  return "\n[[entries]]\nname = \"calibrated-" + kernel + "\"\nlibrary = \"tunekit_cpu\"\nkernel = \"" + kernel +
         "\"\nimplementation = \"portable\"\nelement_type = \"float\"\ndevice = \"cpu\"\ntuning_abi = 1\n"
         "library_version = \"0.1.0\"\ntunekit_version = \"0.1.0\"\nreport_digest = \"abc123\"\n\n"
         "[entries.processor]\narchitecture = \"x86_64\"\nvendor = \"AMD\"\nfamily = 25\nmodel = " +
         std::to_string(model) +
         "\nstepping = 1\nmicroarchitecture = \"zen3\"\nfeatures = [\"avx\", \"avx2\"]\n\n"
         "[entries.processor.diagnostics]\nl3_bytes = 33554432\n\n"
         "[entries.execution]\neffective_threads = " +
         std::to_string(threads) +
         "\nnuma_policy = \"default\"\n\n[entries.parameters]\n\"parallel.minimum_elements\" = 65536\n"
         "\"simd.ratio\" = 2.0\n\"simd.enabled\" = true\n";
}

const std::string kHeader = "schema_version = 1\n";

TEST(CacheCommand, ShowJsonListsEveryEntryWithKeyExecutionAndParameters) {
  Scratch dir;
  const fs::path cache = dir / "kernel_tuning.toml";
  write(cache, kHeader + entry("Abs", 1) + entry("Not", 1, 4));
  auto run = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["status"], "read");
  EXPECT_EQ(json["schema_version"], 1);
  ASSERT_EQ(json["entries"].size(), 2u);
  const auto& abs = json["entries"][0];
  EXPECT_EQ(abs["library"], "tunekit_cpu");
  EXPECT_EQ(abs["kernel"], "Abs");
  EXPECT_EQ(abs["implementation"], "portable");
  EXPECT_EQ(abs["element_type"], "float");
  EXPECT_EQ(abs["device"], "cpu");
  EXPECT_EQ(abs["tuning_abi"], 1);
  EXPECT_EQ(abs["key"], "tunekit_cpu/Abs/portable/float/cpu/abi1");
  EXPECT_EQ(abs["execution_identity"],
            "x86_64|AMD|family=25|model=1|stepping=1|uarch=zen3|features=avx,avx2|threads=8|numa=default");
  EXPECT_EQ(abs["execution"]["effective_threads"], 8);
  EXPECT_EQ(abs["processor"]["l3_bytes"], 33554432);
  EXPECT_EQ(abs["parameters"]["parallel.minimum_elements"], 65536);
  EXPECT_TRUE(abs["parameters"]["simd.ratio"].is_number_float());
  EXPECT_EQ(abs["parameters"]["simd.ratio"], 2.0);
  EXPECT_EQ(abs["parameters"]["simd.enabled"], true);
  EXPECT_EQ(json["entries"][1]["execution"]["effective_threads"], 4);
  EXPECT_TRUE(json["invalid"].empty());
}

TEST(CacheCommand, ShowOfAMissingCacheIsNotAnError) {
  Scratch dir;
  auto run = run_tool({"cache", "show", "--json", "--cache", (dir / "none.toml").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["status"], "not_found");
}

TEST(CacheCommand, MalformedCacheExitsTwoNamingFileAndPosition) {
  Scratch dir;
  const fs::path cache = dir / "broken.toml";
  write(cache, "schema_version = 1\n[[entries]\nname = 3\n");
  auto run = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(cache.string() + ":2:"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
}

TEST(CacheCommand, MalformedEntryIsNamedAndTheOthersStillShown) {
  Scratch dir;
  const fs::path cache = dir / "kernel_tuning.toml";
  std::string bad = entry("Not", 1);
  bad.replace(bad.find("effective_threads = 8"), 21, "effective_threads = -2");
  write(cache, kHeader + entry("Abs", 1) + bad);
  auto run = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  EXPECT_EQ(run.exit_code, 0) << "partly damaged input is a warning, as for the loader";
  auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["entries"].size(), 1u);
  EXPECT_EQ(json["salvaged"], false);
  ASSERT_EQ(json["invalid"].size(), 1u);
  EXPECT_EQ(json["invalid"][0]["field"], "entries[1].execution.effective_threads");
  EXPECT_NE(run.err.find("tunekit cache show: warning: skipping a damaged entry: " + cache.string() + ":"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("entries[1].execution.effective_threads"), std::string::npos) << run.err;
}

// Line of the first occurrence of `what` in `text`, 1-based.
std::size_t line_of(const std::string& text, const std::string& what) {
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find(what)), '\n')) + 1;
}

TEST(CacheCommand, ShowListsTheIntactEntriesOfAFileWithATomlSyntaxErrorAndNamesTheDamagedOne) {
  Scratch dir;
  const fs::path cache = dir / "kernel_tuning.toml";
  std::string broken = entry("Not", 1);
  broken.insert(broken.find("kernel = "), "this is = = not toml\n");
  const std::string text = kHeader + entry("Abs", 1) + broken + entry("Abs", 8);
  write(cache, text);
  const std::string line = std::to_string(line_of(text, "this is"));

  auto run = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["salvaged"], true);
  EXPECT_EQ(json["document_error"].get<std::string>().rfind(cache.string() + ":" + line + ":", 0), 0u)
      << json["document_error"];
  ASSERT_EQ(json["entries"].size(), 2u);
  EXPECT_EQ(json["entries"][0]["kernel"], "Abs");
  EXPECT_EQ(json["entries"][0]["index"], 0);
  EXPECT_EQ(json["entries"][1]["index"], 2);
  EXPECT_EQ(json["entries"][1]["processor"]["model"], 8);
  ASSERT_EQ(json["invalid"].size(), 1u);
  EXPECT_EQ(json["invalid"][0]["index"], 1);
  EXPECT_EQ(json["invalid"][0]["field"], "entries[1]");
  EXPECT_EQ(json["invalid"][0]["line"], line_of(text, "this is"));
  EXPECT_NE(run.err.find("warning: " + cache.string() + " is not valid TOML as a whole"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("skipping a damaged entry: " + cache.string() + ":" + line + ":"), std::string::npos) << run.err;

  auto listing = run_tool({"cache", "show", "--cache", cache.string()});
  EXPECT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_NE(listing.out.find("[0] tunekit_cpu/Abs/portable/float/cpu/abi1"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("[1] damaged: " + cache.string() + ":" + line + ":"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("[2] tunekit_cpu/Abs/portable/float/cpu/abi1"), std::string::npos) << listing.out;
}

std::string dotted(std::size_t parts) {
  std::string key = "x";
  for (std::size_t i = 1; i < parts; ++i) key += ".x";
  return key;
}

TEST(CacheCommand, ShowOfACacheWithAFiftyThousandPartHeaderExitsTwoNamingTheFile) {
  Scratch dir;
  const fs::path cache = dir / "deep.toml";
  write(cache, kHeader + "[" + dotted(50000) + "]\n");
  auto run = run_tool({"cache", "show", "--cache", cache.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "tunekit cache show: " + cache.string() +
                         ":2:1: table header with more than 64 dotted parts (limit: 64 parts per key)\n");
  run = run_tool({"cache", "merge", cache.string(), "--cache", (dir / "c.toml").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(cache.string() + ":2:1: table header"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir / "c.toml"));
}

TEST(CacheCommand, MergeAddsTheEntriesOfOtherFiles) {
  Scratch dir;
  const fs::path cache = dir / "cache" / "kernel_tuning.toml";
  write(dir / "a.toml", kHeader + entry("Abs", 1));
  write(dir / "b.toml", kHeader + entry("Not", 1) + entry("Abs", 8));
  auto run = run_tool({"cache", "merge", (dir / "a.toml").string(), (dir / "b.toml").string(), "--cache",
                       cache.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto show = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(nlohmann::json::parse(show.out)["entries"].size(), 3u);

  // Merging again changes nothing: the file is deterministic.
  const std::string before = read(cache);
  run = run_tool({"cache", "merge", (dir / "b.toml").string(), "--cache", cache.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read(cache), before);
}

TEST(CacheCommand, MergeRefusesASourceWhoseHeaderDoesNotParse) {
  Scratch dir;
  write(dir / "bad.toml", "schema_version = = 1\n[[entries]]\nname = 1\n");
  auto run = run_tool({"cache", "merge", (dir / "bad.toml").string(), "--cache", (dir / "c.toml").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find((dir / "bad.toml").string() + ":1:"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir / "c.toml"));
}

TEST(CacheCommand, MergeTakesTheIntactEntriesOfADamagedSourceAndNamesTheDamagedOnes) {
  Scratch dir;
  const fs::path source = dir / "damaged.toml";
  std::string broken = entry("Not", 1);
  broken.insert(broken.find("kernel = "), "this is = = not toml\n");
  const std::string text = kHeader + entry("Abs", 1) + broken + "\n[[entries]]\nname = 1\n";
  write(source, text);
  const fs::path cache = dir / "cache.toml";
  auto run = run_tool({"cache", "merge", source.string(), "--cache", cache.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("skipping a damaged entry: " + source.string() + ":" + std::to_string(line_of(text, "this is")) +
                         ":"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("entries[2].name: expected a string"), std::string::npos) << run.err;
  auto show = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto json = nlohmann::json::parse(show.out);
  ASSERT_EQ(json["entries"].size(), 1u);
  EXPECT_EQ(json["entries"][0]["kernel"], "Abs");
  EXPECT_TRUE(json["invalid"].empty());
}

TEST(CacheCommand, PruneExecutionMismatchDropsEntriesOfOtherMachines) {
  Scratch dir;
  const fs::path cache = dir / "kernel_tuning.toml";
  write(cache, kHeader + entry("Abs", 4242));  // no processor has model 4242
  auto run = run_tool({"cache", "prune", "--execution-mismatch", "--cache", cache.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("pruned tunekit_cpu/Abs/portable/float/cpu/abi1"), std::string::npos) << run.out;
  auto show = run_tool({"cache", "show", "--json", "--cache", cache.string()});
  EXPECT_TRUE(nlohmann::json::parse(show.out)["entries"].empty());
}

TEST(CacheCommand, ExportWritesProfilesThatImportAccepts) {
  Scratch dir;
  const fs::path cache = dir / "kernel_tuning.toml";
  write(cache, kHeader + entry("Abs", 1) + entry("Not", 8));
  const fs::path out = dir / "deploy" / "milan.toml";
  auto run = run_tool({"cache", "export", "--selector-vendor", "AMD", "--selector-family", "25", "--selector-model",
                       "1", "--require-feature", "avx2", "-o", out.string(), "--cache", cache.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string text = read(out);
  EXPECT_NE(text.find("kernel = \"Abs\""), std::string::npos);
  EXPECT_EQ(text.find("kernel = \"Not\""), std::string::npos) << "measured on model 8, outside the selector";
  EXPECT_NE(text.find("\"simd.ratio\" = 2.0"), std::string::npos);
  auto imported = run_tool({"cache", "import", out.string()});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("1 profiles valid"), std::string::npos) << imported.out;
}

TEST(CacheCommand, ExportNeedsAnExplicitSelector) {
  Scratch dir;
  const fs::path cache = dir / "kernel_tuning.toml";
  write(cache, kHeader + entry("Abs", 1));
  auto run = run_tool({"cache", "export", "-o", (dir / "d.toml").string(), "--cache", cache.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("must name a vendor"), std::string::npos) << run.err;
  run = run_tool({"cache", "export", "--require-feature", "avx9000", "-o", (dir / "d.toml").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown CPU feature 'avx9000'"), std::string::npos) << run.err;
}

TEST(CacheCommand, ImportOfAMalformedFileExitsTwo) {
  Scratch dir;
  write(dir / "d.toml", "schema_version = 1\n[[profiles]]\nname = \"x\"\n");
  auto run = run_tool({"cache", "import", (dir / "d.toml").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find((dir / "d.toml").string() + ":"), std::string::npos) << run.err;
}

}  // namespace
