// One case per diagnostic of parallelFor / parallelReduce: the error code and
// the words that name the operation and the types involved.
#include <gtest/gtest.h>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "support/expect_error.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

using test::expectError;

TEST(ParallelErrors, NonIndexBounds) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i64) -> ()"));
  b.parallelFor(b.index(0), b.arg(0), b.index(1), {}, [](Value) {});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"parallel_for", "must be index", "(index, i64, index)"});
  EXPECT_FALSE(m.verify());
}

TEST(ParallelErrors, NonPositiveStep) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelFor(b.index(0), b.arg(0), b.index(0), {}, [](Value) {});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"parallel_for", "step must be positive", "got 0"});
}

TEST(ParallelErrors, NegativeChunk) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelFor(b.index(0), b.arg(0), b.index(1), {-4}, [](Value) {});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"parallel_for", "chunk must be positive", "-4"});
}

TEST(ParallelErrors, NegativeMaxThreads) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelFor(b.index(0), b.arg(0), b.index(1), {0, ParallelSchedule::Static, -2}, [](Value) {});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"parallel_for", "maxThreads", "-2"});
}

TEST(ParallelErrors, BoundsOfDifferentRanks) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelFor({b.index(0), b.index(0)}, {b.arg(0)}, {b.index(1), b.index(1)}, {},
                [](const std::vector<Value>&) {});
  expectError(b.finish(), ErrorCode::ArityMismatch, {"parallel_for", "per dimension", "2, 1 and 2"});
}

TEST(ParallelErrors, RetInsideTheBody) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelFor(b.index(0), b.arg(0), b.index(1), {}, [&](Value) { b.ret(); });
  expectError(b.finish(), ErrorCode::Unsupported, {"ret", "top level"});
  EXPECT_FALSE(m.verify());
}

TEST(ParallelErrors, ReductionOfUnsupportedType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index, i1) -> ()"));
  b.parallelReduce(b.index(0), b.arg(0), b.index(1), {}, {Reduction::max(b.arg(1))},
                   [&](Value) { return std::vector<Value>{b.arg(1)}; });
  expectError(b.finish(), ErrorCode::TypeMismatch, {"parallel_reduce", "reduction #0", "i1"});
}

TEST(ParallelErrors, BodyYieldsAnotherType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelReduce(b.index(0), b.arg(0), b.index(1), {}, {Reduction::sum(b.i64(0))},
                   [&](Value) { return std::vector<Value>{b.f32(1)}; });
  expectError(b.finish(), ErrorCode::TypeMismatch, {"parallel_reduce", "yields f32", "reduction #0 of type i64"});
  EXPECT_FALSE(m.verify());
}

TEST(ParallelErrors, BodyYieldsWrongCount) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelReduce(b.index(0), b.arg(0), b.index(1), {}, {Reduction::sum(b.i64(0))},
                   [&](Value) { return std::vector<Value>{}; });
  expectError(b.finish(), ErrorCode::ArityMismatch, {"parallel_reduce", "yields 0 values for 1 reductions"});
}

TEST(ParallelErrors, CustomIdentityOfAnotherType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelReduce(b.index(0), b.arg(0), b.index(1), {},
                   {Reduction::custom(b.i64(0), b.i32(0), [&](Value x, Value y) { return b.max(x, y); })},
                   [&](Value) { return std::vector<Value>{b.i64(1)}; });
  expectError(b.finish(), ErrorCode::TypeMismatch, {"parallel_reduce", "starts from i64", "identity is i32"});
}

TEST(ParallelErrors, CustomWithoutCombiner) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelReduce(b.index(0), b.arg(0), b.index(1), {}, {Reduction::custom(b.i64(0), b.i64(0), nullptr)},
                   [&](Value) { return std::vector<Value>{b.i64(1)}; });
  expectError(b.finish(), ErrorCode::InvalidArgument, {"parallel_reduce", "no combiner"});
}

TEST(ParallelErrors, CombinerReturnsAnotherType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index) -> ()"));
  b.parallelReduce(b.index(0), b.arg(0), b.index(1), {},
                   {Reduction::custom(b.i64(0), b.i64(0), [&](Value x, Value) { return b.cast(x, ElementType::I32); })},
                   [&](Value) { return std::vector<Value>{b.i64(1)}; });
  expectError(b.finish(), ErrorCode::TypeMismatch, {"parallel_reduce", "combiner", "returns i32", "i64"});
}

TEST(ParallelErrors, DeterministicWithoutAScalarReduction) {
  {
    Module m("e");
    FunctionBuilder b(m, "f", functionType("(index) -> ()"));
    b.parallelFor(b.index(0), b.arg(0), b.index(1), {.deterministic = true}, [](Value) {});
    expectError(b.finish(), ErrorCode::InvalidArgument, {"parallel_for", "deterministic", "scalar reductions"});
  }
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(index, memref<4xi64>) -> ()"));
  b.parallelReduce(b.index(0), b.arg(0), b.index(1), {.deterministic = true}, {ArrayReduction::sum(b.arg(1))},
                   [](Value, const std::vector<Value>&) {});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"parallel_reduce", "deterministic", "array reductions"});
}

}  // namespace
}  // namespace memjit::codegen
