/* What the C snippets of docs/*.md use without declaring it (see
   snippet_contexts.h); compiled as C, so a C header stays C. */
#ifndef MEMJIT_DOCS_SNIPPET_CONTEXTS_C_H
#define MEMJIT_DOCS_SNIPPET_CONTEXTS_C_H

#include <stdint.h>

#include "memjit/runtime/checks.h"

/* A memref<?x?xf32> descriptor as a C caller declares it. */
struct docs_mat2 {
  float* allocated;
  float* aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};
extern struct docs_mat2 in, w, out;
void _mlir_ciface_conv(struct docs_mat2* in, struct docs_mat2* w, struct docs_mat2* out);

#endif
