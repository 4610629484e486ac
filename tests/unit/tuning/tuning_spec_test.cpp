// The tuning spec reader: every field lands in the schema, defaults are
// located to the byte, and each kind of mistake is one error naming the
// file, line, column and field.
#include "tunekit/tuning/tuning_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tunekit::tuning {
namespace {

using ::testing::HasSubstr;

const std::string kHeader =
    "schema_version = 1\n"
    "library = \"demo\"\n"
    "library_version = \"1.2.0\"\n"
    "tuning_abi = 2\n"
    "namespace = \"demo::tuning\"\n";

// Line 7 onwards: one implementation with one parameter whose fields the
// tests replace.
std::string one_parameter(const std::string& fields, const std::string& implementation_extra = "") {
  return kHeader +
         "\n[[implementations]]\n"                   // 7
         "name = \"tiles\"\n"                        // 8
         "implementation = \"blocked\"\n"            // 9
         "kernels = { Gemm = [\"float\"] }\n" +      // 10
         implementation_extra +
         "\n[[implementations.parameters]]\n" +  // 12 (with no extra lines)
         fields;
}

const std::string kTile =
    "name = \"algorithm.tile\"\n"
    "type = \"int64\"\n"
    "default = 64\n"
    "minimum = 8\n"
    "multiple_of = 8\n"
    "description = \"rows of a tile\"\n";

std::string error_of(const std::string& text) {
  Result<TuningSpec> spec = parse_tuning_spec(text, "spec.toml");
  if (spec.ok()) return "parsed";
  EXPECT_EQ(spec.error().code(), ErrorCode::INVALID_VALUE);
  return spec.error().message();
}

KernelTuningKey key(std::string kernel, DataType type, std::string implementation = "blocked") {
  return {"demo", std::move(kernel), std::move(implementation), type, platform::DeviceKind::CPU, 2};
}

TEST(TuningSpec, EveryFieldLandsInTheSchemaOfEveryKey) {
  const std::string text = kHeader + R"(
[[implementations]]
name = "blocked_gemm"
implementation = "blocked"
kernels = { Gemm = ["fp64", "float"], Matmul = ["float"] }
constraints = ["algorithm.tile <= algorithm.depth", "algorithm.vector divides algorithm.tile", "x.ratio < x.cap"]

[[implementations.parameters]]
name = "algorithm.tile"
type = "int64"
default = 64
minimum = 8
maximum = 512
multiple_of = 8
description = "rows"

[[implementations.parameters]]
name = "algorithm.depth"
type = "int64"
default = 256
description = "depth"

[[implementations.parameters]]
name = "algorithm.vector"
type = "int64"
default = 8
description = "lanes"

[[implementations.parameters]]
name = "x.ratio"
type = "double"
default = 0.5
minimum = 0
maximum = 1.0
description = "ratio"

[[implementations.parameters]]
name = "x.cap"
type = "double"
default = 2.0
description = "cap"

[[implementations.parameters]]
name = "x.pack"
type = "bool"
default = false
description = "pack"

[[implementations.parameters]]
name = "x.schedule"
member = "schedule"
type = "string"
default = "static"
allowed = ["static", "dynamic"]
required = true
description = "schedule"
)";
  Result<TuningSpec> spec = parse_tuning_spec(text, "spec.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->library, "demo");
  EXPECT_EQ(spec->library_version, "1.2.0");
  EXPECT_EQ(spec->tuning_abi, 2u);
  EXPECT_EQ(spec->cpp_namespace, "demo::tuning");
  ASSERT_EQ(spec->implementations.size(), 1u);
  const TuningSpecImplementation& gemm = spec->implementations[0];
  ASSERT_EQ(gemm.kernels.size(), 2u);
  EXPECT_EQ(gemm.kernels[0].kernel, "Gemm");
  EXPECT_EQ(gemm.kernels[0].element_types, (std::vector<DataType>{DataType::FLOAT, DataType::DOUBLE}));
  EXPECT_EQ(gemm.parameters[0].member, "algorithm_tile");
  EXPECT_EQ(gemm.parameters[6].member, "schedule");

  EXPECT_EQ(spec->keys(), (std::vector<KernelTuningKey>{key("Gemm", DataType::FLOAT), key("Gemm", DataType::DOUBLE),
                                                         key("Matmul", DataType::FLOAT)}));
  ParameterSpec tile{"algorithm.tile", ValueType::INT64, Value(64), 8.0, 512.0, 8, {}, false, "rows"};
  ParameterSpec depth{"algorithm.depth", ValueType::INT64, Value(256), {}, {}, {}, {}, false, "depth"};
  ParameterSpec vector{"algorithm.vector", ValueType::INT64, Value(8), {}, {}, {}, {}, false, "lanes"};
  ParameterSpec ratio{"x.ratio", ValueType::DOUBLE, Value(0.5), 0.0, 1.0, {}, {}, false, "ratio"};
  ParameterSpec cap{"x.cap", ValueType::DOUBLE, Value(2.0), {}, {}, {}, {}, false, "cap"};
  ParameterSpec pack{"x.pack", ValueType::BOOL, Value(false), {}, {}, {}, {}, false, "pack"};
  ParameterSpec schedule{"x.schedule", ValueType::STRING, Value("static"), {}, {}, {}, {"static", "dynamic"}, true,
                         "schedule"};
  const KernelTuningSchema expected(key("Matmul", DataType::FLOAT), {tile, depth, vector, ratio, cap, pack, schedule},
                                    {{"algorithm.tile", ConstraintKind::LESS_EQUAL, "algorithm.depth"},
                                     {"algorithm.vector", ConstraintKind::DIVIDES, "algorithm.tile"},
                                     {"x.ratio", ConstraintKind::LESS, "x.cap"}});
  Result<KernelTuningSchema> schema = spec->schema(key("Matmul", DataType::FLOAT));
  ASSERT_TRUE(schema.ok()) << schema.error().message();
  EXPECT_EQ(*schema, expected);
  EXPECT_EQ(spec->schemas().size(), 3u);
}

TEST(TuningSpec, KeysOutsideTheSpecHaveNoSchema) {
  Result<TuningSpec> spec = parse_tuning_spec(one_parameter(kTile), "spec.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_NE(spec->find(key("Gemm", DataType::FLOAT)), nullptr);
  for (const KernelTuningKey& other :
       {key("Gemm", DataType::DOUBLE), key("Gemv", DataType::FLOAT), key("Gemm", DataType::FLOAT, "naive"),
        KernelTuningKey{"demo", "Gemm", "blocked", DataType::FLOAT, platform::DeviceKind::CPU, 1},
        KernelTuningKey{"other", "Gemm", "blocked", DataType::FLOAT, platform::DeviceKind::CPU, 2},
        KernelTuningKey{"demo", "Gemm", "blocked", DataType::FLOAT, platform::DeviceKind::HIP, 2}}) {
    EXPECT_EQ(spec->find(other), nullptr) << other.to_string();
    EXPECT_EQ(spec->schema(other).error().code(), ErrorCode::NOT_SUPPORTED) << other.to_string();
  }
  EXPECT_EQ(spec->schema(key("Gemv", DataType::FLOAT)).error().message(),
            "spec.toml: key demo/Gemv/blocked/float/cpu/abi2 is not declared by the tuning spec of demo (tuning ABI 2)");
}

TEST(TuningSpec, ValidatesProfilesWithTheRulesOfTheirKey) {
  Result<TuningSpec> spec = parse_tuning_spec(one_parameter(kTile), "spec.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_TRUE(spec->validate({key("Gemm", DataType::FLOAT), {{"algorithm.tile", 128}}}).is_good());
  EXPECT_THAT(spec->validate({key("Gemm", DataType::FLOAT), {{"algorithm.tile", 12}}}).message(),
              HasSubstr("parameter algorithm.tile = 12 is not a multiple of 8"));
  EXPECT_EQ(spec->validate({key("Gemm", DataType::INT8), {{"algorithm.tile", 128}}}).code(), ErrorCode::NOT_SUPPORTED);
}

TEST(TuningSpec, DefaultTextRangeCoversExactlyTheValueBytes) {
  // Parameters as inline tables, with two-byte characters before the value
  // on its line: columns count code points, offsets count bytes.
  const std::string text = kHeader +
                           "\n[[implementations]]\nname = \"tiles\"\nimplementation = \"blocked\"\n"
                           "kernels = { Gemm = [\"float\"] }\n"
                           "parameters = [\n"
                           "  { name = \"a.b\", description = \"d\u00e9j\u00e0 vu\", type = \"double\", default = 1.5e3 },\n"
                           "  { name = \"a.c\", description = \"x\", type = \"string\", default = \"\u00e9t\u00e9\" },\n"
                           "]\n";
  Result<TuningSpec> spec = parse_tuning_spec(text, "spec.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  const SpecTextRange& number = spec->implementations[0].parameters[0].default_text;
  EXPECT_EQ(text.substr(number.offset, number.length), "1.5e3");
  EXPECT_EQ(number.line, 12u);
  const SpecTextRange& string = spec->implementations[0].parameters[1].default_text;
  EXPECT_EQ(text.substr(string.offset, string.length), "\"\u00e9t\u00e9\"");
}

TEST(TuningSpec, ImplementationsAreSortedByNameAndElementTypesCanonical) {
  const std::string text = kHeader + R"(
[[implementations]]
name = "zeta"
implementation = "z"
kernels = { Zed = ["FP32"] }
[[implementations.parameters]]
name = "p"
type = "bool"
default = true
description = "p"

[[implementations]]
name = "alpha"
implementation = "a"
device = "hip"
kernels = { Add = ["bf16", "half", "float"] }
[[implementations.parameters]]
name = "p"
type = "bool"
default = true
description = "p"
)";
  Result<TuningSpec> spec = parse_tuning_spec(text, "spec.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  ASSERT_EQ(spec->implementations.size(), 2u);
  EXPECT_EQ(spec->implementations[0].name, "alpha");
  EXPECT_EQ(spec->implementations[0].device, platform::DeviceKind::HIP);
  EXPECT_EQ(spec->implementations[0].kernels[0].element_types,
            (std::vector<DataType>{DataType::FLOAT, DataType::FLOAT16, DataType::BFLOAT16}));
  EXPECT_EQ(spec->implementations[1].kernels[0].element_types, (std::vector<DataType>{DataType::FLOAT}));
}

// One test per kind of mistake; each message is pinned whole.
TEST(TuningSpecErrors, MissingFieldNamesTheTableLine) {
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"int64\"\ndefault = 1\n")),
            "spec.toml:12:1: implementations[0].parameters[0].description: missing");
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"int64\"\ndescription = \"d\"\n")),
            "spec.toml:12:1: implementations[0].parameters[0].default: missing");
}

