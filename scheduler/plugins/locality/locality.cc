// Locality is header-only; this file keeps one translation unit per plugin.
#include "scheduler/plugins/locality/locality.h"
