// Writing autotune winners to override files: new file, append, replace on
// match, delete all, refusals, corrupt-file recovery, unwritable folders,
// the metadata schema and its conditional fields, and autotune() writing.
#include "tunekit/graph/override_writer.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "graph_test_support.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/graph/override_file.hpp"

namespace tunekit::graph {
namespace {

using nlohmann::json;
using testing::LogCapture;

std::filesystem::path temporary_folder() {
  char pattern[] = "/tmp/tunekit-overrides-XXXXXX";
  return mkdtemp(pattern);
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

class OverrideWriter : public testing::GraphFixture {
 protected:
  void SetUp() override {
    GraphFixture::SetUp();
    folder = temporary_folder();
    path = folder / "overrides.json";
    testing::FakeBehaviour tiled = testing::behaviour(2, "tiled");
    tiled.descriptor.knobs = {testing::int_knob("tile", 8, 4, 64, 4)};
    add(testing::behaviour(1, "naive"));
    add(tiled);
    build();
  }
  void TearDown() override { std::filesystem::remove_all(folder); }

  AutotuneResult winner(std::string name = "tiled", std::int64_t id = 2) const {
    AutotuneResult r;
    r.engine_id = id;
    r.engine_name = std::move(name);
    r.rank = 0;
    r.succeeded = true;
    r.min_time_ms = 0.25;
    r.avg_time_ms = 0.5;
    r.stddev_ms = 0.125;
    r.iterations_run = 10;
    r.workspace_size = 64;
    r.strategy_used = AutotuneStrategy::FIXED_AVERAGE;
    return r;
  }

  Result<OverrideWriteReport> store(const AutotuneResult& r, bool delete_all = false, OverrideWriteOptions options = {}) {
    if (!options.unix_seconds) options.unix_seconds = 1776767400;  // 2026-04-21T10:30:00Z
    return write_autotune_override(graph.operation_graph(), r, OverrideWriteContext{*device, *registry},
                                   AutotuneStorageConfig{path, delete_all}, options);
  }

  json document() const { return json::parse(read(path)); }

  std::filesystem::path folder;
  std::filesystem::path path;
};

TEST_F(OverrideWriter, ANewFileHoldsOneVersionTwoEntryWithEveryMetadataField) {
  AutotuneResult r = winner();
  r.knob_settings = {{"tile", std::int64_t{16}}};
  Result<OverrideWriteReport> report = store(r);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report->status, OverrideWriteReport::Status::WRITTEN);
  EXPECT_EQ(report->entries, 1u);
  EXPECT_FALSE(report->replaced);
  const json doc = document();
  EXPECT_EQ(doc["version"], 2);
  ASSERT_EQ(doc["engine_overrides"].size(), 1u);
  const json& e = doc["engine_overrides"][0];
  EXPECT_EQ(e["op"], "matmul");
  EXPECT_EQ(e["engine_name"], "tiled");
  EXPECT_FALSE(e.contains("criteria"));
  EXPECT_FALSE(e.contains("engine_id"));
  EXPECT_EQ(e["tensors"], json::parse(R"([{"tensor_id": "A", "dim": [4, 8], "stride": [8, 1]},
                                           {"tensor_id": "B", "dim": [8, 2], "stride": [2, 1]}])"));
  const json& m = e["autotune_metadata"];
  EXPECT_EQ(m["rank"], 0);
  EXPECT_EQ(m["min_time_ms"], 0.25);
  EXPECT_EQ(m["avg_time_ms"], 0.5);
  EXPECT_EQ(m["stddev_ms"], 0.125);
  EXPECT_EQ(m["workspace_size"], 64);
  EXPECT_EQ(m["mode"], "standard");
  EXPECT_EQ(m["supports_exhaustive"], false);
  EXPECT_EQ(m["ran_exhaustive"], false);
  EXPECT_EQ(m["exhaustive_not_run_reason"], "");
  EXPECT_EQ(m["strategy"], "fixed_average");
  EXPECT_EQ(m["iterations_run"], 10);
  EXPECT_FALSE(m.contains("converged"));
  EXPECT_EQ(m["timestamp"], "2026-04-21T10:30:00Z");
  EXPECT_EQ(m["knobs"], json::parse(R"([{"knob_id": "tile", "type": "int", "value": 16}])"));
  const json& v = e["validators"];
  EXPECT_EQ(v["device_signature"], "scripted:0");
  EXPECT_EQ(v["device_name"], "scripted");
  EXPECT_EQ(v["tunekit_version"], kVersion);
  EXPECT_EQ(v["engine_provider"], "");
  EXPECT_EQ(v["engine_catalogue_version"], registry->origin(2)->catalogue_version);
}

TEST_F(OverrideWriter, ConvergedOnlyForRunUntilStableAndKnobsOmittedForDefaults) {
  AutotuneResult r = winner("naive", 1);
  r.strategy_used = AutotuneStrategy::RUN_UNTIL_STABLE;
  r.converged = false;
  r.mode_used = TuneMode::EXHAUSTIVE;
  r.supports_exhaustive = true;
  r.exhaustive_not_run_reason = "priming plan failed";
  ASSERT_TRUE(store(r).ok());
  const json doc = document();
  const json& m = doc["engine_overrides"][0]["autotune_metadata"];
  EXPECT_EQ(m["strategy"], "run_until_stable");
  EXPECT_EQ(m["converged"], false);
  EXPECT_EQ(m["mode"], "exhaustive");
  EXPECT_EQ(m["supports_exhaustive"], true);
  EXPECT_EQ(m["exhaustive_not_run_reason"], "priming plan failed");
  EXPECT_FALSE(m.contains("knobs"));
}

TEST_F(OverrideWriter, AWinnerOfATuneCutShortByItsBudgetIsMarkedIncompleteAndReadBackSo) {
  ASSERT_TRUE(store(winner()).ok());
  EXPECT_FALSE(document()["engine_overrides"][0]["autotune_metadata"].contains("complete"));
  Result<OverrideFile> complete = read_override_file(path);
  ASSERT_TRUE(complete.ok());
  ASSERT_TRUE(complete->entries[0].metadata.has_value());
  EXPECT_TRUE(complete->entries[0].metadata->complete);

  AutotuneResult cut = winner();
  cut.budget_ran_out = true;
  ASSERT_TRUE(store(cut).ok());
  EXPECT_EQ(document()["engine_overrides"][0]["autotune_metadata"]["complete"], false);
  Result<OverrideFile> incomplete = read_override_file(path);
  ASSERT_TRUE(incomplete.ok());
  ASSERT_EQ(incomplete->entries.size(), 1u);
  EXPECT_FALSE(incomplete->entries[0].metadata->complete);
}

TEST_F(OverrideWriter, KnobsOfEveryTypeAreWrittenWithTheirType) {
  AutotuneResult r = winner();
  r.knob_settings = {{"s", "fast"}, {"d", 0.5}, {"i", std::int64_t{3}}};
  ASSERT_TRUE(store(r).ok());
  EXPECT_EQ(document()["engine_overrides"][0]["autotune_metadata"]["knobs"],
            json::parse(R"([{"knob_id": "d", "type": "double", "value": 0.5},
                            {"knob_id": "i", "type": "int", "value": 3},
                            {"knob_id": "s", "type": "string", "value": "fast"}])"));
  Result<OverrideFile> back = read_override_file(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->entries.at(0).knobs, canonical_knob_settings(r.knob_settings));
}

TEST_F(OverrideWriter, AppendKeepsUnrelatedEntriesAndReplacesTheMatchingOneInPlace) {
  write(path, R"({"version": 2, "comment": "kept", "engine_overrides": [
      {"op": "conv_fprop", "engine_name": "other", "tensors": [{"tensor_id": "X", "dim": [1, 1, 2, 2]}], "extra": 1},
      {"op": "matmul", "engine_name": "old", "tensors": [{"tensor_id": "C", "dim": [4, 2], "stride": [2, 1]},
                                                           {"tensor_id": "A", "dim": [4, 8], "stride": [8, 1]},
                                                           {"tensor_id": "B", "dim": [8, 2], "stride": [2, 1]}]},
      {"op": "matmul", "engine_name": "bigger", "tensors": [{"tensor_id": "A", "dim": [40, 8], "stride": [8, 1]}]}]})");
  Result<OverrideWriteReport> report = store(winner());
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_TRUE(report->replaced);
  EXPECT_EQ(report->entries, 3u);
  const json doc = document();
  EXPECT_EQ(doc["comment"], "kept");
  const json& entries = doc["engine_overrides"];
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["engine_name"], "other");
  EXPECT_EQ(entries[0]["extra"], 1);
  EXPECT_EQ(entries[1]["engine_name"], "tiled");
  EXPECT_EQ(entries[2]["engine_name"], "bigger");

  // Writing again replaces again: at most one entry per key.
  ASSERT_TRUE(store(winner("naive", 1)).ok());
  ASSERT_EQ(document()["engine_overrides"].size(), 3u);
  EXPECT_EQ(document()["engine_overrides"][1]["engine_name"], "naive");
}

