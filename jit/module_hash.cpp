#include "module_hash.h"

#include <string>
#include <string_view>
#include <unordered_map>

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/BLAKE3.h>

namespace memjit::jit::detail {
namespace {

// Tags keep kinds of values apart: an integer 7 and a global numbered 7 hash differently.
enum Tag : std::uint8_t {
  kLocal = 1, kGlobal, kConstInt, kConstFP, kNull, kPoison, kUndef, kZero, kData, kAggregate, kExpr, kMetadataValue,
  kMDString, kMDConstant, kMDLocal, kMDTuple, kMDSeen, kMDNull, kTokenNone, kFunction, kVariable, kBlock,
  kInstruction, kAttribute, kEnd,
};

// A string before LLVM 21, an llvm::Triple since (a template, so that only
// the branch for the LLVM in use is compiled).
template <typename M>
std::string tripleOf(const M& module) {
  if constexpr (requires { module.getTargetTriple().str(); })
    return module.getTargetTriple().str();
  else
    return module.getTargetTriple();
}

class Walker {
 public:
  bool ok = true;

  std::array<std::uint8_t, 32> digest() {
    llvm::BLAKE3 hash;
    hash.update(llvm::StringRef(bytes_));
    return hash.final();
  }

  // Everything goes into one buffer, hashed once: a BLAKE3 update per field
  // cost as much as writing bitcode. Numbers as LEB128: unambiguous, short.
  void u64(std::uint64_t value) {
    do {
      const auto low = static_cast<char>(value & 0x7f);
      value >>= 7;
      bytes_.push_back(value ? static_cast<char>(low | 0x80) : low);
    } while (value);
  }
  void text(llvm::StringRef s) {
    u64(s.size());
    bytes_.append(s.data(), s.size());
  }

  void module(const llvm::Module& m) {
    if (!m.aliases().empty() || !m.ifuncs().empty() || !m.getComdatSymbolTable().empty()) ok = false;
    text(m.getModuleIdentifier());
    text(m.getSourceFileName());
    text(tripleOf(m));
    text(m.getDataLayoutStr());
    text(m.getModuleInlineAsm());
    // Globals are referred to by name; unnamed ones by their number here.
    for (const llvm::GlobalValue& g : m.global_values()) globals_.emplace(&g, globals_.size());
    for (const llvm::NamedMDNode& named : m.named_metadata()) {
      text(named.getName());
      u64(named.getNumOperands());
      for (const llvm::MDNode* node : named.operands()) metadata(node);
    }
    for (const llvm::GlobalVariable& g : m.globals()) variable(g);
    for (const llvm::Function& f : m.functions()) function(f);
  }

 private:
  void type(const llvm::Type* t) {
    u64(t->getTypeID());
    switch (t->getTypeID()) {
      case llvm::Type::IntegerTyID: u64(t->getIntegerBitWidth()); return;
      case llvm::Type::PointerTyID: u64(t->getPointerAddressSpace()); return;
      case llvm::Type::ArrayTyID:
        u64(t->getArrayNumElements());
        type(t->getArrayElementType());
        return;
      case llvm::Type::FixedVectorTyID:
      case llvm::Type::ScalableVectorTyID: {
        const auto* v = llvm::cast<llvm::VectorType>(t);
        u64(v->getElementCount().getKnownMinValue());
        type(v->getElementType());
        return;
      }
      case llvm::Type::StructTyID: {
        const auto* s = llvm::cast<llvm::StructType>(t);
        u64(s->isLiteral());
        u64(s->isPacked());
        u64(s->isOpaque());
        if (!s->isLiteral()) {
          text(s->getName());
          if (!types_.insert({t, types_.size()}).second) return;  // its body once
        }
        u64(s->getNumElements());
        for (const llvm::Type* element : s->elements()) type(element);
        return;
      }
      case llvm::Type::FunctionTyID: {
        const auto* f = llvm::cast<llvm::FunctionType>(t);
        u64(f->isVarArg());
        u64(f->getNumParams());
        type(f->getReturnType());
        for (const llvm::Type* param : f->params()) type(param);
        return;
      }
      case llvm::Type::TargetExtTyID:
      case llvm::Type::TypedPointerTyID: ok = false; return;
      default: return;  // the ID says it all (void, half, float, label, token, ...)
    }
  }

