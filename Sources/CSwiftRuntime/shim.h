// One entry point of the Swift runtime (libswiftCore, always linked), declared
// as the runtime's HeapObject.h declares it: the conditional retain behind
// weak loads.
#pragma once

/// Atomically retains `object` unless it is being deinitialised; returns
/// `object` when it did, NULL otherwise.
extern void *swift_tryRetain(void *object);