TEST_F(OverrideWriter, AConvolutionEntryNamesItsInputsXAndW) {
  auto tensor = [](std::vector<std::int64_t> dims) {
    auto t = std::make_shared<TensorAttributes>();
    t->set_dim(dims).set_stride(TensorAttributes::packed_strides(dims));
    return t;
  };
  Operation conv;
  conv.kind = OperationKind::CONV_FPROP;
  conv.inputs = {{"W", tensor({64, 64, 3, 3})}, {"X", tensor({16, 64, 56, 56})}};
  conv.outputs = {{"Y", tensor({16, 64, 56, 56})}};
  const OperationGraph conv_graph("conv", {conv}, {}, DataType::FLOAT);
  Result<OverrideWriteReport> report = write_autotune_override(conv_graph, winner(), OverrideWriteContext{*device, *registry},
                                                               AutotuneStorageConfig{path, false});
  ASSERT_TRUE(report.ok()) << report.error().message();
  const json doc = document();
  EXPECT_EQ(doc["engine_overrides"][0]["op"], "conv_fprop");
  EXPECT_EQ(doc["engine_overrides"][0]["tensors"],
            json::parse(R"([{"tensor_id": "X", "dim": [16, 64, 56, 56], "stride": [200704, 3136, 56, 1]},
                            {"tensor_id": "W", "dim": [64, 64, 3, 3], "stride": [576, 9, 3, 1]}])"));
}