  void words(const llvm::APInt& value) {
    u64(value.getBitWidth());
    for (unsigned i = 0; i < value.getNumWords(); ++i) u64(value.getRawData()[i]);
  }

  void attributes(const llvm::AttributeList& list) {
    u64(list.getNumAttrSets());
    for (unsigned index : list.indexes()) {
      const llvm::AttributeSet set = list.getAttributes(index);
      if (!set.hasAttributes()) continue;
      u64(kAttribute);
      u64(index);
      attributeSet(set);
    }
    u64(kEnd);
  }

  void attributeSet(const llvm::AttributeSet& set) {
    u64(set.getNumAttributes());
    for (const llvm::Attribute& a : set) {
      if (a.isStringAttribute()) {
        text(a.getKindAsString());
        text(a.getValueAsString());
        continue;
      }
      u64(a.getKindAsEnum());
      if (a.isIntAttribute()) u64(a.getValueAsInt());
      else if (a.isTypeAttribute()) type(a.getValueAsType());
      else if (!a.isEnumAttribute()) ok = false;  // ranges and what later LLVMs add
    }
  }

  void globalCommon(const llvm::GlobalObject& g) {
    text(g.getName());
    u64(g.getLinkage());
    u64(g.getVisibility());
    u64(g.getDLLStorageClass());
    u64(g.getThreadLocalMode());
    u64(static_cast<unsigned>(g.getUnnamedAddr()));
    u64(g.getAddressSpace());
    u64(g.isDSOLocal());
    u64(g.hasSection());
    text(g.getSection());
    if (g.hasPartition() || g.hasSanitizerMetadata() || g.hasComdat()) ok = false;
    attachments(g);
  }

  template <typename T>
  void attachments(const T& value) {
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 4> found;
    value.getAllMetadata(found);
    u64(found.size());
    for (const auto& [kind, node] : found) {
      text(kindName(value, kind));  // custom kinds are numbered per context, in order of use
      metadata(node);
    }
  }

  template <typename T>
  llvm::StringRef kindName(const T& value, unsigned kind) {
    if (kindNames_.empty()) value.getContext().getMDKindNames(kindNames_);
    if (kind < kindNames_.size()) return kindNames_[kind];
    ok = false;
    return {};
  }

  void variable(const llvm::GlobalVariable& g) {
    u64(kVariable);
    globalCommon(g);
    u64(g.getAlign() ? g.getAlign()->value() : 0);  // protected in GlobalObject since LLVM 22
    type(g.getValueType());
    u64(g.isConstant());
    u64(g.isExternallyInitialized());
    u64(g.getCodeModel() ? static_cast<unsigned>(*g.getCodeModel()) + 1 : 0);
    attributeSet(g.getAttributes());
    u64(g.hasInitializer());
    if (g.hasInitializer()) constant(g.getInitializer());
  }

  void function(const llvm::Function& f) {
    u64(kFunction);
    globalCommon(f);
    u64(f.getAlign() ? f.getAlign()->value() : 0);
    type(f.getFunctionType());
    u64(f.getCallingConv());
    attributes(f.getAttributes());
    u64(f.hasGC());
    if (f.hasGC()) text(f.getGC());
    if (f.hasPersonalityFn() || f.hasPrefixData() || f.hasPrologueData()) ok = false;
    u64(f.isDeclaration());
    if (f.isDeclaration()) return;
    // Locals by their position: arguments, blocks, then instructions.
    locals_.clear();
    for (const llvm::Argument& a : f.args()) locals_.emplace(&a, locals_.size());
    for (const llvm::BasicBlock& b : f) {
      locals_.emplace(&b, locals_.size());
      for (const llvm::Instruction& i : b) locals_.emplace(&i, locals_.size());
    }
    for (const llvm::BasicBlock& b : f) {
      u64(kBlock);
      u64(b.size());
      for (const llvm::Instruction& i : b) {
        instruction(i);
        if (!ok) return;
      }
    }
  }

