#include "memjit/codegen/kernels.h"

#include "memjit/codegen/builder.h"

namespace memjit::codegen {

namespace {

Error checkElement(std::string_view name, const KernelOptions& o) {
  if (!isFloat(o.element))
    return Error(ErrorCode::Unsupported, "kernel '" + std::string(name) + "': element type " +
                                             std::string(spelling(o.element)) + " is not a float type");
  return Error::success();
}

MemRefType vec(const KernelOptions& o) { return MemRefType(o.element, {kDynamic}); }
MemRefType mat(const KernelOptions& o) { return MemRefType(o.element, {kDynamic, kDynamic}); }

FunctionOptions functionOptions(const KernelOptions& o, std::size_t inputs) {
  FunctionOptions f;
  f.arguments.assign(inputs, ArgumentAttributes{o.noalias, o.alignment});
  return f;
}

}  // namespace

Error addElementwiseAdd(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o), vec(o), vec(o)}, {}}, functionOptions(o, 3));
  Value a = b.arg(0), x = b.arg(1), out = b.arg(2);
  b.forLoop(b.index(0), b.dim(out, 0), b.index(1),
            [&](Value i) { b.store(b.load(a, {i}) + b.load(x, {i}), out, {i}, {o.nontemporal}); });
  b.ret();
  return b.finish();
}

Error addSaxpy(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{o.element, vec(o), vec(o)}, {}}, functionOptions(o, 3));
  Value alpha = b.arg(0), x = b.arg(1), y = b.arg(2);
  b.forLoop(b.index(0), b.dim(y, 0), b.index(1), [&](Value i) {
    b.store(b.fma(alpha, b.load(x, {i}), b.load(y, {i})), y, {i}, {o.nontemporal});
  });
  b.ret();
  return b.finish();
}

Error addMatmul(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{mat(o), mat(o), mat(o)}, {}}, functionOptions(o, 3));
  Value A = b.arg(0), B = b.arg(1), C = b.arg(2);
  Value zero = b.constant(o.element, 0.0), one = b.index(1), lo = b.index(0);
  b.forLoop(lo, b.dim(C, 0), one, [&](Value i) {
    b.forLoop(lo, b.dim(C, 1), one, [&](Value j) {
      auto acc = b.forLoop(lo, b.dim(A, 1), one, {zero}, [&](Value k, const std::vector<Value>& s) {
        return std::vector<Value>{b.fma(b.load(A, {i, k}), b.load(B, {k, j}), s[0])};
      });
      b.store(acc[0], C, {i, j}, {o.nontemporal});
    });
  });
  b.ret();
  return b.finish();
}

Error addSum(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o)}, {o.element}}, functionOptions(o, 1));
  Value x = b.arg(0);
  auto sum = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.constant(o.element, 0.0)},
                       [&](Value i, const std::vector<Value>& s) { return std::vector<Value>{s[0] + b.load(x, {i})}; });
  b.ret({sum[0]});
  return b.finish();
}

Error addTranspose(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{mat(o), mat(o)}, {}}, functionOptions(o, 2));
  Value in = b.arg(0), out = b.arg(1);
  // in is rows x cols with row stride `cols`; its transpose is the same
  // buffer read with the strides swapped.
  Value rows = b.dim(in, 0), cols = b.dim(in, 1);
  MemRefType anyStrides(o.element, {kDynamic, kDynamic}, StridedLayout{kDynamic, {kDynamic, kDynamic}});
  Value view = b.reinterpretCast(in, anyStrides, b.index(0), {cols, rows}, {b.index(1), cols});
  b.forLoop(b.index(0), cols, b.index(1), [&](Value i) {
    b.forLoop(b.index(0), rows, b.index(1),
              [&](Value j) { b.store(b.load(view, {i, j}), out, {i, j}, {o.nontemporal}); });
  });
  b.ret();
  return b.finish();
}

namespace {

Value scaledCopy(FunctionBuilder& b, const KernelOptions& o) {
  Value x = b.arg(0), scale = b.arg(1);
  Value n = b.dim(x, 0);
  Value r = b.alloc(vec(o), {n}, 64);
  b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(scale * b.load(x, {i}), r, {i}, {o.nontemporal}); });
  return r;
}

}  // namespace

Error addScaledCopy(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o), o.element}, {vec(o)}}, functionOptions(o, 2));
  b.ret({scaledCopy(b, o)});
  return b.finish();
}

Error addScaledCopyUnranked(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o), o.element}, {UnrankedMemRefType{o.element}}},
                    functionOptions(o, 2));
  b.ret({b.castToUnranked(scaledCopy(b, o))});
  return b.finish();
}

}  // namespace memjit::codegen
