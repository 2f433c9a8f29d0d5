// Kernels compiled by mlir-opt-19 at build time and driven through memjit's
// dynamic invoker from their type text (tests/runtime/mlir_object_test.cpp).
func.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %xv : f32
    %s = arith.addf %p, %yv : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}

func.func @iota(%n: index) -> memref<?xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    memref.store %f, %m[%i] : memref<?xf32>
  }
  return %m : memref<?xf32>
}

func.func @sum_and_pass(%x: memref<?x?xf64>, %k: i32) -> (f64, memref<?x?xf64>, i32) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %r = memref.dim %x, %c0 : memref<?x?xf64>
  %c = memref.dim %x, %c1 : memref<?x?xf64>
  %t = scf.for %i = %c0 to %r step %c1 iter_args(%acc = %z) -> f64 {
    %u = scf.for %j = %c0 to %c step %c1 iter_args(%acc2 = %acc) -> f64 {
      %v = memref.load %x[%i, %j] : memref<?x?xf64>
      %s = arith.addf %acc2, %v : f64
      scf.yield %s : f64
    }
    scf.yield %u : f64
  }
  %one = arith.constant 1 : i32
  %k1 = arith.addi %k, %one : i32
  return %t, %x, %k1 : f64, memref<?x?xf64>, i32
}

func.func @transpose_copy(%x: memref<2x3xf32>) -> memref<3x2xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %m = memref.alloc() : memref<3x2xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = memref.load %x[%i, %j] : memref<2x3xf32>
      memref.store %v, %m[%j, %i] : memref<3x2xf32>
    }
  }
  return %m : memref<3x2xf32>
}

func.func @rank_of(%x: memref<*xf32>) -> index attributes {llvm.emit_c_interface} {
  %r = memref.rank %x : memref<*xf32>
  return %r : index
}

// An i1 result made by truncation: MLIR returns the byte the computation left
// (bits 1-7 included), which a C bool must not have.
func.func @low_bit(%x: i32) -> i1 attributes {llvm.emit_c_interface} {
  %t = arith.trunci %x : i32 to i1
  return %t : i1
}
