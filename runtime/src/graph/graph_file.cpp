// TOML graph file reader: every field is checked with toml++'s source
// positions, and a GraphFile turns into a Graph for its dims or a shape set.
#include "tunekit/graph/graph_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "tunekit/graph/shape_selection.hpp"
#include "tunekit/internal/toml_parse.hpp"

namespace tunekit::graph {
namespace {

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Error fail(const toml::node* node, const std::string& field, const std::string& problem) const {
    if (node && node->source().begin.line > 0) {
      return {ErrorCode::INVALID_VALUE, fmt::format("{}:{}:{}: {}: {}", source_, node->source().begin.line,
                                                    node->source().begin.column, field, problem)};
    }
    return {ErrorCode::INVALID_VALUE, fmt::format("{}: {}: {}", source_, field, problem)};
  }

  Error only_keys(const toml::table& table, const std::string& field, std::initializer_list<std::string_view> keys) const {
    for (const auto& [key, node] : table) {
      if (std::find(keys.begin(), keys.end(), key.str()) == keys.end()) {
        return fail(&node, field.empty() ? std::string(key.str()) : field + "." + std::string(key.str()), "unknown field");
      }
    }
    return Error::ok();
  }

  Result<std::string> string(const toml::node& node, const std::string& field) const {
    if (auto value = node.value<std::string>(); value && node.is_string()) return *value;
    return fail(&node, field, "expected a string");
  }

  Result<DataType> data_type(const toml::node& node, const std::string& field) const {
    Result<std::string> text = string(node, field);
    if (!text.ok()) return text.error();
    if (auto type = core::parse_data_type(*text)) return *type;
    return fail(&node, field, fmt::format("unknown data type '{}'", *text));
  }

  Result<std::vector<std::int64_t>> int_list(const toml::node& node, const std::string& field) const {
    const toml::array* array = node.as_array();
    if (!array) return fail(&node, field, "expected an array of integers");
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      if (!element.is_integer()) return fail(&element, fmt::format("{}[{}]", field, i), "expected an integer");
      values.push_back(*element.value<std::int64_t>());
    }
    return values;
  }

  Result<std::map<std::string, std::string>> ports(const toml::node& node, const std::string& field) const {
    const toml::table* table = node.as_table();
    if (!table) return fail(&node, field, "expected a table of port = \"tensor name\"");
    std::map<std::string, std::string> ports;
    for (const auto& [key, value] : *table) {
      const std::string port_field = field + "." + std::string(key.str());
      Result<std::string> name = string(value, port_field);
      if (!name.ok()) return name.error();
      ports.emplace(std::string(key.str()), *name);
    }
    return ports;
  }

  Result<TensorAttributes> tensor(const toml::table& table, const std::string& field) const {
    TUNEKIT_RETURN_IF_ERROR(only_keys(table, field, {"name", "uid", "dims", "strides", "data_type", "virtual"}));
    TensorAttributes tensor;
    const toml::node* name = table.get("name");
    if (!name) return fail(&table, field + ".name", "missing");
    Result<std::string> name_text = string(*name, field + ".name");
    if (!name_text.ok()) return name_text.error();
    if (name_text->empty()) return fail(name, field + ".name", "must not be empty");
    tensor.set_name(*name_text);
    if (const toml::node* uid = table.get("uid")) {
      if (!uid->is_integer()) return fail(uid, field + ".uid", "expected an integer");
      tensor.set_uid(*uid->value<std::int64_t>());
    }
    const toml::node* dims = table.get("dims");
    if (!dims) return fail(&table, field + ".dims", "missing");
    Result<std::vector<std::int64_t>> dim_values = int_list(*dims, field + ".dims");
    if (!dim_values.ok()) return dim_values.error();
    tensor.set_dim(*dim_values);
    if (const toml::node* strides = table.get("strides")) {
      Result<std::vector<std::int64_t>> values = int_list(*strides, field + ".strides");
      if (!values.ok()) return values.error();
      if (values->size() != dim_values->size()) {
        return fail(strides, field + ".strides", fmt::format("has {} entries but dims has {}", values->size(), dim_values->size()));
      }
      tensor.set_stride(*values);
    }
    if (const toml::node* type = table.get("data_type")) {
      Result<DataType> value = data_type(*type, field + ".data_type");
      if (!value.ok()) return value.error();
      tensor.set_data_type(*value);
    }
    if (const toml::node* is_virtual = table.get("virtual")) {
      if (!is_virtual->is_boolean()) return fail(is_virtual, field + ".virtual", "expected true or false");
      tensor.set_is_virtual(*is_virtual->value<bool>());
    }
    return tensor;
  }

