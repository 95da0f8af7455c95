// glibc's heap statistics (mallinfo2, malloc_trim), which Glibc's Swift module
// does not export: tests measure what the heap keeps after an operation.
#include <malloc.h>
