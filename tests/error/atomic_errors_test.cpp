// One case per diagnostic of the atomics (atomicRMW, genericAtomicRMW,
// atomicCompareExchange) and of array reductions (parallelReduce over
// ArrayReduction): the error code and the words naming the operation, the
// kind and the types.
#include <gtest/gtest.h>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "support/expect_error.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;
using test::expectError;

TEST(AtomicErrors, FloatKindOnIntegerMemref) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xi32>, i32) -> ()"));
  b.atomicRMW(AtomicKind::Addf, b.arg(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'atomic_rmw addf'", "addf takes float elements", "memref<?xi32>"});
  EXPECT_FALSE(m.verify());
}

TEST(AtomicErrors, IntegerKindOnFloatMemref) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xf32>, f32) -> ()"));
  b.atomicRMW(AtomicKind::Maxs, b.arg(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'atomic_rmw maxs'", "maxs takes integer or index elements", "memref<?xf32>"});
}

TEST(AtomicErrors, OperandOfAnotherType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xi64>, i32) -> ()"));
  b.atomicRMW(AtomicKind::Addi, b.arg(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'atomic_rmw addi'", "the operand is i32", "elements of memref<?xi64> are i64"});
}

TEST(AtomicErrors, WrongIndexCount) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?x?xi64>, i64) -> ()"));
  b.atomicRMW(AtomicKind::Addi, b.arg(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::ArityMismatch,
              {"operation 'atomic_rmw addi'", "1 indices given for memref<?x?xi64> of rank 2"});
}

TEST(AtomicErrors, NotAMemref) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i64, i64) -> ()"));
  b.atomicRMW(AtomicKind::Addi, b.arg(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"operation 'atomic_rmw addi'", "needs a ranked memref, got i64"});
}

TEST(AtomicErrors, ElementsTooNarrow) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xi1>, i1) -> ()"));
  b.atomicRMW(AtomicKind::Ori, b.arg(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'atomic_rmw ori'", "elements of memref<?xi1> cannot be updated atomically"});
}

TEST(AtomicErrors, VectorOperand) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xf32>, f32) -> ()"));
  b.atomicRMW(AtomicKind::Addf, b.splat(b.arg(1), 4), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'atomic_rmw addf'", "operand #0 is a vector (vector<4xf32>)", "takes no vectors"});
}

TEST(AtomicErrors, GenericBodyReturnsAnotherType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xf32>) -> ()"));
  b.genericAtomicRMW(b.arg(0), {b.index(0)}, [&](Value) { return b.f64(1.0); });
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'generic_atomic_rmw'", "the body's result is f64", "elements of memref<?xf32> are f32"});
  EXPECT_FALSE(m.verify());
}

TEST(AtomicErrors, CompareExchangeDesiredOfAnotherType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xi32>, i32, i64) -> ()"));
  b.atomicCompareExchange(b.arg(0), {b.index(0)}, b.arg(1), b.arg(2));
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'atomic_compare_exchange'", "the desired value is i64", "are i32"});
}

TEST(AtomicErrors, ArrayReductionOfAScalar) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i64) -> ()"));
  b.parallelReduce(b.index(0), b.index(4), b.index(1), {}, {ArrayReduction::sum(b.arg(0))},
                   [](Value, const std::vector<Value>&) {});
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'parallel_reduce'", "array reduction #0 needs a ranked memref, got i64"});
}

TEST(AtomicErrors, ArrayReductionOfBooleans) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<4xi1>) -> ()"));
  b.parallelReduce(b.index(0), b.index(4), b.index(1), {}, {ArrayReduction::max(b.arg(0))},
                   [](Value, const std::vector<Value>&) {});
  expectError(b.finish(), ErrorCode::TypeMismatch,
              {"operation 'parallel_reduce'", "array reduction #0 has elements of type i1", "integers of 8 bits"});
}

TEST(AtomicErrors, CustomArrayReduction) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<4xi64>) -> ()"));
  b.parallelReduce(b.index(0), b.index(4), b.index(1), {}, {{Reduction::Kind::Custom, b.arg(0)}},
                   [](Value, const std::vector<Value>&) {});
  expectError(b.finish(), ErrorCode::InvalidArgument,
              {"operation 'parallel_reduce'", "array reduction #0 is custom", "sum, product, min or max"});
}

}  // namespace
}  // namespace memjit::codegen
