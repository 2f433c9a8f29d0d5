// Functions calling each other, some through their C interfaces
// (llvm.emit_c_interface), with memref arguments and results.
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printF32(f32)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @scale(%m: memref<?xf32>, %s: f32) attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%i] : memref<?xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %m[%i] : memref<?xf32>
  }
  return
}

func.func @sum(%m: memref<?xf32>) -> f32 attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %m, %c0 : memref<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %m[%i] : memref<?xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  return %r : f32
}

func.func @iota(%n: index) -> memref<?xf32> attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.index_cast %i : index to i64
    %f = arith.uitofp %x : i64 to f32
    memref.store %f, %m[%i] : memref<?xf32>
  }
  return %m : memref<?xf32>
}

func.func @fib(%n: i64) -> i64 {
  %c2 = arith.constant 2 : i64
  %lt = arith.cmpi slt, %n, %c2 : i64
  %r = scf.if %lt -> i64 {
    scf.yield %n : i64
  } else {
    %c1 = arith.constant 1 : i64
    %a = arith.subi %n, %c1 : i64
    %b = arith.subi %n, %c2 : i64
    %fa = func.call @fib(%a) : (i64) -> i64
    %fb = func.call @fib(%b) : (i64) -> i64
    %s = arith.addi %fa, %fb : i64
    scf.yield %s : i64
  }
  return %r : i64
}

func.func @main() {
  %c7 = arith.constant 7 : index
  %m = call @iota(%c7) : (index) -> memref<?xf32>
  %s = arith.constant 1.5 : f32
  call @scale(%m, %s) : (memref<?xf32>, f32) -> ()
  %u = memref.cast %m : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %t = call @sum(%m) : (memref<?xf32>) -> f32
  call @printF32(%t) : (f32) -> ()
  call @printNewline() : () -> ()
  %n = arith.constant 20 : i64
  %f = call @fib(%n) : (i64) -> i64
  call @printI64(%f) : (i64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %m : memref<?xf32>
  return
}

// Entries returning a value, printed by the runner itself.
func.func @answer_i32() -> i32 {
  %c = arith.constant -42 : i32
  return %c : i32
}
// fib(30) * 10^5 = 83204000000: an i64 result beyond 32 bits from a recursive
// call. fib(50) took minutes per run (4e10 calls), four runs per test.
func.func @answer_i64() -> i64 {
  %n = arith.constant 30 : i64
  %f = call @fib(%n) : (i64) -> i64
  %k = arith.constant 100000 : i64
  %r = arith.muli %f, %k : i64
  return %r : i64
}
func.func @answer_f32() -> f32 {
  %c3 = arith.constant 3 : index
  %m = call @iota(%c3) : (index) -> memref<?xf32>
  %t = call @sum(%m) : (memref<?xf32>) -> f32
  memref.dealloc %m : memref<?xf32>
  %k = arith.constant 2.6666667 : f32
  %r = arith.addf %t, %k : f32
  return %r : f32
}
