#ifndef CENMATCHINGKERNEL_H
#define CENMATCHINGKERNEL_H
// The matcher's C kernel. Its contents arrive with the matching issue.
int cen_kernel_placeholder(void);
#endif
