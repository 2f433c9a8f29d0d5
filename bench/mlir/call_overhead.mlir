// Empty kernels of 0, 1, 3 and 8 memref arguments: the peers of
// bench_call_overhead.cpp's _mlir_ciface_bench_k<n> (CallOverhead/mlir/<n>).
func.func @k0() attributes {llvm.emit_c_interface} { return }
func.func @k1(%a: memref<?xf32>) attributes {llvm.emit_c_interface} { return }
func.func @k3(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) attributes {llvm.emit_c_interface} { return }
func.func @k8(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %d: memref<?xf32>,
              %e: memref<?xf32>, %f: memref<?xf32>, %g: memref<?xf32>, %h: memref<?xf32>)
    attributes {llvm.emit_c_interface} { return }
