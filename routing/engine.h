/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Routing engines: one table of {name, route function}, the same for the
 * plugin (which registers each with OpenSM) and the CLI (which routes net
 * files offline).  An engine reads the fabric model and fills LFTs; it
 * never sees OpenSM.
 */
#ifndef VF_ENGINE_H
#define VF_ENGINE_H

#include <stdbool.h>

#include "fabric.h"

struct vf_route_opts {
	bool verbose;		/* log per-switch decisions at debug level */
};

/*
 * Fill t (already sized to f by vf_lfts_init and set to VF_NO_PORT) with
 * the LFT of every switch.  Returns 0, or a negative errno when the engine
 * cannot route this fabric (the caller then falls back).
 */
typedef int (*vf_route_fn)(const struct vf_fabric *f,
			   const struct vf_route_opts *opts,
			   struct vf_lfts *t);

struct vf_engine {
	const char *name;	/* as listed in OpenSM's routing_engine */
	const char *summary;	/* one line for --help and the log */
	vf_route_fn route;
};

extern const struct vf_engine vf_engines[];
extern const unsigned vf_num_engines;

/* The engine called name, or NULL. */
const struct vf_engine *vf_engine_find(const char *name);

int vf_route_shortestpath(const struct vf_fabric *f,
			  const struct vf_route_opts *opts, struct vf_lfts *t);

#endif /* VF_ENGINE_H */
