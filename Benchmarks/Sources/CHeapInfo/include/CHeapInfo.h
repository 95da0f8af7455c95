#ifndef CHEAPINFO_H
#define CHEAPINFO_H
#include <stddef.h>

/// Bytes the C heap has handed out and not taken back: glibc's
/// mallinfo2() in-use arena bytes plus mmapped blocks (0 elsewhere).
size_t cheapinfo_heap_bytes(void);

#endif
