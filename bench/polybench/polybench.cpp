#include "polybench.h"

#include <cstdlib>
#include <cstring>

#include "memjit/jit/jit.h"
#include "memjit/runtime/buffer.h"
#include "memjit/runtime/variant.h"
#include "memjit/type_syntax.h"

namespace memjit::polybench {

const char* datasetName(Dataset d) {
  static constexpr const char* names[] = {"MINI", "SMALL", "MEDIUM", "LARGE"};
  return names[static_cast<int>(d)];
}

std::int64_t Storage::elements() const {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return n;
}

const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> all = [] {
    std::vector<Kernel> v;
    for (auto part : {datamining, blas, linearAlgebraKernels, solvers, medley, stencils})
      for (Kernel& k : part()) v.push_back(std::move(k));
    return v;
  }();
  return all;
}

std::string functionType(const Kernel& k) {
  std::string t = "(";
  auto add = [&](const std::string& s) { t += (t.size() > 1 ? ", " : "") + s; };
  for (const ScalarSpec& s : k.scalars) add(std::string(spelling(s.type)));
  for (const ArraySpec& a : k.arrays) {
    std::string m = "memref<";
    for (std::size_t i = 0; i < a.dims.size(); ++i) m += "?x";
    add(m + std::string(spelling(a.type)) + ">");
  }
  return t + ") -> ()";
}

Data makeData(const Kernel& k, Dataset d) {
  Data data;
  data.p = k.sizes[static_cast<int>(d)];
  data.s.assign(k.scalars.size(), 0.0);
  for (const ArraySpec& spec : k.arrays) {
    Storage s;
    s.type = spec.type;
    for (int dim : spec.dims) s.shape.push_back(data.p[dim]);
    s.bytes = static_cast<std::size_t>(s.elements()) * storageSize(spec.type);
    const std::size_t rounded = (s.bytes + 63) / 64 * 64;
    s.data = {static_cast<std::byte*>(std::aligned_alloc(64, rounded == 0 ? 64 : rounded)), std::free};
    std::memset(s.data.get(), 0, s.bytes);
    data.a.push_back(std::move(s));
  }
  k.init(data);
  return data;
}

void copyArrays(const Data& from, Data& to) {
  to.p = from.p;
  to.s = from.s;
  for (std::size_t i = 0; i < from.a.size(); ++i) std::memcpy(to.a[i].data.get(), from.a[i].data.get(), from.a[i].bytes);
}

void runTwin(Twin t, Data& d) {
  std::vector<void*> arrays;
  for (Storage& s : d.a) arrays.push_back(s.data.get());
  t(d.p.data(), d.s.data(), arrays.data());
}

codegen::FunctionOptions functionOptions(const Kernel& k, Flavor f) {
  codegen::FunctionOptions o;
  o.arguments.assign(k.scalars.size() + k.arrays.size(), codegen::ArgumentAttributes{true, 64});
  for (std::size_t i = 0; i < k.scalars.size(); ++i) o.arguments[i] = {};
  o.checked = f == Flavor::Checked;
  return o;
}

Expected<jit::Function> compile(jit::Jit& jit, const Kernel& k, Flavor f) {
  codegen::Module m(std::string("polybench_") + k.name);
  // A valid symbol: polybench_floyd_warshall_par.
  std::string name = std::string("polybench_") + k.name + (f == Flavor::Parallel ? "_par" : f == Flavor::Checked ? "_checked" : "");
  for (char& c : name)
    if (c == '-') c = '_';
  MEMJIT_TRY(k.build(m, name, k, functionOptions(k, f), f == Flavor::Parallel));
  MEMJIT_ASSIGN_OR_RETURN(jit::LoadedModule loaded, jit.add(std::move(m)));
  return loaded.function(name);
}

Error run(const jit::Function& fn, const Kernel& k, Data& d) {
  std::vector<runtime::Variant> args;
  for (std::size_t i = 0; i < k.scalars.size(); ++i)
    switch (k.scalars[i].type) {
      case ElementType::F32: args.emplace_back(static_cast<float>(d.s[i])); break;
      case ElementType::Index: args.emplace_back(static_cast<long long>(d.s[i])); break;
      default: args.emplace_back(d.s[i]);
    }
  for (Storage& s : d.a) {
    MEMJIT_ASSIGN_OR_RETURN(runtime::Buffer b, runtime::Buffer::view(s.type, s.data.get(), s.shape));
    args.emplace_back(std::move(b));
  }
  MEMJIT_ASSIGN_OR_RETURN(runtime::Variant r, fn.runtime().invoke(args));
  (void)r;
  return Error::success();
}

}  // namespace memjit::polybench
