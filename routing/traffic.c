// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

int vf_traffic_init(struct vf_traffic *t, const struct vf_fabric *f,
		    unsigned n)
{
	memset(t, 0, sizeof(*t));
	t->cls = calloc(n ? n : 1, sizeof(*t->cls));
	t->member = calloc((size_t)f->num_ports * (n ? n : 1), 1);
	if (!t->cls || !t->member) {
		vf_traffic_free(t);
		return -ENOMEM;
	}
	t->num_classes = n;
	t->num_ports = f->num_ports;
	for (unsigned c = 0; c < n; c++)
		t->cls[c].weight = 1;
	return 0;
}

void vf_traffic_free(struct vf_traffic *t)
{
	free(t->cls);
	free(t->member);
	memset(t, 0, sizeof(*t));
}

bool vf_traffic_overlap(const struct vf_traffic *t, unsigned a, unsigned b)
{
	for (uint32_t p = 0; p < t->num_ports; p++)
		if (vf_traffic_member(t, p, a) && vf_traffic_member(t, p, b))
			return true;
	return false;
}
