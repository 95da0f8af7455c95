#ifndef SHOAL_CLZ4_SHIM_H
#define SHOAL_CLZ4_SHIM_H
#include <lz4.h>
#endif