TEST_F(OverrideWriter, AnEntryThatAlsoNamesTheOutputOfTheSameGraphIsReplacedNotDuplicated) {
  write(path, R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "old", "tensors": [{"tensor_id": "A", "dim": [4, 8], "stride": [8, 1]},
                                                           {"tensor_id": "B", "dim": [8, 2], "stride": [2, 1]},
                                                           {"tensor_id": "C", "dim": [4, 2], "stride": [2, 1]}]},
      {"op": "matmul", "engine_name": "other output", "tensors": [{"tensor_id": "A", "dim": [4, 8], "stride": [8, 1]},
                                                           {"tensor_id": "B", "dim": [8, 2], "stride": [2, 1]},
                                                           {"tensor_id": "C", "dim": [4, 2], "stride": [4, 1]}]}]})");
  Result<OverrideWriteReport> report = store(winner());
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_TRUE(report->replaced);
  const json doc = document();
  ASSERT_EQ(doc["engine_overrides"].size(), 2u);
  EXPECT_EQ(doc["engine_overrides"][0]["engine_name"], "tiled");
  EXPECT_EQ(doc["engine_overrides"][0]["tensors"].size(), 2u);
  EXPECT_EQ(doc["engine_overrides"][1]["engine_name"], "other output");
}

TEST_F(OverrideWriter, AnEntryThatDiffersByACriterionIsKept) {
  write(path, R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "old", "criteria": {"pointwise_mode": 1},
       "tensors": [{"tensor_id": "A", "dim": [4, 8], "stride": [8, 1]}, {"tensor_id": "B", "dim": [8, 2], "stride": [2, 1]},
                   {"tensor_id": "C", "dim": [4, 2], "stride": [2, 1]}]}]})");
  ASSERT_TRUE(store(winner()).ok());
  EXPECT_EQ(document()["engine_overrides"].size(), 2u);
}

