#ifndef SHOAL_CXXHASH_SHIM_H
#define SHOAL_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
