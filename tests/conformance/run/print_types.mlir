// printMemref* of every element type the runner utilities print, at ranks 0 to
// 3 (i8, i16, f16 and bf16 only exist as C interfaces in MLIR 19).
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefF64(memref<*xf64>)
func.func private @printMemrefI8(memref<*xi8>) attributes { llvm.emit_c_interface }
func.func private @printMemrefI16(memref<*xi16>) attributes { llvm.emit_c_interface }
func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefI64(memref<*xi64>)
func.func private @printMemrefF16(memref<*xf16>) attributes { llvm.emit_c_interface }
func.func private @printMemrefBF16(memref<*xbf16>) attributes { llvm.emit_c_interface }
func.func private @printMemrefInd(memref<*xindex>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index

  %r0 = memref.alloc() : memref<f32>
  %pi = arith.constant 3.25 : f32
  memref.store %pi, %r0[] : memref<f32>
  %u0 = memref.cast %r0 : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u0) : (memref<*xf32>) -> ()

  %r1 = memref.alloc() : memref<4xf64>
  scf.for %i = %c0 to %c4 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    %g = arith.mulf %f, %f : f64
    %h = arith.addf %g, %f : f64
    %q = arith.constant -1.0e-3 : f64
    %v = arith.addf %h, %q : f64
    memref.store %v, %r1[%i] : memref<4xf64>
  }
  %u1 = memref.cast %r1 : memref<4xf64> to memref<*xf64>
  call @printMemrefF64(%u1) : (memref<*xf64>) -> ()

  %r2 = memref.alloc() : memref<2x3xi32>
  %r2b = memref.alloc() : memref<2x3xi64>
  %r2c = memref.alloc() : memref<2x3xi8>
  %r2d = memref.alloc() : memref<2x3xi16>
  %r2e = memref.alloc() : memref<2x3xindex>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %k = arith.muli %i, %c3 : index
      %l = arith.addi %k, %j : index
      %m = arith.subi %l, %c2 : index
      %x = arith.index_cast %m : index to i32
      %big = arith.constant 1000000007 : i32
      %y = arith.muli %x, %big : i32
      memref.store %y, %r2[%i, %j] : memref<2x3xi32>
      %z = arith.extsi %y : i32 to i64
      %zz = arith.muli %z, %z : i64
      memref.store %zz, %r2b[%i, %j] : memref<2x3xi64>
      %w = arith.trunci %x : i32 to i8
      memref.store %w, %r2c[%i, %j] : memref<2x3xi8>
      %s = arith.trunci %y : i32 to i16
      memref.store %s, %r2d[%i, %j] : memref<2x3xi16>
      memref.store %l, %r2e[%i, %j] : memref<2x3xindex>
    }
  }
  %u2 = memref.cast %r2 : memref<2x3xi32> to memref<*xi32>
  call @printMemrefI32(%u2) : (memref<*xi32>) -> ()
  %u2b = memref.cast %r2b : memref<2x3xi64> to memref<*xi64>
  call @printMemrefI64(%u2b) : (memref<*xi64>) -> ()
  %u2c = memref.cast %r2c : memref<2x3xi8> to memref<*xi8>
  call @printMemrefI8(%u2c) : (memref<*xi8>) -> ()
  %u2d = memref.cast %r2d : memref<2x3xi16> to memref<*xi16>
  call @printMemrefI16(%u2d) : (memref<*xi16>) -> ()
  %u2e = memref.cast %r2e : memref<2x3xindex> to memref<*xindex>
  call @printMemrefInd(%u2e) : (memref<*xindex>) -> ()

  %r3 = memref.alloc() : memref<2x2x3xf32>
  %r3h = memref.alloc() : memref<2x2x3xf16>
  %r3b = memref.alloc() : memref<2x2x3xbf16>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      scf.for %k = %c0 to %c3 step %c1 {
        %a = arith.muli %i, %c4 : index
        %b = arith.muli %j, %c3 : index
        %ab = arith.addi %a, %b : index
        %abc = arith.addi %ab, %k : index
        %n = arith.index_cast %abc : index to i32
        %f = arith.sitofp %n : i32 to f32
        %third = arith.constant 0.333333343 : f32
        %v = arith.mulf %f, %third : f32
        memref.store %v, %r3[%i, %j, %k] : memref<2x2x3xf32>
        %vh = arith.truncf %v : f32 to f16
        memref.store %vh, %r3h[%i, %j, %k] : memref<2x2x3xf16>
        %vb = arith.truncf %v : f32 to bf16
        memref.store %vb, %r3b[%i, %j, %k] : memref<2x2x3xbf16>
      }
    }
  }
  %u3 = memref.cast %r3 : memref<2x2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  %u3h = memref.cast %r3h : memref<2x2x3xf16> to memref<*xf16>
  call @printMemrefF16(%u3h) : (memref<*xf16>) -> ()
  %u3b = memref.cast %r3b : memref<2x2x3xbf16> to memref<*xbf16>
  call @printMemrefBF16(%u3b) : (memref<*xbf16>) -> ()

  memref.dealloc %r0 : memref<f32>
  memref.dealloc %r1 : memref<4xf64>
  memref.dealloc %r2 : memref<2x3xi32>
  memref.dealloc %r2b : memref<2x3xi64>
  memref.dealloc %r2c : memref<2x3xi8>
  memref.dealloc %r2d : memref<2x3xi16>
  memref.dealloc %r2e : memref<2x3xindex>
  memref.dealloc %r3 : memref<2x2x3xf32>
  memref.dealloc %r3h : memref<2x2x3xf16>
  memref.dealloc %r3b : memref<2x2x3xbf16>
  return
}