TEST_F(OverrideWriter, DeleteAllReplacesEverythingEvenAVersionOneOrBrokenFile) {
  write(path, R"({"engine_overrides": [{"op": "matmul", "engine_id": 1, "tensors": []}]})");
  Result<OverrideWriteReport> report = store(winner(), true);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(document()["engine_overrides"].size(), 1u);
  EXPECT_EQ(document()["version"], 2);
  write(path, "{ not json");
  ASSERT_TRUE(store(winner(), true).ok());
  EXPECT_EQ(document()["engine_overrides"].size(), 1u);
  EXPECT_FALSE(report->moved_aside);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder), {}), 2);  // the file and its .lock
}

TEST_F(OverrideWriter, AppendingToAVersionOneOrNonOverrideFileIsRefusedAndWritesNothing) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"engine_overrides": [{"op": "matmul", "engine_id": 1, "tensors": []}]})", "it has no version key"},
      {R"({"version": 1, "engine_overrides": []})", "its version 1 is not 2"},
      {R"({"version": 2, "settings": {}})", "it has no engine_overrides array"},
      {R"([1, 2])", "it is not a JSON object"},
      {R"({"version": 2, "engine_overrides": {"op": "matmul"}})", "its engine_overrides is not an array"},
  };
  for (const auto& [text, why] : cases) {
    write(path, text);
    LogCapture logs;
    Result<OverrideWriteReport> report = store(winner());
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().code(), ErrorCode::INVALID_VALUE);
    EXPECT_NE(report.error().message().find(why), std::string::npos) << report.error().message();
    EXPECT_NE(report.error().message().find("nothing was written"), std::string::npos);
    EXPECT_EQ(read(path), text);
    EXPECT_EQ(logs.count_containing("refusing to append"), 0) << "returned, not logged: the caller decides";
  }
}

TEST_F(OverrideWriter, ACorruptFileIsMovedAsideTwiceInOneSecondWithoutOverwriting) {
  for (const char* broken : {"{ first broken", "{ second broken"}) {
    write(path, broken);
    LogCapture logs;
    Result<OverrideWriteReport> report = store(winner());  // the same unix second both times
    ASSERT_TRUE(report.ok()) << report.error().message();
    ASSERT_TRUE(report->moved_aside);
    EXPECT_EQ(read(*report->moved_aside), broken);
    EXPECT_EQ(logs.count_containing("autotune: " + path.string() + " could not be read", log::Level::ERROR), 1);
    EXPECT_EQ(document()["engine_overrides"].size(), 1u);
  }
  EXPECT_TRUE(std::filesystem::exists(folder / "overrides.json.corrupt-1776767400"));
  EXPECT_TRUE(std::filesystem::exists(folder / "overrides.json.corrupt-1776767400.1"));
  EXPECT_EQ(read(folder / "overrides.json.corrupt-1776767400"), "{ first broken");
  EXPECT_EQ(read(folder / "overrides.json.corrupt-1776767400.1"), "{ second broken");
}

TEST_F(OverrideWriter, EveryLineOfAWriteWithAStaleTemporaryAndACorruptFileIsInTheAutotuneCategory) {
  write(path, "{ broken");
  const std::filesystem::path stale = folder / ".overrides.json.tmp-abc123";
  write(stale, "half a file");
  LogCapture logs;
  Result<OverrideWriteReport> report = store(winner());
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_EQ(logs.count_containing("autotune: removed " + stale.string()), 1);
  EXPECT_EQ(logs.count_containing("could not be read"), 1);
  const std::vector<std::string> lines = logs.lines();
  ASSERT_GE(lines.size(), 3u);  // the removal, the move aside, the write
  for (const std::string& line : lines) EXPECT_EQ(line.rfind("autotune: ", 0), 0u) << line;
}