TEST(TuningSpecErrors, MissingTopLevelFieldPointsAtTheFileStart) {
  EXPECT_EQ(error_of("schema_version = 1\nlibrary = \"demo\"\n"), "spec.toml:1:1: library_version: missing");
}

TEST(TuningSpecErrors, WrongTypeOfDefault) {
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"int64\"\ndefault = 1.0\ndescription = \"d\"\n")),
            "spec.toml:15:11: implementations[0].parameters[0].default: expected an integer (type int64)");
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"double\"\ndefault = 2\ndescription = \"d\"\n")),
            "spec.toml:15:11: implementations[0].parameters[0].default: expected a float such as 2.0 (type double)");
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"int32\"\ndefault = 2\ndescription = \"d\"\n")),
            "spec.toml:14:8: implementations[0].parameters[0].type: unknown type 'int32' (int64, double, bool, string)");
  EXPECT_EQ(error_of(kHeader + "tuning_abi2 = \"two\"\n"), "spec.toml:6:15: tuning_abi2: unknown field");
}

TEST(TuningSpecErrors, DefaultOutsideItsBounds) {
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"int64\"\ndefault = 4\nminimum = 8\ndescription = \"d\"\n")),
            "spec.toml:15:11: implementations[0].parameters[0].default: parameter a.b = 4 is below the minimum 8");
  EXPECT_EQ(error_of(one_parameter(
                "name = \"a.b\"\ntype = \"double\"\ndefault = 1.5\nmaximum = 1\ndescription = \"d\"\n")),
            "spec.toml:15:11: implementations[0].parameters[0].default: parameter a.b = 1.5 is above the maximum 1");
}