  void instruction(const llvm::Instruction& i) {
    using namespace llvm;
    // Only the kinds whose every field this walk hashes.
    if (!(isa<BinaryOperator, UnaryOperator, CastInst, CmpInst, SelectInst, PHINode, BranchInst, SwitchInst,
              ReturnInst, UnreachableInst, LoadInst, StoreInst, AllocaInst, GetElementPtrInst, CallInst,
              ShuffleVectorInst, ExtractElementInst, InsertElementInst, ExtractValueInst, InsertValueInst,
              FreezeInst, AtomicRMWInst, AtomicCmpXchgInst, FenceInst>(i)) ||
        i.hasDbgRecords()) {
      ok = false;
      return;
    }
    u64(kInstruction);
    u64(i.getOpcode());
    type(i.getType());
    u64(i.getRawSubclassOptionalData());  // nuw, nsw, exact, disjoint, nneg, fast-math, GEP no-wrap
    u64(i.getNumOperands());
    for (const Value* operand : i.operands()) value(operand);
    if (const auto* phi = dyn_cast<PHINode>(&i)) {
      for (const BasicBlock* block : phi->blocks()) value(block);
    } else if (const auto* cmp = dyn_cast<CmpInst>(&i)) {
      u64(cmp->getPredicate());
    } else if (const auto* alloca = dyn_cast<AllocaInst>(&i)) {
      type(alloca->getAllocatedType());
      u64(alloca->getAlign().value());
      u64(alloca->isUsedWithInAlloca());
      u64(alloca->isSwiftError());
    } else if (const auto* load = dyn_cast<LoadInst>(&i)) {
      memoryAccess(load->isVolatile(), load->getAlign(), load->getOrdering(), load->getSyncScopeID());
    } else if (const auto* store = dyn_cast<StoreInst>(&i)) {
      memoryAccess(store->isVolatile(), store->getAlign(), store->getOrdering(), store->getSyncScopeID());
    } else if (const auto* gep = dyn_cast<GetElementPtrInst>(&i)) {
      type(gep->getSourceElementType());
    } else if (const auto* call = dyn_cast<CallInst>(&i)) {
      if (call->hasOperandBundles() || call->isInlineAsm()) ok = false;
      type(call->getFunctionType());
      u64(call->getCallingConv());
      u64(call->getTailCallKind());
      attributes(call->getAttributes());
    } else if (const auto* sw = dyn_cast<SwitchInst>(&i)) {
      // The case values: operands in LLVM 19, kept apart from them since LLVM 21.
      u64(sw->getNumCases());
      for (const auto& c : sw->cases()) value(c.getCaseValue());
    } else if (const auto* shuffle = dyn_cast<ShuffleVectorInst>(&i)) {
      u64(shuffle->getShuffleMask().size());
      for (int element : shuffle->getShuffleMask()) u64(static_cast<std::uint64_t>(element));
    } else if (const auto* extract = dyn_cast<ExtractValueInst>(&i)) {
      u64(extract->getNumIndices());
      for (unsigned index : extract->indices()) u64(index);
    } else if (const auto* insert = dyn_cast<InsertValueInst>(&i)) {
      u64(insert->getNumIndices());
      for (unsigned index : insert->indices()) u64(index);
    } else if (const auto* rmw = dyn_cast<AtomicRMWInst>(&i)) {
      u64(rmw->getOperation());
      memoryAccess(rmw->isVolatile(), rmw->getAlign(), rmw->getOrdering(), rmw->getSyncScopeID());
    } else if (const auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&i)) {
      u64(cmpxchg->isWeak());
      u64(static_cast<unsigned>(cmpxchg->getFailureOrdering()));
      memoryAccess(cmpxchg->isVolatile(), cmpxchg->getAlign(), cmpxchg->getSuccessOrdering(),
                   cmpxchg->getSyncScopeID());
    } else if (const auto* fence = dyn_cast<FenceInst>(&i)) {
      u64(static_cast<unsigned>(fence->getOrdering()));
      u64(fence->getSyncScopeID());
    }
    attachments(i);  // !dbg too: a DILocation is no tuple and falls back to bitcode
  }

  void memoryAccess(bool isVolatile, llvm::Align align, llvm::AtomicOrdering ordering, llvm::SyncScope::ID scope) {
    u64(isVolatile);
    u64(align.value());
    u64(static_cast<unsigned>(ordering));
    u64(scope);
  }