TEST_F(OverrideWriter, AMalformedEntryOfAValidFileIsKeptWhereItWasReportedAndNeverMatched) {
  // The second entry has this graph's key but no engine: malformed, so the
  // writer must neither replace it nor drop it.
  const std::string text = R"({"version": 2, "engine_overrides": [
      {"op": "conv_fprop", "engine_name": "keep", "tensors": []},
      {"op": "matmul", "tensors": [{"tensor_id": "A", "dim": [4, 8], "stride": [8, 1]},
                                   {"tensor_id": "B", "dim": [8, 2], "stride": [2, 1]}], "note": "mine"},
      {"op": "matmul", "engine_name": "x", "tensors": "bad"}]})";
  write(path, text);
  LogCapture logs;
  Result<OverrideWriteReport> report = store(winner());
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_FALSE(report->moved_aside);
  EXPECT_FALSE(report->replaced);
  EXPECT_EQ(report->entries, 4u);
  ASSERT_EQ(report->malformed.size(), 2u);
  EXPECT_EQ(report->malformed[0].index, 1u);
  EXPECT_EQ(report->malformed[0].reason, "engine_name: missing (give engine_name or engine_id)");
  EXPECT_EQ(report->malformed[1].index, 2u);
  EXPECT_EQ(report->malformed[1].reason, "tensors: expected an array");
  EXPECT_EQ(logs.count_containing("autotune: " + path.string() + ": entry 1: engine_name: missing", log::Level::WARN), 1);
  EXPECT_EQ(logs.count_containing("autotune: " + path.string() + ": entry 2: tensors: expected an array", log::Level::WARN), 1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder), {}), 2);  // no corrupt copy

  const json before = json::parse(text)["engine_overrides"];
  const json doc = document();
  const json& entries = doc["engine_overrides"];
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0], before[0]);
  EXPECT_EQ(entries[1], before[1]);
  EXPECT_EQ(entries[2], before[2]);
  EXPECT_EQ(entries[3]["engine_name"], "tiled");

  // Writing again still keeps them, and a reader skips them.
  ASSERT_TRUE(store(winner("naive", 1)).ok());
  Result<OverrideFile> back = read_override_file(path);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->rejected.size(), 2u);
  EXPECT_EQ(back->rejected[0].index, 1u);
  ASSERT_EQ(back->entries.size(), 2u);
  EXPECT_EQ(back->entries[1].engine_name, "naive");
  EXPECT_EQ(back->entries[1].index, 3u);
}

TEST_F(OverrideWriter, ACorruptFileThatCannotBeMovedIsOverwrittenWithAWarning) {
  write(path, "garbage");
  OverrideWriteOptions options;
  options.move_aside = [](const std::filesystem::path& p, std::int64_t) -> Result<std::filesystem::path> {
    return Error(ErrorCode::IO_ERROR, "cannot rename " + p.string());
  };
  LogCapture logs;
  Result<OverrideWriteReport> report = store(winner(), false, options);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->moved_aside);
  EXPECT_EQ(report->note, "the unreadable file was overwritten");
  EXPECT_EQ(logs.count_containing("nor moved aside (cannot rename", log::Level::WARN), 1);
  EXPECT_EQ(document()["engine_overrides"].size(), 1u);
}

TEST_F(OverrideWriter, AnUnwritableFolderIsAnIoErrorNamingThePath) {
  write(folder / "plain", "a regular file");
  path = folder / "plain" / "overrides.json";
  LogCapture logs;
  Result<OverrideWriteReport> report = store(winner());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code(), ErrorCode::IO_ERROR);
  EXPECT_NE(report.error().message().find((folder / "plain").string()), std::string::npos) << report.error().message();
  EXPECT_EQ(logs.count_containing((folder / "plain").string(), log::Level::ERROR), 0) << "returned, not logged";
}

TEST_F(OverrideWriter, MissingFoldersAreCreated) {
  path = folder / "a" / "b" / "overrides.json";
  ASSERT_TRUE(store(winner()).ok());
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST_F(OverrideWriter, AGraphWithoutNamedTensorsIsSkippedWithAWarning) {
  Operation bare;
  bare.kind = OperationKind::MATMUL;
  OperationGraph empty("bare", {bare}, {}, DataType::FLOAT);
  LogCapture logs;
  Result<OverrideWriteReport> report = write_autotune_override(
      empty, winner(), OverrideWriteContext{*device, *registry}, AutotuneStorageConfig{path, false});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->status, OverrideWriteReport::Status::SKIPPED);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(logs.count_containing("autotune: not writing", log::Level::WARN), 1);
}

