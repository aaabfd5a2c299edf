/*
 * pipeline_broken.pml - the deliberately broken variant of pipeline.pml:
 * the flusher reads the shutdown flag AFTER its exchange, and the exchange
 * always installs NULL (F3 before F2). A producer (or the flush caller) can
 * then push after the final drain: the record is lost (or the flush caller
 * waits forever). spin must find it (tests/model/run_spin.sh ... fail).
 */
#define BROKEN 1
#include "pipeline.pml"
