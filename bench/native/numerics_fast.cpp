#define NUMERICS_NAMESPACE native_fast
#include "numerics.inc"
