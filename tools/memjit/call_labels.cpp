#include "call_labels.h"

#include <charconv>
#include <set>

#include "memjit/signature/reflection.h"
#include "memjit/signature/sip_signature.h"

namespace memjit::cli {
namespace {

using signature::RecordKind;
using signature::TypeRecord;

std::string join(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

// Labels the raw values `r` consumes, from `next` on, as the invoker numbers them.
void labelRecord(const TypeRecord& r, const std::string& path, std::size_t& next, std::vector<std::string>& out) {
  auto leaf = [&] {
    if (next < out.size()) out[next] = path;
    ++next;
  };
  switch (r.kind) {
    case RecordKind::Primitive:
    case RecordKind::Unknown:
    case RecordKind::NDArray:
    case RecordKind::Scalar:
    case RecordKind::PyHomogeneousList: leaf(); return;
    case RecordKind::Null: return;
    case RecordKind::Named: labelRecord(r.slots.at(0), join(path, r.name), next, out); return;
    case RecordKind::Dict:
    case RecordKind::List: labelRecord(r.slots.at(0), path, next, out); return;
    case RecordKind::SList:
    case RecordKind::STuple:
      for (std::size_t i = 0; i < r.slots.size(); ++i) labelRecord(r.slots[i], join(path, std::to_string(i)), next, out);
      return;
    case RecordKind::SDict:
      for (std::size_t i = 0; i < r.slots.size(); ++i) labelRecord(r.slots[i], join(path, r.keys[i]), next, out);
      return;
  }
}

void labelRoots(const std::vector<TypeRecord>& records, std::vector<std::string>& out) {
  std::size_t next = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    // A named root is known by its name (added by the Named case), an unnamed
    // structure by its position, an unnamed leaf not at all (it is argN).
    const bool leaf = signature::rawArity(records[i]) == 1 && records[i].kind != RecordKind::SList &&
                      records[i].kind != RecordKind::STuple && records[i].kind != RecordKind::SDict &&
                      records[i].kind != RecordKind::Dict && records[i].kind != RecordKind::List;
    std::string prefix = records[i].kind == RecordKind::Named || leaf ? "" : std::to_string(i);
    labelRecord(records[i], prefix, next, out);
  }
}

void labelSip(const signature::SipNode& root, std::vector<std::string>& out) {
  for (const signature::SipLeaf& leaf : signature::enumerate(root)) {
    std::string path;
    for (const auto& key : leaf.path)
      path = join(path, std::holds_alternative<std::int64_t>(key) ? std::to_string(std::get<std::int64_t>(key))
                                                                  : std::get<std::string>(key));
    if (leaf.rawIndex >= 0 && static_cast<std::size_t>(leaf.rawIndex) < out.size())
      out[static_cast<std::size_t>(leaf.rawIndex)] = path;
  }
}

std::optional<std::size_t> decimal(std::string_view text) {
  std::size_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

Expected<CallLabels> callLabels(const signature::FunctionSignature& sig, const FunctionType& userType) {
  CallLabels labels;
  labels.inputs.resize(userType.inputs.size());
  labels.results.resize(userType.results.size());
  if (sig.sip && !sig.sip->empty()) {
    auto sip = signature::parseSipSignature(*sig.sip);
    if (!sip) return sip.error().withContext("SIP signature of '" + sig.name + "'");
    if (sip->inputs) labelSip(*sip->inputs, labels.inputs);
    if (sip->results) labelSip(*sip->results, labels.results);
  } else if (!sig.reflection.empty()) {
    auto refl = signature::parseReflection(sig.reflection);
    if (!refl) return refl.error().withContext("reflection of '" + sig.name + "'");
    // With a result allocator the records may list the destinations too.
    std::size_t total = 0;
    for (const auto& r : refl->args) total += signature::rawArity(r);
    while (total > userType.inputs.size() && !refl->args.empty()) {
      total -= signature::rawArity(refl->args.back());
      refl->args.pop_back();
    }
    labelRoots(refl->args, labels.inputs);
    labelRoots(refl->results, labels.results);
  }
  return labels;
}

std::string inputName(const CallLabels& labels, std::size_t index) {
  const std::string& l = labels.inputs.at(index);
  return l.empty() ? "arg" + std::to_string(index) : l;
}

std::optional<std::size_t> findInput(const CallLabels& labels, std::string_view key) {
  for (std::size_t i = 0; i < labels.inputs.size(); ++i)
    if (!labels.inputs[i].empty() && labels.inputs[i] == key) return i;
  if (key.rfind("arg", 0) == 0)
    if (auto n = decimal(key.substr(3)); n && *n < labels.inputs.size()) return n;
  return std::nullopt;
}

std::optional<std::size_t> findResult(const CallLabels& labels, std::string_view key) {
  for (std::size_t i = 0; i < labels.results.size(); ++i)
    if (!labels.results[i].empty() && labels.results[i] == key) return i;
  if (auto n = decimal(key); n && *n < labels.results.size()) return n;
  return std::nullopt;
}

signature::FunctionSignature flatSignature(const signature::FunctionSignature& sig, const FunctionType& userType,
                                           const CallLabels& labels) {
  signature::FunctionSignature flat = sig;
  flat.sip.reset();
  signature::Reflection refl = signature::defaultReflection(userType);
  std::set<std::string> used;
  for (std::size_t i = 0; i < refl.args.size(); ++i) {
    std::string name = inputName(labels, i);
    if (!used.insert(name).second) name = "arg" + std::to_string(i);  // two paths that join alike
    used.insert(name);
    refl.args[i] = TypeRecord::named(name, refl.args[i]);
  }
  flat.reflection = signature::toJson(refl);
  return flat;
}

}  // namespace memjit::cli