TEST(TuningSpecErrors, DefaultNotAMultiple) {
  EXPECT_EQ(error_of(one_parameter(
                "name = \"a.b\"\ntype = \"int64\"\ndefault = 12\nmultiple_of = 8\ndescription = \"d\"\n")),
            "spec.toml:15:11: implementations[0].parameters[0].default: parameter a.b = 12 is not a multiple of 8");
}

TEST(TuningSpecErrors, StringDefaultNotAllowed) {
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"string\"\ndefault = \"fast\"\nallowed = [\"slow\"]\n"
                                   "description = \"d\"\n")),
            "spec.toml:15:11: implementations[0].parameters[0].default: parameter a.b = \"fast\" is not one of [slow]");
}

TEST(TuningSpecErrors, RulesThatDoNotFitTheType) {
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"bool\"\ndefault = true\nminimum = 0\ndescription = \"d\"\n")),
            "spec.toml:16:11: implementations[0].parameters[0].minimum: bounds apply to int64 and double parameters, "
            "not bool");
  EXPECT_EQ(error_of(one_parameter(
                "name = \"a.b\"\ntype = \"double\"\ndefault = 1.0\nmultiple_of = 2\ndescription = \"d\"\n")),
            "spec.toml:16:15: implementations[0].parameters[0].multiple_of: multiple_of applies to int64 parameters, "
            "not double");
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\ntype = \"int64\"\ndefault = 1\nminimum = 0.5\ndescription = \"d\"\n")),
            "spec.toml:16:11: implementations[0].parameters[0].minimum: expected an integer (the parameter is int64)");
  EXPECT_EQ(error_of(one_parameter(
                "name = \"a.b\"\ntype = \"int64\"\ndefault = 1\nminimum = 4\nmaximum = 2\ndescription = \"d\"\n")),
            "spec.toml:17:11: implementations[0].parameters[0].maximum: maximum 2 is below the minimum 4");
}

