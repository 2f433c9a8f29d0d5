#include "debug_info.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Path.h>

#include "llvm_compat.h"
#include "memjit/codegen/lowering.h"
#include "memjit/type_syntax.h"

namespace memjit::codegen::detail {

namespace {

// One scalar piece of an input as the expanded convention passes it: where
// it lies in the input's variable (0 and 0 for a whole scalar).
struct Piece {
  std::uint64_t offsetBits = 0;
  std::uint64_t sizeBits = 0;
};

// The pieces of `t` (lowered to `lt`, a scalar or a struct of scalars and
// arrays), in the order the expanded convention passes them.
void flatten(const llvm::DataLayout& layout, llvm::Type* lt, std::uint64_t base, std::vector<Piece>& out) {
  if (auto* st = llvm::dyn_cast<llvm::StructType>(lt)) {
    const llvm::StructLayout* sl = layout.getStructLayout(st);
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      flatten(layout, st->getElementType(i), base + sl->getElementOffsetInBits(i), out);
  } else if (auto* at = llvm::dyn_cast<llvm::ArrayType>(lt)) {
    const std::uint64_t stride = layout.getTypeAllocSizeInBits(at->getElementType());
    for (std::uint64_t i = 0; i < at->getNumElements(); ++i)
      flatten(layout, at->getElementType(), base + i * stride, out);
  } else {
    out.push_back({base, layout.getTypeSizeInBits(lt)});
  }
}

}  // namespace

FunctionDebugInfo::FunctionDebugInfo(const LoweredFunction& lowered, const std::source_location& loc)
    : lowered_(lowered), builder_(*lowered.function->getParent()), line_(loc.line()) {
  llvm::Module& m = *lowered.function->getParent();
  if (!m.getModuleFlag("Debug Info Version"))
    m.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  if (!m.getModuleFlag("Dwarf Version")) m.addModuleFlag(llvm::Module::Max, "Dwarf Version", 5);
  llvm::DIFile* generator = file(loc.file_name());
  unit_ = builder_.createCompileUnit(llvm::dwarf::DW_LANG_C_plus_plus_14, generator, "memjit",
                                     /*isOptimized=*/false, "", 0);
  auto* signature = builder_.createSubroutineType(builder_.getOrCreateTypeArray({nullptr}));
  auto describe = [&](llvm::Function* f, llvm::DINode::DIFlags flags) {
    auto* sp = builder_.createFunction(generator, f->getName(), f->getName(), generator, line_, signature, line_,
                                       flags | llvm::DINode::FlagPrototyped, llvm::DISubprogram::SPFlagDefinition);
    f->setSubprogram(sp);
    return sp;
  };
  subprogram_ = describe(lowered.function, llvm::DINode::FlagZero);
  // The interface's loads and call sit on the generator's line of the
  // function: inlining the body there keeps its lines (an inlined frame).
  if (lowered.cInterface && !lowered.cInterface->isDeclaration()) {
    llvm::DISubprogram* sp = describe(lowered.cInterface, llvm::DINode::FlagArtificial);
    auto here = llvm::DILocation::get(m.getContext(), line_, 0, sp);
    for (llvm::BasicBlock& block : *lowered.cInterface)
      for (llvm::Instruction& inst : block) inst.setDebugLoc(here);
  }
}

llvm::DebugLoc FunctionDebugInfo::at(const std::source_location& loc) {
  return llvm::DILocation::get(lowered_.function->getContext(), loc.line(), loc.column(), subprogram_);
}

llvm::DIFile* FunctionDebugInfo::file(std::string_view path) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second;
  const llvm::StringRef p(path.data(), path.size());
  llvm::DIFile* f = builder_.createFile(llvm::sys::path::filename(p), llvm::sys::path::parent_path(p));
  files_.emplace(std::string(path), f);
  return f;
}

llvm::DIType* FunctionDebugInfo::elementType(ElementType t) {
  const std::string name = toString(t);
  if (auto it = types_.find(name); it != types_.end()) return it->second;
  const llvm::DataLayout& layout = lowered_.function->getParent()->getDataLayout();
  const LoweringOptions& o = lowered_.options.lowering;
  llvm::DIType* type = nullptr;
  if (t == ElementType::Ptr) {
    type = builder_.createPointerType(nullptr, layout.getPointerSizeInBits(), 0, std::nullopt, name);
  } else {
    unsigned encoding = llvm::dwarf::DW_ATE_signed;
    if (t == ElementType::I1) encoding = llvm::dwarf::DW_ATE_boolean;
    else if (isUnsignedInteger(t)) encoding = llvm::dwarf::DW_ATE_unsigned;
    else if (isFloat(t)) encoding = llvm::dwarf::DW_ATE_float;
    else if (isComplex(t)) encoding = llvm::dwarf::DW_ATE_complex_float;
    llvm::Type* lt = lowerElementType(lowered_.function->getContext(), t, o);
    type = builder_.createBasicType(name, layout.getTypeAllocSizeInBits(lt), encoding);
  }
  types_.emplace(name, type);
  return type;
}