TEST_F(OverrideWriter, AutotuneWritesTheRankZeroWinner) {
  engines[0]->behaviour().cost_ms = [](const KnobValues&) { return 2.0; };
  engines[1]->behaviour().cost_ms = [](const KnobValues& k) { return k.get_int("tile") == 16 ? 0.5 : 1.0; };
  ASSERT_TRUE(graph.add_all_engines().is_good());
  ASSERT_TRUE(graph.add_engine(2, {{"tile", std::int64_t{16}}}).is_good());
  std::vector<AutotuneResult> results;
  AutotuneConfig config;
  config.strategy = AutotuneStrategy::FIXED_AVERAGE;
  Error e = graph.autotune(handle.get(), pack, workspace.data(), static_cast<std::int64_t>(workspace.size()), config,
                           AutotuneStorageConfig{path, false}, &results);
  ASSERT_TRUE(e.is_good()) << e.message();
  const json doc = document();
  const json& entry = doc["engine_overrides"][0];
  EXPECT_EQ(entry["engine_name"], "tiled");
  EXPECT_EQ(entry["autotune_metadata"]["knobs"][0]["value"], 16);
  EXPECT_EQ(entry["autotune_metadata"]["min_time_ms"], results[0].min_time_ms);
  EXPECT_EQ(entry["autotune_metadata"]["iterations_run"], 10);
}

TEST_F(OverrideWriter, AutotuneReportsARefusedAppendButKeepsTheWinnerSelected) {
  write(path, R"({"engine_overrides": []})");
  ASSERT_TRUE(graph.add_all_engines().is_good());
  Error e = graph.autotune(handle.get(), pack, workspace.data(), static_cast<std::int64_t>(workspace.size()), {},
                           AutotuneStorageConfig{path, false});
  EXPECT_EQ(e.code(), ErrorCode::INVALID_VALUE);
  EXPECT_TRUE(graph.execute(handle.get(), pack, workspace.data()).is_good());
}

std::string deep_version(std::size_t levels) {
  return "{\"version\": " + std::string(levels, '[') + "1" + std::string(levels, ']') + ", \"engine_overrides\": []}";
}

TEST_F(OverrideWriter, AFileNestedAHundredThousandLevelsIsUnreadableAndMovedAsideBeforeTheWinnerIsWritten) {
  const std::string deep = deep_version(100000);
  write(path, deep);
  LogCapture logs;
  Result<OverrideWriteReport> report = store(winner());
  ASSERT_TRUE(report.ok()) << report.error().message();
  ASSERT_TRUE(report->moved_aside);
  EXPECT_EQ(read(*report->moved_aside), deep);
  EXPECT_EQ(logs.count_containing("autotune: " + path.string() + " could not be read (" + path.string() +
                                      ": line 1, column 76: arrays and objects nested more than 64 levels deep",
                                  log::Level::ERROR),
            1);
  EXPECT_EQ(document()["version"], 2);
  EXPECT_EQ(document()["engine_overrides"].size(), 1u);
}

TEST_F(OverrideWriter, ARefusalQuotesAnOverlongVersionCutToEightyBytes) {
  const std::string text = R"({"version": ")" + std::string(1000, '9') + R"(", "engine_overrides": []})";
  write(path, text);
  Result<OverrideWriteReport> report = store(winner());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().message().find("its version \"" + std::string(79, '9') + "... is not 2"), std::string::npos)
      << report.error().message();
  EXPECT_EQ(read(path), text);
}

