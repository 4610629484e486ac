// `tunekit describe` checked against what the kernel reports independently:
// /proc/cpuinfo for identity and features, sysfs for caches.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "run_tool.hpp"

namespace {

using tunekit::testing::run_tool;

nlohmann::json describe_json() {
  auto run = run_tool({"describe", "--json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return nlohmann::json::parse(run.out);
}

// The first processor block of /proc/cpuinfo as key/value pairs.
std::map<std::string, std::string> proc_cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(in, line) && !line.empty()) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    fields[key] = value;
  }
  return fields;
}

std::optional<std::size_t> sysfs_cache_bytes(int level, const std::string& type) {
  for (int index = 0; index < 8; ++index) {
    const std::filesystem::path dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_in(dir / "level"), type_in(dir / "type"), size_in(dir / "size");
    int l = 0;
    std::string t, size;
    if (!(level_in >> l) || !(type_in >> t) || !(size_in >> size)) continue;
    if (l != level || t != type) continue;
    std::size_t value = std::stoul(size);
    if (size.back() == 'K') value *= 1024;
    if (size.back() == 'M') value *= 1024 * 1024;
    return value;
  }
  return std::nullopt;
}

TEST(DescribeCommand, JsonMatchesProcCpuinfoOnX86) {
  auto info = proc_cpuinfo();
  if (!info.count("vendor_id")) GTEST_SKIP() << "no x86 /proc/cpuinfo on this machine";
  nlohmann::json j = describe_json();
  const nlohmann::json& cpu = j["processor"];
  const std::string vendor_id = info["vendor_id"];
  const std::string expected_vendor = vendor_id == "AuthenticAMD"   ? "AMD"
                                      : vendor_id == "GenuineIntel" ? "Intel"
                                                                    : "";
  if (!expected_vendor.empty()) {
    EXPECT_EQ(cpu["vendor"], expected_vendor);
  }
  EXPECT_EQ(cpu["architecture"], "x86_64");
  EXPECT_EQ(cpu["family"], std::stoi(info["cpu family"]));
  EXPECT_EQ(cpu["model"], std::stoi(info["model"]));
  EXPECT_EQ(cpu["stepping"], std::stoi(info["stepping"]));

  std::set<std::string> flags;
  std::istringstream flag_stream(info["flags"]);
  for (std::string flag; flag_stream >> flag;) flags.insert(flag);
  std::set<std::string> features(cpu["features"].begin(), cpu["features"].end());
  for (const auto& [ours, kernel] : std::map<std::string, std::string>{
           {"avx2", "avx2"}, {"fma", "fma"}, {"avx512f", "avx512f"}, {"avx", "avx"},
           {"sse4_2", "sse4_2"}, {"avx512bw", "avx512bw"}, {"avx512vnni", "avx512_vnni"},
           {"avx_vnni", "avx_vnni"}, {"f16c", "f16c"}, {"bmi2", "bmi2"}}) {
    EXPECT_EQ(features.count(ours), flags.count(kernel)) << "feature " << ours;
  }
  EXPECT_EQ(cpu["logical_cores"], sysconf(_SC_NPROCESSORS_ONLN));
}

TEST(DescribeCommand, CacheSizesMatchSysfs) {
  nlohmann::json cpu = describe_json()["processor"];
  auto l1d = sysfs_cache_bytes(1, "Data");
  auto l2 = sysfs_cache_bytes(2, "Unified");
  auto l3 = sysfs_cache_bytes(3, "Unified");
  if (!l1d && !l2 && !l3) GTEST_SKIP() << "sysfs exposes no cache information here";
  if (l1d) {
    EXPECT_EQ(cpu["l1_data_bytes"], *l1d);
  }
  if (l2) {
    EXPECT_EQ(cpu["l2_bytes"], *l2);
  }
  if (l3) {
    EXPECT_EQ(cpu["l3_bytes"], *l3);
  }
}

TEST(DescribeCommand, ExecutionHonoursThreadsAndReportsTheDevice) {
  auto run = run_tool({"describe", "--json", "--threads", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["execution"]["effective_threads"], 1);
  EXPECT_EQ(j["execution"]["requested_threads"], 1);
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_EQ(j["devices"][0]["kind"], "cpu");
  EXPECT_EQ(j["devices"][0]["signature"].get<std::string>(),
            "cpu:" + j["execution"]["identity_signature"].get<std::string>());
}

TEST(DescribeCommand, TextOutputNamesTheProcessor) {
  auto run = run_tool({"describe"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("effective threads"), std::string::npos);
  EXPECT_NE(run.out.find("features"), std::string::npos);
}

TEST(DescribeCommand, PowerPolicyMatchesCpufreqOrIsNull) {
  std::set<std::string> governors;
  std::optional<long long> max_khz;
  std::error_code error;
  for (std::filesystem::directory_iterator it("/sys/devices/system/cpu/cpufreq", error), end;
       !error && it != end; it.increment(error)) {
    if (it->path().filename().string().rfind("policy", 0) != 0) continue;
    std::ifstream governor_in(it->path() / "scaling_governor"), max_in(it->path() / "cpuinfo_max_freq");
    std::string governor;
    long long khz = 0;
    if (governor_in >> governor) governors.insert(governor);
    if ((max_in >> khz) && (!max_khz || khz > *max_khz)) max_khz = khz;
  }
  nlohmann::json power = describe_json()["power"];
  if (governors.empty()) {
    EXPECT_TRUE(power["governor"].is_null()) << power.dump();
  } else {
    std::string joined;
    for (const std::string& g : governors) joined += (joined.empty() ? "" : ",") + g;
    EXPECT_EQ(power["governor"], joined);
  }
  if (max_khz) {
    EXPECT_EQ(power["max_frequency_khz"], *max_khz);
  } else {
    EXPECT_TRUE(power["max_frequency_khz"].is_null()) << power.dump();
  }
  auto text = run_tool({"describe"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("governor           "), std::string::npos) << text.out;
}

TEST(TunekitTool, BadUsageExitsWithTwo) {
  EXPECT_EQ(run_tool({"describe", "--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(run_tool({"no-such-command"}).exit_code, 2);
  EXPECT_EQ(run_tool({}).exit_code, 2);
  EXPECT_EQ(run_tool({"describe", "--threads", "-3"}).exit_code, 2);
}

TEST(TunekitTool, HelpOnEverySubcommandExitsWithZero) {
  auto top = run_tool({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("describe"), std::string::npos);
  auto describe = run_tool({"describe", "--help"});
  EXPECT_EQ(describe.exit_code, 0);
  EXPECT_NE(describe.out.find("--json"), std::string::npos);
}

}  // namespace
