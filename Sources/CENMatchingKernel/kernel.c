#include "CENMatchingKernel.h"
int cen_kernel_placeholder(void) { return 0; }