// Scalars as their element type; a ranked memref as its descriptor struct
// (`p a.aligned[0]@n` in gdb), an unranked one as `{rank, descriptor}`; a
// bare-pointer memref as a pointer to its elements.
llvm::DIType* FunctionDebugInfo::typeOf(const Type& t) {
  if (isScalar(t)) return elementType(std::get<ElementType>(t));
  const std::string name = toString(t);
  if (auto it = types_.find(name); it != types_.end()) return it->second;
  llvm::LLVMContext& ctx = lowered_.function->getContext();
  const llvm::DataLayout& layout = lowered_.function->getParent()->getDataLayout();
  const LoweringOptions& o = lowered_.options.lowering;
  const unsigned pointerBits = layout.getPointerSizeInBits();
  llvm::DIType* index = elementType(ElementType::Index);
  llvm::DIType* type = nullptr;
  if (isUnrankedMemRef(t)) {
    auto* st = unrankedDescriptorType(ctx, o);
    const llvm::StructLayout* sl = layout.getStructLayout(st);
    llvm::DIFile* f = unit_->getFile();
    llvm::Metadata* members[] = {
        builder_.createMemberType(unit_, "rank", f, 0, layout.getTypeSizeInBits(st->getElementType(0)), 0,
                                  sl->getElementOffsetInBits(0), llvm::DINode::FlagZero, index),
        builder_.createMemberType(unit_, "descriptor", f, 0, pointerBits, 0, sl->getElementOffsetInBits(1),
                                  llvm::DINode::FlagZero, elementType(ElementType::Ptr))};
    type = builder_.createStructType(unit_, name, f, 0, sl->getSizeInBits(), 0, llvm::DINode::FlagZero, nullptr,
                                     builder_.getOrCreateArray(members));
  } else {
    const auto& m = std::get<MemRefType>(t);
    llvm::DIType* element = builder_.createPointerType(elementType(m.element()), pointerBits);
    if (o.barePtr) {
      type = element;
    } else {
      auto* st = descriptorType(ctx, m, o);
      const llvm::StructLayout* sl = layout.getStructLayout(st);
      llvm::DIFile* f = unit_->getFile();
      static const char* const kFields[] = {"allocated", "aligned", "offset", "sizes", "strides"};
      std::vector<llvm::Metadata*> members;
      for (unsigned i = 0; i < st->getNumElements(); ++i) {
        llvm::Type* field = st->getElementType(i);
        llvm::DIType* ft = i < 2 ? element : index;
        if (auto* array = llvm::dyn_cast<llvm::ArrayType>(field)) {
          llvm::Metadata* range[] = {builder_.getOrCreateSubrange(0, static_cast<std::int64_t>(array->getNumElements()))};
          ft = builder_.createArrayType(layout.getTypeSizeInBits(array), 0, index, builder_.getOrCreateArray(range));
        }
        members.push_back(builder_.createMemberType(unit_, kFields[i], f, 0, layout.getTypeSizeInBits(field), 0,
                                                    sl->getElementOffsetInBits(i), llvm::DINode::FlagZero, ft));
      }
      type = builder_.createStructType(unit_, name, f, 0, sl->getSizeInBits(), 0, llvm::DINode::FlagZero, nullptr,
                                       builder_.getOrCreateArray(members));
    }
  }
  types_.emplace(name, type);
  return type;
}

// A vector value (`vector<8xf32>`): DWARF's vector type, an array of its
// lanes (`p v` in gdb prints them all).
llvm::DIType* FunctionDebugInfo::vectorOf(ElementType t, std::uint32_t lanes) {
  const std::string name = "vector<" + std::to_string(lanes) + "x" + toString(t) + ">";
  if (auto it = types_.find(name); it != types_.end()) return it->second;
  const llvm::DataLayout& layout = lowered_.function->getParent()->getDataLayout();
  llvm::Type* element = lowerElementType(lowered_.function->getContext(), t, lowered_.options.lowering);
  auto* vt = llvm::FixedVectorType::get(element, lanes);
  const auto alignBits = static_cast<std::uint32_t>(layout.getABITypeAlign(vt).value() * 8);
  llvm::Metadata* range[] = {builder_.getOrCreateSubrange(0, static_cast<std::int64_t>(lanes))};
  llvm::DIType* type = builder_.createVectorType(layout.getTypeAllocSizeInBits(vt), alignBits, elementType(t),
                                                 builder_.getOrCreateArray(range));
  types_.emplace(name, type);
  return type;
}

