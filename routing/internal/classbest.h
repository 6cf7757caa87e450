/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Partition-aware balance, kept honest: an engine's two class-by-class
 * routings (opts->class_variant) are compared with its all-to-all routing
 * of the same fabric, class by class (each class's busiest link,
 * routing/partload.h).  Of those where no class is heavier than all-to-all
 * and one is lighter, the one with the lightest sum is kept; without
 * such a one the all-to-all tables are.  So balance never leaves a class
 * worse off than off does.
 */
#ifndef VF_CLASSBEST_H
#define VF_CLASSBEST_H

#include "routing/engine.h"

/*
 * Route with fn all-to-all and by class (opts asks for balance), keeping
 * the better in t as above.  fn's errors are returned as they come.
 */
int vf_route_best_for_classes(const struct vf_fabric *f,
			      const struct vf_route_opts *opts,
			      struct vf_lfts *t, vf_route_fn fn);

#endif /* VF_CLASSBEST_H */
