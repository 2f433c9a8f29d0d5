// The kernel builder: dot-product accumulation (FunctionBuilder::dot). Each
// operation is a call of an internal, always-inlined function whose body is
// the portable definition; memjit's pipeline (jit/dot_product.cpp) swaps the
// call for the x86 instruction where the function's target has it. So code
// built here is correct on every target and for every pipeline, and fast
// where the instruction exists.
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "builder_impl.h"
#include "builder_util.h"
#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::fail;

namespace {

enum class DotKind { U8S8, S16, BF16 };

const char* kindName(DotKind k) {
  switch (k) {
    case DotKind::U8S8: return "u8s8";
    case DotKind::S16: return "s16";
    case DotKind::BF16: return "bf16";
  }
  return "?";
}

// The kind the operand types name, or nullopt.
std::optional<DotKind> dotKind(ElementType acc, ElementType a, ElementType b) {
  const bool i32 = acc == ElementType::I32 || acc == ElementType::SI32;
  if (i32 && a == ElementType::UI8 && (b == ElementType::SI8 || b == ElementType::I8)) return DotKind::U8S8;
  const auto s16 = [](ElementType t) { return t == ElementType::I16 || t == ElementType::SI16; };
  if (i32 && s16(a) && s16(b)) return DotKind::S16;
  if (acc == ElementType::F32 && a == ElementType::BF16 && b == ElementType::BF16) return DotKind::BF16;
  return std::nullopt;
}

llvm::Value* everyLane(llvm::IRBuilderBase& ir, llvm::Value* v, unsigned group, unsigned k, unsigned lanes) {
  llvm::SmallVector<int, 64> mask;
  for (unsigned j = 0; j < lanes; ++j) mask.push_back(static_cast<int>(j * group + k));
  return ir.CreateShuffleVector(v, mask);
}

llvm::Value* splat32(llvm::IRBuilderBase& ir, unsigned lanes, std::uint32_t bits) {
  return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(lanes), ir.getInt32(bits));
}

// Integer kinds: the products, widened to i32 (exact), summed into acc with wrapping adds (in any order).
llvm::Value* integerDot(llvm::IRBuilderBase& ir, DotKind kind, llvm::Value* acc, llvm::Value* a, llvm::Value* b,
                        unsigned lanes) {
  const unsigned group = kind == DotKind::U8S8 ? 4 : 2;
  llvm::Type* wide = llvm::FixedVectorType::get(ir.getInt32Ty(), lanes * group);
  llvm::Value* x = kind == DotKind::U8S8 ? ir.CreateZExt(a, wide) : ir.CreateSExt(a, wide);
  llvm::Value* products = ir.CreateMul(x, ir.CreateSExt(b, wide));
  llvm::Value* r = acc;
  for (unsigned k = 0; k < group; ++k) r = ir.CreateAdd(r, everyLane(ir, products, group, k, lanes));
  return r;
}

// vdpbf16ps, bit for bit: see FunctionBuilder::dot. Denormals and NaNs are
// handled on the integer bits, so no target's float environment (DAZ/FTZ,
// NaN propagation) enters the result.
struct Bf16Dot {
  llvm::IRBuilderBase& ir;
  unsigned lanes;

