// out = transpose(in) in the kernel library's loop structure (addTranspose):
// 16 x 16 tiles, then the partial tiles at the edges element by element
// (Kernel/transpose).
func.func @transpose(%in: memref<?x?xf32> {llvm.noalias}, %out: memref<?x?xf32> {llvm.noalias})
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant 16 : index
  %rows = memref.dim %in, %c0 : memref<?x?xf32>
  %cols = memref.dim %in, %c1 : memref<?x?xf32>
  %cr = arith.remsi %cols, %t : index
  %colsFull = arith.subi %cols, %cr : index
  %rr = arith.remsi %rows, %t : index
  %rowsFull = arith.subi %rows, %rr : index
  scf.for %i0 = %c0 to %colsFull step %t {
    scf.for %j0 = %c0 to %rowsFull step %t {
      scf.for %ii = %c0 to %t step %c1 {
        scf.for %jj = %c0 to %t step %c1 {
          %i = arith.addi %i0, %ii : index
          %j = arith.addi %j0, %jj : index
          %v = memref.load %in[%j, %i] : memref<?x?xf32>
          memref.store %v, %out[%i, %j] : memref<?x?xf32>
        }
      }
    }
    %iEnd = arith.addi %i0, %t : index
    scf.for %i = %i0 to %iEnd step %c1 {
      scf.for %j = %rowsFull to %rows step %c1 {
        %v = memref.load %in[%j, %i] : memref<?x?xf32>
        memref.store %v, %out[%i, %j] : memref<?x?xf32>
      }
    }
  }
  scf.for %i = %colsFull to %cols step %c1 {
    scf.for %j = %c0 to %rows step %c1 {
      %v = memref.load %in[%j, %i] : memref<?x?xf32>
      memref.store %v, %out[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