  Result<GraphFileOperation> operation(const toml::table& table, const std::string& field,
                                       const std::set<std::string>& tensor_names) const {
    TUNEKIT_RETURN_IF_ERROR(only_keys(table, field, {"kind", "name", "inputs", "outputs", "attributes"}));
    GraphFileOperation op;
    const toml::node* kind = table.get("kind");
    if (!kind) return fail(&table, field + ".kind", "missing");
    Result<std::string> kind_text = string(*kind, field + ".kind");
    if (!kind_text.ok()) return kind_text.error();
    auto parsed = parse_operation_kind(*kind_text);
    if (!parsed) return fail(kind, field + ".kind", fmt::format("unknown operation kind '{}'", *kind_text));
    op.kind = *parsed;
    if (const toml::node* name = table.get("name")) {
      Result<std::string> text = string(*name, field + ".name");
      if (!text.ok()) return text.error();
      op.name = *text;
    }
    for (const char* side : {"inputs", "outputs"}) {
      const toml::node* node = table.get(side);
      if (!node) return fail(&table, field + "." + side, "missing");
      auto ports_of = ports(*node, field + "." + side);
      if (!ports_of.ok()) return ports_of.error();
      for (const auto& [port, tensor_name] : *ports_of) {
        if (tensor_names.count(tensor_name) == 0) {
          return fail(node->as_table()->get(port), field + "." + side + "." + port,
                      fmt::format("unknown tensor '{}'", tensor_name));
        }
      }
      (std::string_view(side) == "inputs" ? op.inputs : op.outputs) = std::move(ports_of).value();
    }
    if (const toml::node* attributes = table.get("attributes")) {
      const toml::table* attribute_table = attributes->as_table();
      if (!attribute_table) return fail(attributes, field + ".attributes", "expected a table");
      for (const auto& [key, value] : *attribute_table) {
        const std::string name(key.str());
        const std::string attribute_field = field + ".attributes." + name;
        if (value.is_array()) {
          Result<std::vector<std::int64_t>> list = int_list(value, attribute_field);
          if (!list.ok()) return list.error();
          op.list_attributes.emplace(name, *list);
        } else if (value.is_integer()) {
          op.attributes.emplace(name, *value.value<std::int64_t>());
        } else if (value.is_floating_point()) {
          op.attributes.emplace(name, *value.value<double>());
        } else if (value.is_boolean()) {
          op.attributes.emplace(name, *value.value<bool>());
        } else if (value.is_string()) {
          op.attributes.emplace(name, *value.value<std::string>());
        } else {
          return fail(&value, attribute_field, "expected an integer, number, boolean, string or integer list");
        }
      }
    }
    return op;
  }

  Result<GraphShapeSet> shape_set(const toml::table& table, const std::string& field,
                                  const std::set<std::string>& tensor_names) const {
    TUNEKIT_RETURN_IF_ERROR(only_keys(table, field, {"name", "dims", "strides"}));
    GraphShapeSet set;
    const toml::node* name = table.get("name");
    if (!name) return fail(&table, field + ".name", "missing");
    Result<std::string> text = string(*name, field + ".name");
    if (!text.ok()) return text.error();
    if (text->empty()) return fail(name, field + ".name", "must not be empty");
    if (*text == kBaseShapeName || *text == kAllShapesName) {
      return fail(name, field + ".name",
                  fmt::format("'{}' is reserved ('{}' is the file's own dims, '{}' every shape)", *text,
                              kBaseShapeName, kAllShapesName));
    }
    set.name = *text;
    for (const char* key : {"dims", "strides"}) {
      const toml::node* node = table.get(key);
      if (!node) {
        if (std::string_view(key) == "dims") return fail(&table, field + ".dims", "missing");
        continue;
      }
      const toml::table* entries = node->as_table();
      if (!entries) return fail(node, field + "." + key, "expected a table of tensor name = [integers]");
      for (const auto& [tensor, value] : *entries) {
        const std::string tensor_name(tensor.str());
        const std::string entry_field = field + "." + key + "." + tensor_name;
        if (tensor_names.count(tensor_name) == 0) {
          return fail(&value, entry_field, fmt::format("unknown tensor '{}'", tensor_name));
        }
        Result<std::vector<std::int64_t>> list = int_list(value, entry_field);
        if (!list.ok()) return list.error();
        (std::string_view(key) == "dims" ? set.dims : set.strides).emplace(tensor_name, *list);
      }
    }
    return set;
  }