void FunctionDebugInfo::describeArguments(llvm::BasicBlock& entry) {
  llvm::Function& f = *lowered_.function;
  const llvm::DataLayout& layout = f.getParent()->getDataLayout();
  const auto& names = lowered_.options.argumentNames;
  auto here = llvm::DILocation::get(f.getContext(), line_, 0, subprogram_);
  auto arg = f.arg_begin();
  for (std::size_t i = 0; i < lowered_.type.inputs.size(); ++i) {
    const Type& t = lowered_.type.inputs[i];
    auto lt = lowerType(f.getContext(), t, lowered_.options.lowering);
    if (!lt) return;
    std::vector<Piece> pieces;
    if (isMemRef(t) && lowered_.options.lowering.barePtr)
      pieces.push_back({0, layout.getPointerSizeInBits()});
    else
      flatten(layout, *lt, 0, pieces);
    const std::string name = i < names.size() ? names[i] : "arg" + std::to_string(i);
    llvm::DIType* type = typeOf(t);
    auto* variable = builder_.createParameterVariable(subprogram_, name, static_cast<unsigned>(i + 1),
                                                      subprogram_->getFile(), line_, type, /*AlwaysPreserve=*/true);
    for (const Piece& piece : pieces) {
      if (arg == f.arg_end()) return;
      llvm::DIExpression* expr = builder_.createExpression();
      if (pieces.size() > 1)
        expr = llvm::DIExpression::createFragmentExpression(expr, piece.offsetBits, piece.sizeBits).value_or(expr);
      builder_.insertDbgValueIntrinsic(&*arg++, variable, expr, here, &entry);
    }
  }
}

void FunctionDebugInfo::name(llvm::IRBuilderBase& ir, llvm::Value* value, const Type& type, std::string_view name,
                             const std::source_location& loc) {
  llvm::Function& f = *lowered_.function;
  const llvm::DataLayout& layout = f.getParent()->getDataLayout();
  auto here = llvm::DILocation::get(f.getContext(), loc.line(), loc.column(), subprogram_);
  // A vector Value's type is its element type; its LLVM value says how many lanes.
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType());
  llvm::DIType* variableType = vector ? vectorOf(std::get<ElementType>(type), vector->getNumElements()) : typeOf(type);
  auto* variable = builder_.createAutoVariable(subprogram_, llvm::StringRef(name.data(), name.size()),
                                               file(loc.file_name()), loc.line(), variableType,
                                               /*AlwaysPreserve=*/true);
  auto insert = [&](llvm::Value* v, llvm::DIExpression* expr) {
    llvm::BasicBlock* block = ir.GetInsertBlock();
    if (ir.GetInsertPoint() == block->end())
      builder_.insertDbgValueIntrinsic(v, variable, expr, here, block);
    else
      llvm_compat::insertDbgValueBefore(builder_, v, variable, expr, here, ir.GetInsertPoint());
  };
  if (!value->getType()->isAggregateType()) {
    insert(value, builder_.createExpression());
    return;
  }
  // A descriptor: each field as a piece, read from the value it was built
  // from where there is one (no instruction added), else extracted.
  std::vector<Piece> pieces;
  flatten(layout, value->getType(), 0, pieces);
  std::vector<std::vector<unsigned>> paths;
  auto* st = llvm::cast<llvm::StructType>(value->getType());
  for (unsigned i = 0; i < st->getNumElements(); ++i) {
    if (auto* array = llvm::dyn_cast<llvm::ArrayType>(st->getElementType(i)))
      for (unsigned j = 0; j < array->getNumElements(); ++j) paths.push_back({i, j});
    else
      paths.push_back({i});
  }
  for (std::size_t k = 0; k < pieces.size() && k < paths.size(); ++k) {
    llvm::Value* field = llvm::FindInsertedValue(value, paths[k]);
    if (!field) field = ir.CreateExtractValue(value, paths[k]);
    auto expr = llvm::DIExpression::createFragmentExpression(builder_.createExpression(), pieces[k].offsetBits,
                                                             pieces[k].sizeBits);
    if (expr) insert(field, *expr);
  }
}

llvm::DebugLoc FunctionDebugInfo::describeHelper(llvm::Function& helper, const llvm::DebugLoc& where) {
  const unsigned line = where ? where.getLine() : line_;
  llvm::DIFile* f = where ? llvm::cast<llvm::DIScope>(where->getScope())->getFile() : subprogram_->getFile();
  auto* sp = builder_.createFunction(f, helper.getName(), helper.getName(), f, line,
                                     builder_.createSubroutineType(builder_.getOrCreateTypeArray({nullptr})), line,
                                     llvm::DINode::FlagPrototyped, llvm::DISubprogram::SPFlagDefinition |
                                                                       llvm::DISubprogram::SPFlagLocalToUnit);
  helper.setSubprogram(sp);
  return llvm::DILocation::get(helper.getContext(), line, where ? where.getCol() : 0, sp);
}

void FunctionDebugInfo::finish() { builder_.finalize(); }

void removeCompileUnit(llvm::Module& module, llvm::DICompileUnit* unit) {
  llvm::NamedMDNode* units = module.getNamedMetadata("llvm.dbg.cu");
  if (!units || !unit) return;
  std::vector<llvm::MDNode*> kept;
  for (llvm::MDNode* node : units->operands())
    if (node != unit) kept.push_back(node);
  units->clearOperands();
  for (llvm::MDNode* node : kept) units->addOperand(node);
  if (kept.empty()) units->eraseFromParent();
}

}  // namespace memjit::codegen::detail
