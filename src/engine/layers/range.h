/* range.h — building a run's spec (spec.h): the range's part, then each
 * layer's. No run and no host needed. */
#ifndef LAB_RANGE_H
#define LAB_RANGE_H

#include "spec.h"

void spec_build(struct run_spec *s, const struct lab_config *cfg, const struct lab_setup *setup);

#endif
