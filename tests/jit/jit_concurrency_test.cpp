// Several threads adding modules (each with its own LLVMContext) and many
// threads calling compiled functions at once.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/runtime/memref.h"
#include "support/ir_snippets.h"

using namespace memjit;
using namespace memjit::jit;

TEST(JitConcurrency, ThreadsAddLookUpAndCallAtOnce) {
  auto created = Jit::create({.cache = ObjectCache::inMemory()});
  ASSERT_TRUE(created.ok());
  Jit jit = std::move(*created);
  constexpr int kThreads = 4, kPerThread = 12;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string name = "f_" + std::to_string(t) + "_" + std::to_string(i);
        // Every thread stores into and reads from the one shared cache.
        const long value = (i % 2) ? t * 1000 + i : i;
        auto mod = jit.addIR(test::constantIR(name, value), name);
        if (!mod.ok()) { ++failures; continue; }
        auto f = jit.lookup(name);
        if (!f.ok() || f->cInterfaceAs<std::int64_t()>()() != value) ++failures;
        if (i % 3 == 0 && jit.remove(*mod)) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(jit.moduleCount(), static_cast<std::size_t>(kThreads * (kPerThread - kPerThread / 3)));
}

TEST(JitConcurrency, ThreadsAddModulesDefiningOneNameAtOnce) {
  auto created = Jit::create();
  ASSERT_TRUE(created.ok());
  Jit jit = std::move(*created);
  ASSERT_TRUE(jit.addIR(test::constantIR("base", 100), "base").ok());
  auto base = jit.lookup("base");
  ASSERT_TRUE(base.ok());
  constexpr int kThreads = 4, kPerThread = 8;
  std::atomic<int> failures{0};
  std::atomic<bool> adding{true};
  // One reader asks the Jit-wide lookup while the set of definers changes.
  std::thread reader([&] {
    while (adding.load()) {
      auto f = jit.lookup("kernel");
      if (f.ok() ? f->cInterfaceAs<std::int64_t()>()() < 0
                 : f.error().code() != ErrorCode::InvalidArgument && f.error().code() != ErrorCode::NotFound)
        ++failures;
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const long value = t * 1000 + i;
        auto mod = jit.addIR(test::constantIR("kernel", value), "m" + std::to_string(value));
        if (!mod.ok()) { ++failures; continue; }
        auto f = mod->function("kernel");
        if (!f.ok() || f->cInterfaceAs<std::int64_t()>()() != value) ++failures;
        if (i % 2 == 0 && jit.remove(*mod)) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  adding = false;
  reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(jit.moduleCount(), static_cast<std::size_t>(1 + kThreads * kPerThread / 2));
}

TEST(JitConcurrency, ManyThreadsCallOneKernel) {
  auto created = Jit::create();
  ASSERT_TRUE(created.ok());
  auto mod = created->addIR(test::addKernelIR(), "m");
  ASSERT_TRUE(mod.ok());
  auto add = mod->function("add");
  ASSERT_TRUE(add.ok());
  using Desc = runtime::StridedMemRef<float, 1>;
  auto* fn = add->cInterfaceAs<void(Desc*, Desc*, Desc*)>();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> a(257, float(t)), b(257, 1.0f), c(257);
      Desc da{a.data(), a.data(), 0, {257}, {1}}, db{b.data(), b.data(), 0, {257}, {1}},
          dc{c.data(), c.data(), 0, {257}, {1}};
      for (int rep = 0; rep < 200; ++rep) {
        fn(&da, &db, &dc);
        for (float v : c)
          if (v != float(t) + 1.0f) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}