TEST(OverrideTimestamp, IsIso8601Utc) {
  EXPECT_EQ(iso8601_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(iso8601_utc(1776767400), "2026-04-21T10:30:00Z");
}

TEST(OverrideMerge, EarlierInputsThenEarlierEntriesWinAndUnknownFieldsSurvive) {
  const std::filesystem::path folder = temporary_folder();
  write(folder / "a.json", R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "a1", "tensors": [{"tensor_id": "A", "dim": [1]}], "note": "x"},
      {"op": "matmul", "engine_name": "a2", "tensors": [{"tensor_id": "A", "dim": [1]}]}]})");
  write(folder / "b.json", R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "b1", "tensors": [{"tensor_id": "A", "dim": [1]}]},
      {"op": "matmul", "engine_name": "b2", "tensors": [{"tensor_id": "A", "dim": [2]}], "note": "y"}]})");
  Result<std::size_t> merged = merge_override_files({folder / "a.json", folder / "b.json"}, folder / "out.json");
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  EXPECT_EQ(*merged, 2u);
  const json out = json::parse(read(folder / "out.json"));
  EXPECT_EQ(out["engine_overrides"][0]["engine_name"], "a1");
  EXPECT_EQ(out["engine_overrides"][0]["note"], "x");
  EXPECT_EQ(out["engine_overrides"][1]["engine_name"], "b2");
  EXPECT_EQ(out["engine_overrides"][1]["note"], "y");
  write(folder / "v1.json", R"({"engine_overrides": []})");
  EXPECT_EQ(merge_override_files({folder / "v1.json"}, folder / "out.json").error().code(), ErrorCode::INVALID_VALUE);
  std::filesystem::remove_all(folder);
}

TEST(OverrideMerge, AnInputNestedAHundredThousandLevelsIsRefusedNamingItAndNothingIsWritten) {
  const std::filesystem::path folder = temporary_folder();
  write(folder / "deep.json", deep_version(100000));
  Result<std::size_t> merged = merge_override_files({folder / "deep.json"}, folder / "out.json");
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().message(), (folder / "deep.json").string() +
                                          ": line 1, column 76: arrays and objects nested more than 64 levels deep "
                                          "(limit: 64 levels)");
  EXPECT_FALSE(std::filesystem::exists(folder / "out.json"));
  std::filesystem::remove_all(folder);
}

// IO_ERROR is kept for the output, so that a caller can tell a bad input from
// an output it cannot write (the tool exits 2 for one and 3 for the other).
TEST(OverrideMerge, AnUnreadableInputIsInvalidValueAndAnUnwritableOutputIsIoError) {
  const std::filesystem::path folder = temporary_folder();
  Result<std::size_t> missing = merge_override_files({folder / "missing.json"}, folder / "out.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(missing.error().message(), "cannot open " + (folder / "missing.json").string() + ": No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(folder / "out.json"));

  write(folder / "a.json", R"({"version": 2, "engine_overrides": []})");
  std::filesystem::create_directory(folder / "taken.json");
  Result<std::size_t> taken = merge_override_files({folder / "a.json"}, folder / "taken.json");
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code(), ErrorCode::IO_ERROR);
  EXPECT_EQ(taken.error().message(), "cannot read " + (folder / "taken.json").string() + ": Is a directory");
  std::filesystem::remove_all(folder);
}

// An engine's name is whatever bytes its provider gives (a plugin, say):
// the file holds it as valid UTF-8 (U+FFFD for each ill-formed part), reads
// back whole, and a later winner of the same graph replaces that entry.
TEST_F(OverrideWriter, AnEngineNameThatIsNotUtf8IsStoredRepairedAndTheFileStaysReadable) {
  Result<OverrideWriteReport> first = store(winner("tiled\xFF\xC0\xAF"));
  ASSERT_TRUE(first.ok()) << first.error().message();
  const json doc = document();  // a strict parser: every string is UTF-8
  ASSERT_EQ(doc["engine_overrides"].size(), 1u);
  EXPECT_EQ(doc["engine_overrides"][0]["engine_name"], "tiled\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  Result<OverrideFile> back = read_override_file(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->entries.size(), 1u);
  EXPECT_TRUE(back->rejected.empty());

  Result<OverrideWriteReport> second = store(winner());
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_TRUE(second->replaced);
  EXPECT_EQ(second->entries, 1u);
  EXPECT_EQ(document()["engine_overrides"][0]["engine_name"], "tiled");
}

}  // namespace
}  // namespace tunekit::graph