TEST(TuningSpecErrors, UnknownConstraintParameter) {
  EXPECT_EQ(error_of(one_parameter(kTile, "constraints = [\"algorithm.tile <= algorithm.depth\"]\n")),
            "spec.toml:11:16: implementations[0].constraints[0]: constraint 'algorithm.tile <= algorithm.depth' names "
            "unknown parameter 'algorithm.depth'");
  EXPECT_EQ(error_of(one_parameter(kTile, "constraints = [\"algorithm.tile >= algorithm.tile\"]\n")),
            "spec.toml:11:16: implementations[0].constraints[0]: 'algorithm.tile >= algorithm.tile' is not "
            "'<a> <= <b>', '<a> < <b>' or '<a> divides <b>'");
}

TEST(TuningSpecErrors, ConstraintThatTheDefaultsBreak) {
  EXPECT_EQ(error_of(one_parameter(kTile, "constraints = [\"algorithm.tile < algorithm.tile\"]\n")),
            "spec.toml:11:16: implementations[0].constraints[0]: inconsistent parameters: algorithm.tile = 64 and "
            "algorithm.tile = 64 violate algorithm.tile < algorithm.tile");
}

TEST(TuningSpecErrors, DuplicateParameter) {
  EXPECT_EQ(error_of(one_parameter(kTile + "\n[[implementations.parameters]]\n" + kTile)),
            "spec.toml:21:8: implementations[0].parameters[1].name: parameter 'algorithm.tile' is declared twice "
            "(first at line 12)");
  EXPECT_EQ(error_of(one_parameter(kTile + "\n[[implementations.parameters]]\nname = \"algorithm.other\"\n"
                                   "member = \"algorithm_tile\"\ntype = \"bool\"\ndefault = true\n"
                                   "description = \"d\"\n")),
            "spec.toml:22:10: implementations[0].parameters[1].member: member 'algorithm_tile' is used twice (first at "
            "line 12)");
}