  Result<GraphFile> file(const toml::table& root) const {
    TUNEKIT_RETURN_IF_ERROR(only_keys(root, "", {"name", "compute_data_type", "io_data_type", "intermediate_data_type",
                                                 "tensors", "operations", "shape_sets"}));
    GraphFile file;
    file.source = source_;
    if (const toml::node* name = root.get("name")) {
      Result<std::string> text = string(*name, "name");
      if (!text.ok()) return text.error();
      file.name = *text;
    }
    for (auto [key, target] : {std::pair{"compute_data_type", &file.compute_data_type},
                               std::pair{"io_data_type", &file.io_data_type},
                               std::pair{"intermediate_data_type", &file.intermediate_data_type}}) {
      if (const toml::node* node = root.get(key)) {
        Result<DataType> type = data_type(*node, key);
        if (!type.ok()) return type.error();
        *target = *type;
      }
    }
    std::set<std::string> tensor_names;
    TUNEKIT_RETURN_IF_ERROR(each_table(root, "tensors", true, [&](const toml::table& t, const std::string& field) -> Error {
      Result<TensorAttributes> tensor = this->tensor(t, field);
      if (!tensor.ok()) return tensor.error();
      if (!tensor_names.insert(tensor->get_name()).second) {
        return fail(t.get("name"), field + ".name", fmt::format("tensor '{}' is defined twice", tensor->get_name()));
      }
      file.tensors.push_back(std::move(tensor).value());
      return Error::ok();
    }));
    TUNEKIT_RETURN_IF_ERROR(each_table(root, "operations", true, [&](const toml::table& t, const std::string& field) -> Error {
      Result<GraphFileOperation> op = operation(t, field, tensor_names);
      if (!op.ok()) return op.error();
      file.operations.push_back(std::move(op).value());
      return Error::ok();
    }));
    std::set<std::string> set_names;
    TUNEKIT_RETURN_IF_ERROR(each_table(root, "shape_sets", false, [&](const toml::table& t, const std::string& field) -> Error {
      Result<GraphShapeSet> set = shape_set(t, field, tensor_names);
      if (!set.ok()) return set.error();
      if (!set_names.insert(set->name).second) {
        return fail(t.get("name"), field + ".name", fmt::format("shape set '{}' is defined twice", set->name));
      }
      file.shape_sets.push_back(std::move(set).value());
      return Error::ok();
    }));
    return file;
  }

 private:
  template <typename Fn>
  Error each_table(const toml::table& root, const char* key, bool required, Fn&& fn) const {
    const toml::node* node = root.get(key);
    if (!node) return required ? fail(nullptr, key, "missing") : Error::ok();
    const toml::array* array = node->as_array();
    if (!array) return fail(node, key, "expected an array of tables ([[" + std::string(key) + "]])");
    if (required && array->empty()) return fail(node, key, "must not be empty");
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const std::string field = fmt::format("{}[{}]", key, i);
      const toml::table* table = element.as_table();
      if (!table) return fail(&element, field, "expected a table");
      TUNEKIT_RETURN_IF_ERROR(fn(*table, field));
    }
    return Error::ok();
  }

  std::string source_;
};

}  // namespace

Result<GraphFile> parse_graph_file(std::string_view text, std::string source_name) {
  Result<toml::table> root = internal::parse_toml_document(text, source_name);
  if (!root.ok()) return root.error();
  return Reader(std::move(source_name)).file(*root);
}

Result<GraphFile> read_graph_file(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return Error(ErrorCode::IO_ERROR, fmt::format("{}: cannot open the graph file", path.string()));
  std::ostringstream contents;
  contents << stream.rdbuf();
  if (stream.bad()) return Error(ErrorCode::IO_ERROR, fmt::format("{}: cannot read the graph file", path.string()));
  return parse_graph_file(contents.str(), path.string());
}

Result<Graph> make_graph(const GraphFile& file, std::optional<std::size_t> shape_set) {
  if (shape_set && *shape_set >= file.shape_sets.size()) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: shape set index {} is out of range ({} shape sets)",
                                                       file.source, *shape_set, file.shape_sets.size()));
  }
  Graph graph;
  graph.set_name(shape_set ? file.name + "/" + file.shape_sets[*shape_set].name : file.name);
  if (file.compute_data_type) graph.set_compute_data_type(*file.compute_data_type);
  if (file.io_data_type) graph.set_io_data_type(*file.io_data_type);
  if (file.intermediate_data_type) graph.set_intermediate_data_type(*file.intermediate_data_type);
  std::map<std::string, Tensor> tensors;
  for (TensorAttributes attributes : file.tensors) {
    if (shape_set) {
      const GraphShapeSet& set = file.shape_sets[*shape_set];
      if (auto dims = set.dims.find(attributes.get_name()); dims != set.dims.end()) {
        attributes.set_dim(dims->second).set_stride({});
      }
      if (auto strides = set.strides.find(attributes.get_name()); strides != set.strides.end()) {
        attributes.set_stride(strides->second);
      }
    }
    tensors.emplace(attributes.get_name(), graph.tensor(attributes));
  }
  for (const auto& entry : file.operations) {
    Operation op;
    op.kind = entry.kind;
    op.name = entry.name;
    for (auto [ports, target] : {std::pair{&entry.inputs, &op.inputs}, std::pair{&entry.outputs, &op.outputs}}) {
      for (const auto& [port, name] : *ports) {
        auto tensor = tensors.find(name);
        if (tensor == tensors.end()) {
          return Error(ErrorCode::INVALID_VALUE,
                       fmt::format("{}: operation '{}' port {}: unknown tensor '{}'", file.source, entry.name, port, name));
        }
        target->emplace(port, tensor->second);
      }
    }
    op.attributes = entry.attributes;
    op.list_attributes = entry.list_attributes;
    graph.add_operation(std::move(op));
  }
  return graph;
}

}  // namespace tunekit::graph
