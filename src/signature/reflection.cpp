#include "memjit/signature/reflection.h"

#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "memjit/signature/mangling.h"

namespace memjit::signature {

using nlohmann::json;

namespace {

Error invalid(const std::string& where, const std::string& message) {
  return Error(ErrorCode::InvalidArgument, where + ": " + message);
}

bool isDigits(std::string_view s) {
  if (s.empty() || s.size() > 5 || s[0] == '0') return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool isPrimitiveName(std::string_view s) {
  if (s == "bf16") return true;
  return s.size() >= 2 && (s[0] == 'i' || s[0] == 'f') && isDigits(s.substr(1));
}

// nlohmann's recursive-descent parser is iterative, but destroying and walking
// deep values recurses; bound array/object nesting before parsing.
Error checkDepth(std::string_view text) {
  std::size_t depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth + 2)  // the object and the a/r arrays are not records
        return Error(ErrorCode::ParseError,
                     "JSON nests deeper than " + std::to_string(kMaxNestingDepth) + " levels", i);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Error::success();
}

// Builds the DOM the way nlohmann's json_sax_dom_parser does (a duplicate key
// keeps its last value), but reports malformed input by value: json::parse
// throws, and throwing for every bad input made the reflection fuzzer spend
// most of its time unwinding (ASan's fake-stack GC runs on every throw).
class DomBuilder {
 public:
  explicit DomBuilder(json& root) : root_(root) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(json::number_integer_t v) { return add(v); }
  bool number_unsigned(json::number_unsigned_t v) { return add(v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return add(v); }
  bool string(json::string_t& v) { return add(v); }
  bool binary(json::binary_t& v) { return add(std::move(v)); }
  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool key(json::string_t& k) {
    member_ = &stack_.back()->get_ref<json::object_t&>()[k];
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool end_array() { return close(); }
  // `position` counts the bytes read. A syntax error ("[json.exception.parse_error.101]
  // parse error at line 1, column 5: syntax error ...") is at the last byte read; a
  // number too large for a double ("[json.exception.out_of_range.406] number
  // overflow parsing '1e999'") at the number's first byte.
  bool parse_error(std::size_t position, const std::string& token, const json::exception& e) {
    std::string_view what = e.what();
    if (auto bracket = what.find("] "); bracket != std::string_view::npos) what.remove_prefix(bracket + 2);
    std::size_t offset = position > 0 ? position - 1 : 0;
    if (what.starts_with("parse error")) {
      if (auto colon = what.find(": "); colon != std::string_view::npos) what.remove_prefix(colon + 2);
    } else if (token.size() <= position) {
      offset = position - token.size();
    }
    error_ = Error(ErrorCode::ParseError, "invalid JSON: " + std::string(what), offset);
    return false;
  }

  Error takeError() { return std::move(error_); }

 private:
  // Where the next value goes: the root, the open array's end or the member just keyed.
  json* place() {
    if (stack_.empty()) return &root_;
    if (json* top = stack_.back(); top->is_array()) {
      auto& array = top->get_ref<json::array_t&>();
      array.emplace_back();
      return &array.back();
    }
    return member_;
  }
  template <typename V>
  bool add(V&& v) {
    *place() = json(std::forward<V>(v));
    return true;
  }
  bool open(json::value_t type) {
    json* slot = place();
    *slot = json(type);
    stack_.push_back(slot);
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  json& root_;
  std::vector<json*> stack_;
  json* member_ = nullptr;
  Error error_;
};

Expected<json> parseJson(std::string_view text) {
  MEMJIT_TRY(checkDepth(text));
  json root;
  DomBuilder dom(root);
  try {
    if (!json::sax_parse(text.begin(), text.end(), &dom)) return dom.takeError();
  } catch (const std::exception& e) {  // allocation failure
    return Error(ErrorCode::ParseError, std::string("invalid JSON: ") + e.what(), 0);
  }
  return root;
}

// --- Byte offsets of records -------------------------------------------------
// nlohmann::json keeps no source positions, so a record's offset is found by
// walking the text along the record's path ("a[1][2]"), which is how every
// record error names where it happened.

std::size_t skipSpace(std::string_view t, std::size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

// Past the end of the (already validated) JSON value starting at i.
std::size_t skipValue(std::string_view t, std::size_t i) {
  std::size_t depth = 0;
  bool inString = false;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') {
        inString = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') ++depth;
    else if (c == ']' || c == '}') {
      if (depth == 0) return i;  // end of the enclosing container
      if (--depth == 0) return i + 1;
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':')) {
      return i;
    }
  }
  return i;
}

// Offset of the record named by `where` ("a[0][1]", "r[2]", "record[1]") in `text`.
std::size_t locate(std::string_view text, std::string_view where) {
  std::size_t i = skipSpace(text, 0);
  const std::size_t bracket = std::min(where.find('['), where.size());
  const std::string_view top = where.substr(0, bracket);
  if (top == "a" || top == "r") {
    if (i >= text.size() || text[i] != '{') return i;
    std::size_t found = i;
    ++i;
    while (true) {
      i = skipSpace(text, i);
      if (i >= text.size() || text[i] != '"') break;
      const std::size_t keyEnd = skipValue(text, i);
      const std::string_view key = text.substr(i, keyEnd - i);
      const bool match = key.size() == top.size() + 2 && key.substr(1, top.size()) == top;
      i = skipSpace(text, keyEnd);
      if (i < text.size() && text[i] == ':') ++i;
      i = skipSpace(text, i);
      if (match) found = i;  // the last duplicate wins, as in nlohmann
      i = skipSpace(text, skipValue(text, i));
      if (i < text.size() && text[i] == ',') ++i;
    }
    i = found;
  }
  for (std::size_t p = bracket; p < where.size() && where[p] == '[';) {
    const std::size_t close = where.find(']', p);
    if (close == std::string_view::npos) break;
    std::size_t index = 0;
    for (std::size_t q = p + 1; q < close; ++q) index = index * 10 + static_cast<std::size_t>(where[q] - '0');
    p = close + 1;
    if (i >= text.size() || text[i] != '[') break;
    i = skipSpace(text, i + 1);
    for (std::size_t k = 0; k < index && i < text.size(); ++k) {
      i = skipSpace(text, skipValue(text, i));
      if (i < text.size() && text[i] == ',') i = skipSpace(text, i + 1);
    }
  }
  return i;
}

// Record errors carry their path as a message prefix; give them the offset too.
Error withOffset(std::string_view text, Error e) {
  if (e.ok() || e.offset()) return e;
  const std::size_t colon = e.message().find(": ");
  return Error(ErrorCode::ParseError, e.message(), locate(text, std::string_view(e.message()).substr(0, colon)));
}

Expected<TypeRecord> fromJson(const json& j, const std::string& where);

Expected<std::vector<TypeRecord>> slotsFrom(const json& j, std::size_t first, const std::string& where) {
  std::vector<TypeRecord> slots;
  for (std::size_t i = first; i < j.size(); ++i) {
    MEMJIT_ASSIGN_OR_RETURN(TypeRecord r, fromJson(j[i], where + "[" + std::to_string(i) + "]"));
    slots.push_back(std::move(r));
  }
  return slots;
}

Expected<TypeRecord> primitiveFromJson(const std::string& s, const std::string& where) {
  if (s == "unknown") return TypeRecord::unknown();
  if (!isPrimitiveName(s))
    return invalid(where, "unknown primitive type \"" + s + "\", expected i<bits>, f<bits>, bf16 or \"unknown\"");
  return TypeRecord::primitive(s);
}

// A compound record `[kind, fields...]` at `where`, its kind already read.
struct Compound {
  const json& j;
  const std::string& where;
  const std::string& kind;

  std::size_t size() const { return j.size(); }
  std::string sub(std::size_t i) const { return where + "[" + std::to_string(i) + "]"; }
  Error wantSize(std::size_t size) const {
    if (j.size() == size) return Error::success();
    return invalid(where, "\"" + kind + "\" takes " + std::to_string(size - 1) + " field(s), found " +
                              std::to_string(j.size() - 1));
  }
  Expected<TypeRecord> field(std::size_t i) const { return fromJson(j[i], sub(i)); }
};

Expected<TypeRecord> namedFromJson(const Compound& c) {
  MEMJIT_TRY(c.wantSize(3));
  if (!c.j[1].is_string()) return invalid(c.sub(1), "the name of a \"named\" record must be a string");
  MEMJIT_ASSIGN_OR_RETURN(TypeRecord slot, c.field(2));
  return TypeRecord::named(c.j[1].get<std::string>(), std::move(slot));
}

Expected<std::optional<std::int64_t>> ndarrayDim(const json& d, const std::string& where) {
  if (d.is_null()) return std::optional<std::int64_t>();
  if (d.is_number_unsigned() && d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    return invalid(where, "dim does not fit in 64 bits");
  if (d.is_number_integer() && d.get<std::int64_t>() >= 0) return std::optional<std::int64_t>(d.get<std::int64_t>());
  return invalid(where, "an ndarray dim must be a non-negative integer or null");
}

Expected<TypeRecord> ndarrayFromJson(const Compound& c) {
  const std::size_t n = c.size();
  if (n < 3) return invalid(c.where, "\"ndarray\" needs an element type and a rank");
  MEMJIT_ASSIGN_OR_RETURN(TypeRecord element, c.field(1));
  if (c.j[2].is_null()) {
    if (n != 3) return invalid(c.sub(3), "an ndarray of unknown (null) rank takes no dims");
    return TypeRecord::unrankedNDArray(std::move(element));
  }
  if (!c.j[2].is_number_integer() || c.j[2].get<std::int64_t>() < 0)
    return invalid(c.sub(2), "the rank of an ndarray must be a non-negative integer or null");
  const auto rank = c.j[2].get<std::int64_t>();
  if (static_cast<std::uint64_t>(rank) != n - 3)
    return invalid(c.where, "ndarray of rank " + std::to_string(rank) + " lists " + std::to_string(n - 3) + " dims");
  std::vector<std::optional<std::int64_t>> dims;
  for (std::size_t i = 3; i < n; ++i) {
    MEMJIT_ASSIGN_OR_RETURN(std::optional<std::int64_t> dim, ndarrayDim(c.j[i], c.sub(i)));
    dims.push_back(dim);
  }
  return TypeRecord::ndarray(std::move(element), std::move(dims));
}

Expected<TypeRecord> sdictFromJson(const Compound& c) {
  std::vector<std::string> keys;
  std::vector<TypeRecord> slots;
  for (std::size_t i = 1; i < c.size(); ++i) {
    const json& e = c.j[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string())
      return invalid(c.sub(i), "an sdict entry must be [\"key\", record]");
    MEMJIT_ASSIGN_OR_RETURN(TypeRecord r, fromJson(e[1], c.sub(i) + "[1]"));
    keys.push_back(e[0].get<std::string>());
    slots.push_back(std::move(r));
  }
  return TypeRecord::sdict(std::move(keys), std::move(slots));
}

// "dict", "list" and "scalar": a wrapper around one record of a given kind.
Expected<TypeRecord> wrapperFromJson(const Compound& c) {
  MEMJIT_TRY(c.wantSize(2));
  MEMJIT_ASSIGN_OR_RETURN(TypeRecord inner, c.field(1));
  if (c.kind == "dict") {
    if (inner.kind != RecordKind::SDict) return invalid(c.sub(1), "\"dict\" must wrap an \"sdict\"");
    return TypeRecord::wrap(RecordKind::Dict, std::move(inner));
  }
  if (c.kind == "list") {
    if (inner.kind != RecordKind::SList && inner.kind != RecordKind::STuple)
      return invalid(c.sub(1), "\"list\" must wrap an \"slist\" or \"stuple\"");
    return TypeRecord::wrap(RecordKind::List, std::move(inner));
  }
  if (inner.kind != RecordKind::Primitive) return invalid(c.sub(1), "\"scalar\" must wrap a primitive type");
  return TypeRecord::wrap(RecordKind::Scalar, std::move(inner));
}

Expected<TypeRecord> compoundFromJson(const Compound& c) {
  if (c.kind == "named") return namedFromJson(c);
  if (c.kind == "ndarray") return ndarrayFromJson(c);
  if (c.kind == "slist" || c.kind == "stuple") {
    MEMJIT_ASSIGN_OR_RETURN(auto slots, slotsFrom(c.j, 1, c.where));
    return c.kind == "slist" ? TypeRecord::slist(std::move(slots)) : TypeRecord::stuple(std::move(slots));
  }
  if (c.kind == "sdict") return sdictFromJson(c);
  if (c.kind == "py_homogeneous_list") {
    MEMJIT_TRY(c.wantSize(2));
    MEMJIT_ASSIGN_OR_RETURN(TypeRecord element, c.field(1));
    return TypeRecord::pyHomogeneousList(std::move(element));
  }
  if (c.kind == "dict" || c.kind == "list" || c.kind == "scalar") return wrapperFromJson(c);
  return invalid(c.sub(0), "unknown type record kind \"" + c.kind + "\"");
}

Expected<TypeRecord> fromJson(const json& j, const std::string& where) {
  if (j.is_null()) return TypeRecord::null();
  if (j.is_string()) return primitiveFromJson(j.get_ref<const std::string&>(), where);
  if (!j.is_array())
    return invalid(where, std::string("expected a type record (string, null or array), found ") + j.type_name());
  if (j.empty() || !j[0].is_string())
    return invalid(where, "a compound type record must start with its kind as a string");
  return compoundFromJson(Compound{j, where, j[0].get_ref<const std::string&>()});
}

json toJsonValue(const TypeRecord& r) {
  switch (r.kind) {
    case RecordKind::Primitive: return r.name;
    case RecordKind::Null: return nullptr;
    case RecordKind::Unknown: return "unknown";
    case RecordKind::NDArray: {
      json a = json::array({"ndarray", toJsonValue(r.slots.at(0))});
      if (!r.rank) {
        a.push_back(nullptr);
        return a;
      }
      a.push_back(*r.rank);
      for (const auto& d : r.dims) a.push_back(d ? json(*d) : json(nullptr));
      return a;
    }
    case RecordKind::SDict: {
      json a = json::array({"sdict"});
      for (std::size_t i = 0; i < r.slots.size(); ++i)
        a.push_back(json::array({i < r.keys.size() ? r.keys[i] : std::string(), toJsonValue(r.slots[i])}));
      return a;
    }
    case RecordKind::Named:
      return json::array({"named", r.name, toJsonValue(r.slots.at(0))});
    default: {
      json a = json::array({std::string(recordKindName(r.kind))});
      for (const TypeRecord& s : r.slots) a.push_back(toJsonValue(s));
      return a;
    }
  }
}

std::string dimsText(const TypeRecord& r) {
  if (!r.rank) return "*";
  std::string s;
  for (std::size_t i = 0; i < r.dims.size(); ++i) {
    if (i) s += "x";
    s += r.dims[i] ? std::to_string(*r.dims[i]) : "?";
  }
  return s;
}

// One record: the text after "label: " on the current line, children below.
void readable(const TypeRecord& r, const std::string& indent, std::string& out) {
  switch (r.kind) {
    case RecordKind::Primitive: out += r.name + "\n"; return;
    case RecordKind::Null: out += "null\n"; return;
    case RecordKind::Unknown: out += "unknown\n"; return;
    case RecordKind::NDArray: {
      const TypeRecord& e = r.slots.at(0);
      bool simple = e.kind == RecordKind::Primitive || e.kind == RecordKind::Unknown || e.kind == RecordKind::Null;
      if (simple) {
        std::string en = e.kind == RecordKind::Primitive ? e.name : std::string(recordKindName(e.kind));
        out += "ndarray<" + en + (r.rank && r.dims.empty() ? "" : ", " + dimsText(r)) + ">\n";
        return;
      }
      out += "ndarray<" + dimsText(r) + "> of\n" + indent + "  element: ";
      readable(e, indent + "  ", out);
      return;
    }
    case RecordKind::Named:
      out += "named \"" + r.name + "\": ";
      readable(r.slots.at(0), indent, out);
      return;
    case RecordKind::SDict:
      out += "sdict\n";
      for (std::size_t i = 0; i < r.slots.size(); ++i) {
        out += indent + "  \"" + (i < r.keys.size() ? r.keys[i] : std::string()) + "\": ";
        readable(r.slots[i], indent + "  ", out);
      }
      return;
    case RecordKind::Scalar:
    case RecordKind::Dict:
    case RecordKind::List:
    case RecordKind::PyHomogeneousList:
      out += std::string(recordKindName(r.kind)) + " of ";
      readable(r.slots.at(0), indent, out);
      return;
    default:  // slist, stuple
      out += std::string(recordKindName(r.kind)) + "\n";
      for (std::size_t i = 0; i < r.slots.size(); ++i) {
        out += indent + "  " + std::to_string(i) + ": ";
        readable(r.slots[i], indent + "  ", out);
      }
      return;
  }
}

Expected<std::vector<TypeRecord>> recordList(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return Error(ErrorCode::InvalidArgument, std::string("reflection has no \"") + key + "\" array");
  if (!it->is_array())
    return Error(ErrorCode::InvalidArgument, std::string("reflection \"") + key + "\" must be an array");
  return slotsFrom(*it, 0, key);
}

}  // namespace

std::string_view recordKindName(RecordKind kind) noexcept {
  switch (kind) {
    case RecordKind::Primitive: return "primitive";
    case RecordKind::Null: return "null";
    case RecordKind::Unknown: return "unknown";
    case RecordKind::Named: return "named";
    case RecordKind::NDArray: return "ndarray";
    case RecordKind::SList: return "slist";
    case RecordKind::STuple: return "stuple";
    case RecordKind::SDict: return "sdict";
    case RecordKind::PyHomogeneousList: return "py_homogeneous_list";
    case RecordKind::Dict: return "dict";
    case RecordKind::List: return "list";
    case RecordKind::Scalar: return "scalar";
  }
  return "?";
}

namespace {

TypeRecord ofKind(RecordKind kind, std::vector<TypeRecord> slots = {}) {
  TypeRecord r;
  r.kind = kind;
  r.slots = std::move(slots);
  return r;
}

}  // namespace

TypeRecord TypeRecord::primitive(std::string name) {
  TypeRecord r = ofKind(RecordKind::Primitive);
  r.name = std::move(name);
  return r;
}
TypeRecord TypeRecord::null() { return ofKind(RecordKind::Null); }
TypeRecord TypeRecord::unknown() { return TypeRecord{}; }
TypeRecord TypeRecord::named(std::string name, TypeRecord slot) {
  TypeRecord r = wrap(RecordKind::Named, std::move(slot));
  r.name = std::move(name);
  return r;
}
TypeRecord TypeRecord::ndarray(TypeRecord element, std::vector<std::optional<std::int64_t>> dims) {
  TypeRecord r = wrap(RecordKind::NDArray, std::move(element));
  r.rank = static_cast<std::int64_t>(dims.size());
  r.dims = std::move(dims);
  return r;
}
TypeRecord TypeRecord::unrankedNDArray(TypeRecord element) { return wrap(RecordKind::NDArray, std::move(element)); }
TypeRecord TypeRecord::slist(std::vector<TypeRecord> slots) { return ofKind(RecordKind::SList, std::move(slots)); }
TypeRecord TypeRecord::stuple(std::vector<TypeRecord> slots) { return ofKind(RecordKind::STuple, std::move(slots)); }
TypeRecord TypeRecord::sdict(std::vector<std::string> keys, std::vector<TypeRecord> slots) {
  TypeRecord r = ofKind(RecordKind::SDict, std::move(slots));
  r.keys = std::move(keys);
  return r;
}
TypeRecord TypeRecord::pyHomogeneousList(TypeRecord element) {
  return wrap(RecordKind::PyHomogeneousList, std::move(element));
}
TypeRecord TypeRecord::wrap(RecordKind kind, TypeRecord inner) {
  TypeRecord r = ofKind(kind);
  r.slots.push_back(std::move(inner));
  return r;
}

Expected<TypeRecord> parseTypeRecord(std::string_view text) {
  MEMJIT_ASSIGN_OR_RETURN(json j, parseJson(text));
  auto r = fromJson(j, "record");
  if (!r) return withOffset(text, r.error());
  return r;
}

Expected<Reflection> parseReflection(std::string_view text) {
  MEMJIT_ASSIGN_OR_RETURN(json j, parseJson(text));
  if (!j.is_object())
    return Error(ErrorCode::ParseError,
                 std::string("reflection must be a JSON object with \"a\" and \"r\", found ") + j.type_name(),
                 skipSpace(text, 0));
  Reflection r;
  for (auto [key, out] : {std::pair{"a", &r.args}, std::pair{"r", &r.results}}) {
    auto list = recordList(j, key);
    if (!list) return withOffset(text, list.error());
    *out = std::move(*list);
  }
  if (auto v = j.find("v"); v != j.end()) {
    if (!v->is_number_integer() ||
        (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)))
      return Error(ErrorCode::ParseError, "reflection \"v\" must be an integer version", skipSpace(text, 0));
    r.version = v->get<std::int64_t>();
  }
  return r;
}

std::string toJson(const TypeRecord& record) { return toJsonValue(record).dump(); }

std::string toJson(const Reflection& reflection) {
  // nlohmann sorts object keys; "a" < "r" < "v" happens to be the producers' order too,
  // but the text is assembled by hand so the order never depends on that.
  std::string s = "{\"a\":[";
  for (std::size_t i = 0; i < reflection.args.size(); ++i) {
    if (i) s += ",";
    s += toJson(reflection.args[i]);
  }
  s += "],\"r\":[";
  for (std::size_t i = 0; i < reflection.results.size(); ++i) {
    if (i) s += ",";
    s += toJson(reflection.results[i]);
  }
  s += "]";
  if (reflection.version) s += ",\"v\":" + std::to_string(*reflection.version);
  return s + "}";
}

std::string toReadableString(const Reflection& reflection) {
  std::string out = "args:\n";
  for (std::size_t i = 0; i < reflection.args.size(); ++i) {
    out += "  " + std::to_string(i) + ": ";
    readable(reflection.args[i], "  ", out);
  }
  out += "results:\n";
  for (std::size_t i = 0; i < reflection.results.size(); ++i) {
    out += "  " + std::to_string(i) + ": ";
    readable(reflection.results[i], "  ", out);
  }
  if (reflection.version) out += "version: " + std::to_string(*reflection.version) + "\n";
  return out;
}

TypeRecord defaultRecord(const Type& type) {
  auto element = [](ElementType e) -> TypeRecord {
    switch (e) {
      case ElementType::I1: return TypeRecord::primitive("i1");
      case ElementType::I8: case ElementType::SI8: case ElementType::UI8: return TypeRecord::primitive("i8");
      case ElementType::I16: case ElementType::SI16: case ElementType::UI16: return TypeRecord::primitive("i16");
      case ElementType::I32: case ElementType::SI32: case ElementType::UI32: return TypeRecord::primitive("i32");
      case ElementType::I64: case ElementType::SI64: case ElementType::UI64:
      case ElementType::Index: return TypeRecord::primitive("i64");
      case ElementType::F16: return TypeRecord::primitive("f16");
      case ElementType::BF16: return TypeRecord::primitive("bf16");
      case ElementType::F32: return TypeRecord::primitive("f32");
      case ElementType::F64: return TypeRecord::primitive("f64");
      case ElementType::Ptr: case ElementType::ComplexF32: case ElementType::ComplexF64:
        return TypeRecord::unknown();
    }
    return TypeRecord::unknown();
  };
  if (auto* s = std::get_if<ElementType>(&type)) return element(*s);
  if (auto* m = std::get_if<MemRefType>(&type)) {
    std::vector<std::optional<std::int64_t>> dims;
    for (std::int64_t d : m->shape()) dims.push_back(d == kDynamic ? std::nullopt : std::optional<std::int64_t>(d));
    return TypeRecord::ndarray(element(m->element()), std::move(dims));
  }
  return TypeRecord::unrankedNDArray(element(std::get<UnrankedMemRefType>(type).element));
}

Reflection defaultReflection(const FunctionType& type) {
  Reflection r;
  for (const Type& t : type.inputs) r.args.push_back(defaultRecord(t));
  for (const Type& t : type.results) r.results.push_back(defaultRecord(t));
  r.version = 1;
  return r;
}

std::size_t rawArity(const TypeRecord& record) noexcept {
  switch (record.kind) {
    case RecordKind::Null: return 0;
    case RecordKind::Named:
    case RecordKind::Dict:
    case RecordKind::List:
    case RecordKind::Scalar:
      return record.slots.empty() ? 0 : rawArity(record.slots[0]);
    case RecordKind::SList:
    case RecordKind::STuple:
    case RecordKind::SDict: {
      std::size_t n = 0;
      for (const TypeRecord& s : record.slots) n += rawArity(s);
      return n;
    }
    default: return 1;
  }
}

Error checkArity(const Reflection& reflection, std::size_t numRawInputs, std::size_t numRawResults) {
  auto total = [](const std::vector<TypeRecord>& rs) {
    std::size_t n = 0;
    for (const TypeRecord& r : rs) n += rawArity(r);
    return n;
  };
  const std::size_t a = total(reflection.args), r = total(reflection.results);
  if (a != numRawInputs)
    return Error(ErrorCode::ArityMismatch, "reflection args consume " + std::to_string(a) +
                                               " raw arguments but the function has " + std::to_string(numRawInputs));
  if (r != numRawResults)
    return Error(ErrorCode::ArityMismatch, "reflection results consume " + std::to_string(r) +
                                               " raw results but the function has " + std::to_string(numRawResults));
  return Error::success();
}

}  // namespace memjit::signature