TEST(TuningSpecErrors, UnknownElementType) {
  std::string text = one_parameter(kTile);
  text.replace(text.find("[\"float\"]"), 9, "[\"float\", \"float23\"]");
  EXPECT_EQ(error_of(text), "spec.toml:10:30: implementations[0].kernels.Gemm[1]: unknown element type 'float23'");
  text = one_parameter(kTile);
  text.replace(text.find("[\"float\"]"), 9, "[\"float\", \"fp32\"]");
  EXPECT_EQ(error_of(text), "spec.toml:10:30: implementations[0].kernels.Gemm[1]: element type float is listed twice");
}

TEST(TuningSpecErrors, KeyDeclaredByTwoImplementations) {
  const std::string second =
      "\n[[implementations]]\nname = \"other\"\nimplementation = \"blocked\"\nkernels = { Gemm = [\"float\"] }\n"
      "[[implementations.parameters]]\n" + kTile;
  EXPECT_EQ(error_of(one_parameter(kTile) + second),
            "spec.toml:23:20: implementations[1].kernels.Gemm: key demo/Gemm/blocked/float/cpu/abi2 is already "
            "declared by implementation 'tiles' (line 7)");
}

TEST(TuningSpecErrors, NamesThatCannotBeCppIdentifiers) {
  std::string text = one_parameter(kTile);
  text.replace(text.find("\"tiles\""), 7, "\"Tiles\"");
  EXPECT_EQ(error_of(text), "spec.toml:8:8: implementations[0].name: 'Tiles' is not a lower-case C++ identifier such "
                            "as unary_elementwise");
  EXPECT_EQ(error_of(one_parameter("name = \"a.b\"\nmember = \"default\"\ntype = \"int64\"\ndefault = 1\n"
                                   "description = \"d\"\n")),
            "spec.toml:14:10: implementations[0].parameters[0].member: 'default' is a C++ keyword");
  EXPECT_EQ(error_of(one_parameter("name = \"2d.tile\"\ntype = \"int64\"\ndefault = 1\ndescription = \"d\"\n")),
            "spec.toml:13:8: implementations[0].parameters[0].name: '2d.tile' does not make a C++ member name; give "
            "one in 'member'");
}

TEST(TuningSpecErrors, SyntaxErrorsNameTheirPosition) {
  EXPECT_THAT(error_of(kHeader + "library = \"again\"\n"), HasSubstr("spec.toml:6:11: "));
  EXPECT_THAT(error_of("schema_version = \n"), HasSubstr("spec.toml:1:"));
}

TEST(TuningSpecErrors, NewerSchemaVersionIsNotSupported) {
  Result<TuningSpec> spec = parse_tuning_spec("schema_version = 2\n", "spec.toml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_EQ(spec.error().message(), "spec.toml: schema_version 2 is newer than this tunekit reads (1)");
}

TEST(TuningSpecErrors, UnreadableFileNamesThePath) {
  Result<TuningSpec> spec = ReadTuningSpec("/nonexistent/tuning.toml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(spec.error().message(), HasSubstr("/nonexistent/tuning.toml"));
}

}  // namespace
}  // namespace tunekit::tuning