  llvm::Value* isZeroExponent(llvm::Value* bits) {
    return ir.CreateICmpEQ(ir.CreateAnd(bits, splat32(ir, lanes, 0x7f800000u)), splat32(ir, lanes, 0));
  }
  // Denormal (or zero) to the zero of its sign.
  llvm::Value* flushBits(llvm::Value* bits) {
    return ir.CreateSelect(isZeroExponent(bits), ir.CreateAnd(bits, splat32(ir, lanes, 0x80000000u)), bits);
  }
  llvm::Value* isNaN(llvm::Value* bits) {
    return ir.CreateICmpUGT(ir.CreateAnd(bits, splat32(ir, lanes, 0x7fffffffu)), splat32(ir, lanes, 0x7f800000u));
  }
  llvm::Value* quiet(llvm::Value* bits) { return ir.CreateOr(bits, splat32(ir, lanes, 0x00400000u)); }
  // bf16 lanes `k` of each pair, as f32 bits with denormals flushed.
  llvm::Value* widen(llvm::Value* pairs, unsigned k) {
    llvm::Value* h = everyLane(ir, ir.CreateBitCast(pairs, llvm::FixedVectorType::get(ir.getInt16Ty(), 2 * lanes)),
                               2, k, lanes);
    llvm::Value* bits = ir.CreateShl(ir.CreateZExt(h, llvm::FixedVectorType::get(ir.getInt32Ty(), lanes)), 16);
    return flushBits(bits);
  }
  llvm::Value* asFloat(llvm::Value* bits) {
    return ir.CreateBitCast(bits, llvm::FixedVectorType::get(ir.getFloatTy(), lanes));
  }
  // t + x * y rounded once, flushed, with x86's NaN choice (x, y, t, the default NaN).
  llvm::Value* step(llvm::Value* t, llvm::Value* x, llvm::Value* y) {
    llvm::Value* r = ir.CreateIntrinsic(llvm::Intrinsic::fma, {asFloat(t)->getType()}, {asFloat(x), asFloat(y), asFloat(t)});
    llvm::Value* bits = ir.CreateBitCast(r, t->getType());
    llvm::Value* nan = ir.CreateSelect(
        isNaN(x), quiet(x),
        ir.CreateSelect(isNaN(y), quiet(y), ir.CreateSelect(isNaN(t), quiet(t), splat32(ir, lanes, 0xffc00000u))));
    return flushBits(ir.CreateSelect(isNaN(bits), nan, bits));
  }
  llvm::Value* run(llvm::Value* acc, llvm::Value* a, llvm::Value* b) {
    llvm::Value* t = flushBits(ir.CreateBitCast(acc, llvm::FixedVectorType::get(ir.getInt32Ty(), lanes)));
    t = step(t, widen(a, 1), widen(b, 1));
    t = step(t, widen(a, 0), widen(b, 0));
    return asFloat(t);
  }
};

// The module's definition of one kind and width (made once, internal, always inlined).
llvm::Function* fallback(llvm::Module& m, DotKind kind, llvm::Type* accType, llvm::Type* aType, llvm::Type* bType,
                         unsigned lanes) {
  const std::string name =
      std::string(metadata::kDotFallbackPrefix) + kindName(kind) + ".v" + std::to_string(lanes);
  if (llvm::Function* f = m.getFunction(name)) return f;
  auto* type = llvm::FunctionType::get(accType, {accType, aType, bType}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, m);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->setDoesNotAccessMemory();
  llvm::IRBuilder<> ir(llvm::BasicBlock::Create(m.getContext(), "entry", f));
  llvm::Value* acc = f->getArg(0);
  llvm::Value* a = f->getArg(1);
  llvm::Value* b = f->getArg(2);
  ir.CreateRet(kind == DotKind::BF16 ? Bf16Dot{ir, lanes}.run(acc, a, b) : integerDot(ir, kind, acc, a, b, lanes));
  return f;
}

}  // namespace

Value FunctionBuilder::dot(const Value& acc, const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "dot", {&acc, &a, &b}, true)) return {};
  const auto refuse = [&](const std::string& why) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'dot' on (" + acc.typeName() + ", " + a.typeName() + ", " +
                                                   b.typeName() + "): " + why));
    return Value();
  };
  if (!acc.isVector() || !a.isVector() || !b.isVector()) return refuse("needs three vectors");
  const auto element = [](const Value& v) { return std::get<ElementType>(v.type()); };
  const auto kind = dotKind(element(acc), element(a), element(b));
  if (!kind)
    return refuse(
        "needs (vector<Nxi32>, vector<4Nxui8>, vector<4Nxsi8>), (vector<Nxi32>, vector<2Nxi16>, vector<2Nxi16>) or "
        "(vector<Nxf32>, vector<2Nxbf16>, vector<2Nxbf16>)");
  const unsigned group = *kind == DotKind::U8S8 ? 4 : 2;
  if (a.lanes() != b.lanes() || a.lanes() != group * acc.lanes())
    return refuse("a and b need " + std::to_string(group) + " lanes per lane of the accumulator");
  llvm::Function* f = fallback(*function()->getParent(), *kind, acc.llvm()->getType(), a.llvm()->getType(),
                               b.llvm()->getType(), acc.lanes());
  llvm::CallInst* call = impl_->ir.CreateCall(f, {acc.llvm(), a.llvm(), b.llvm()});
  return BuilderOps::make(*this, call, acc.type());
}

}  // namespace memjit::codegen