  void value(const llvm::Value* v) {
    if (!v) {
      ok = false;  // IR under construction; the verifier rejects it
    } else if (auto it = locals_.find(v); it != locals_.end()) {
      u64(kLocal);
      u64(it->second);
    } else if (const auto* c = llvm::dyn_cast<llvm::Constant>(v)) {
      constant(c);
    } else if (const auto* md = llvm::dyn_cast<llvm::MetadataAsValue>(v)) {
      u64(kMetadataValue);
      metadata(md->getMetadata());
    } else {
      ok = false;  // inline asm, or a value from elsewhere (which the verifier rejects)
    }
  }

  void constant(const llvm::Constant* c) {
    using namespace llvm;
    if (const auto* g = dyn_cast<GlobalValue>(c)) {
      u64(kGlobal);
      text(g->getName());
      u64(globals_.count(g) ? globals_.at(g) : ~std::uint64_t{0});
      return;
    }
    type(c->getType());
    if (const auto* i = dyn_cast<ConstantInt>(c)) {
      u64(kConstInt);
      words(i->getValue());
    } else if (const auto* f = dyn_cast<ConstantFP>(c)) {
      u64(kConstFP);
      words(f->getValueAPF().bitcastToAPInt());
    } else if (isa<ConstantPointerNull>(c)) {
      u64(kNull);
    } else if (isa<PoisonValue>(c)) {
      u64(kPoison);
    } else if (isa<UndefValue>(c)) {
      u64(kUndef);
    } else if (isa<ConstantAggregateZero>(c)) {
      u64(kZero);
    } else if (isa<ConstantTokenNone>(c)) {
      u64(kTokenNone);
    } else if (const auto* data = dyn_cast<ConstantDataSequential>(c)) {
      u64(kData);
      text(data->getRawDataValues());
    } else if (isa<ConstantAggregate>(c)) {
      u64(kAggregate);
      u64(c->getNumOperands());
      for (const Value* operand : c->operands()) constant(cast<Constant>(operand));
    } else if (const auto* expr = dyn_cast<ConstantExpr>(c)) {
      const unsigned opcode = expr->getOpcode();
      u64(kExpr);
      u64(opcode);
      u64(expr->getRawSubclassOptionalData());
      if (const auto* gep = dyn_cast<GEPOperator>(expr)) {
        type(gep->getSourceElementType());
        if (gep->getInRange()) ok = false;
      } else if (!Instruction::isCast(opcode) && !Instruction::isBinaryOp(opcode)) {
        ok = false;
      }
      u64(expr->getNumOperands());
      for (const Value* operand : expr->operands()) constant(cast<Constant>(operand));
    } else {
      ok = false;  // block addresses, DSO-local equivalents, pointer authentication, target types
    }
  }

  void metadata(const llvm::Metadata* md) {
    using namespace llvm;
    if (!md) {
      u64(kMDNull);
    } else if (const auto* s = dyn_cast<MDString>(md)) {
      u64(kMDString);
      text(s->getString());
    } else if (const auto* c = dyn_cast<ConstantAsMetadata>(md)) {
      u64(kMDConstant);
      constant(c->getValue());
    } else if (const auto* local = dyn_cast<LocalAsMetadata>(md)) {
      u64(kMDLocal);
      value(local->getValue());
    } else if (const auto* tuple = dyn_cast<MDTuple>(md)) {
      // Loop IDs refer to themselves: a node seen before is its number.
      auto [it, first] = nodes_.insert({tuple, nodes_.size()});
      if (!first) {
        u64(kMDSeen);
        u64(it->second);
        return;
      }
      u64(kMDTuple);
      u64(tuple->isDistinct());
      u64(tuple->getNumOperands());
      for (const MDOperand& operand : tuple->operands()) metadata(operand.get());
    } else {
      ok = false;  // debug info and the other specialised nodes
    }
  }

  std::string bytes_;
  std::unordered_map<const llvm::GlobalValue*, std::uint64_t> globals_;
  std::unordered_map<const llvm::Value*, std::uint64_t> locals_;
  std::unordered_map<const llvm::Type*, std::uint64_t> types_;
  std::unordered_map<const llvm::MDNode*, std::uint64_t> nodes_;
  llvm::SmallVector<llvm::StringRef, 48> kindNames_;
};

}  // namespace

std::optional<std::array<std::uint8_t, 32>> structuralDigest(const llvm::Module& module) {
  Walker walker;
  walker.text("memjit-structural-digest-v1");
  walker.module(module);
  if (!walker.ok) return std::nullopt;
  return walker.digest();
}

}  // namespace memjit::jit::detail
