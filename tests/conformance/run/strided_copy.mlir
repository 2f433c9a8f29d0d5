// Unranked and strided memrefs: subviews with offsets and strides printed
// through unranked casts, and memref.copy between contiguous and strided
// views (the strided case calls the runner utilities' memrefCopy).
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI64(memref<*xi64>)

func.func @fill(%m: memref<6x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      %k = arith.muli %i, %c5 : index
      %l = arith.addi %k, %j : index
      %x = arith.index_cast %l : index to i64
      %f = arith.sitofp %x : i64 to f32
      %h = arith.constant 0.5 : f32
      %v = arith.mulf %f, %h : f32
      memref.store %v, %m[%i, %j] : memref<6x5xf32>
    }
  }
  return
}

func.func @main() {
  %m = memref.alloc() : memref<6x5xf32>
  call @fill(%m) : (memref<6x5xf32>) -> ()
  %sv = memref.subview %m[1, 1] [3, 2] [2, 2] : memref<6x5xf32> to memref<3x2xf32, strided<[10, 2], offset: 6>>
  %u = memref.cast %sv : memref<3x2xf32, strided<[10, 2], offset: 6>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()

  // strided -> contiguous
  %dense = memref.alloc() : memref<3x2xf32>
  memref.copy %sv, %dense : memref<3x2xf32, strided<[10, 2], offset: 6>> to memref<3x2xf32>
  %ud = memref.cast %dense : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%ud) : (memref<*xf32>) -> ()

  // contiguous -> strided (a column of the original)
  %col = memref.subview %m[0, 4] [6, 1] [1, 1] : memref<6x5xf32> to memref<6x1xf32, strided<[5, 1], offset: 4>>
  %src = memref.alloc() : memref<6x1xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %neg = arith.constant -7.25 : f32
  scf.for %i = %c0 to %c6 step %c1 {
    memref.store %neg, %src[%i, %c0] : memref<6x1xf32>
  }
  memref.copy %src, %col : memref<6x1xf32> to memref<6x1xf32, strided<[5, 1], offset: 4>>
  %um = memref.cast %m : memref<6x5xf32> to memref<*xf32>
  call @printMemrefF32(%um) : (memref<*xf32>) -> ()

  // a dynamic, transposed view
  %t = memref.transpose %m (i, j) -> (j, i) : memref<6x5xf32> to memref<5x6xf32, strided<[1, 5]>>
  %ut = memref.cast %t : memref<5x6xf32, strided<[1, 5]>> to memref<*xf32>
  call @printMemrefF32(%ut) : (memref<*xf32>) -> ()

  // rank-0 view and an i64 strided copy
  %e = memref.subview %m[2, 3] [1, 1] [1, 1] : memref<6x5xf32> to memref<1x1xf32, strided<[5, 1], offset: 13>>
  %ue = memref.cast %e : memref<1x1xf32, strided<[5, 1], offset: 13>> to memref<*xf32>
  call @printMemrefF32(%ue) : (memref<*xf32>) -> ()
  %ints = memref.alloc() : memref<4x4xi64>
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %k = arith.muli %i, %c4 : index
      %l = arith.addi %k, %j : index
      %x = arith.index_cast %l : index to i64
      memref.store %x, %ints[%i, %j] : memref<4x4xi64>
    }
  }
  %isv = memref.subview %ints[0, 1] [2, 3] [2, 1] : memref<4x4xi64> to memref<2x3xi64, strided<[8, 1], offset: 1>>
  %idst = memref.alloc() : memref<2x3xi64>
  memref.copy %isv, %idst : memref<2x3xi64, strided<[8, 1], offset: 1>> to memref<2x3xi64>
  %ui = memref.cast %idst : memref<2x3xi64> to memref<*xi64>
  call @printMemrefI64(%ui) : (memref<*xi64>) -> ()

  memref.dealloc %m : memref<6x5xf32>
  memref.dealloc %dense : memref<3x2xf32>
  memref.dealloc %src : memref<6x1xf32>
  memref.dealloc %ints : memref<4x4xi64>
  memref.dealloc %idst : memref<2x3xi64>
  return
}
